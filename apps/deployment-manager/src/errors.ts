import type { ErrorRequestHandler } from 'express';
import { ErrorCodes, type InsufficientBalanceErrorBody } from '@ocg/contracts';
import { HttpError, ValidationError, errorBody, requestIdOf } from '@ocg/http';

/**
 * 402 from client-manager, passed through: the poster's balance does not
 * cover the hold. Its body keeps `available` and `required` (units).
 */
export class InsufficientBalanceError extends HttpError {
  constructor(
    message: string,
    readonly available: number,
    readonly required: number,
  ) {
    super(402, ErrorCodes.INSUFFICIENT_BALANCE, message);
    this.name = 'InsufficientBalanceError';
  }
}

/** 422: an Idempotency-Key sent again with a different request (IETF httpapi-idempotency-key). */
export class IdempotencyKeyReusedError extends HttpError {
  constructor(key: string, what = 'job') {
    super(422, ErrorCodes.CONFLICT, `Idempotency-Key "${key}" was already used for a different request; use a new key for a new ${what}`, [
      { path: '/Idempotency-Key', message: 'already used with another request body' },
    ]);
    this.name = 'IdempotencyKeyReusedError';
  }
}

/** An Idempotency-Key header must be 1 to 200 characters. */
export function checkIdempotencyKey(key: string): void {
  if (key.length < 1 || key.length > 200) throw new ValidationError('Validation failed: Idempotency-Key must be 1 to 200 characters', [{ path: '/Idempotency-Key', message: 'must be 1 to 200 characters' }]);
}

/** The shared error middleware writes only the common members; this one, before it, adds the two amounts. */
export const insufficientBalanceHandler: ErrorRequestHandler = (err, req, res, next) => {
  if (!(err instanceof InsufficientBalanceError) || res.headersSent) return next(err);
  req.log?.debug({ code: err.code, message: err.message }, 'request rejected');
  const body: InsufficientBalanceErrorBody = { ...errorBody(err, requestIdOf(req)), available: err.available, required: err.required };
  res.status(402).json(body);
};
