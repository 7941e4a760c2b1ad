import type { ErrorRequestHandler } from 'express';
import { ErrorCodes, type InsufficientBalanceErrorBody } from '@ocg/contracts';
import { HttpError, errorBody } from './http-error';
import { requestIdOf } from './request-id';

/**
 * 402: a hold would overdraw. client-manager throws it; deployment-manager
 * throws it again from client-manager's answer. The body names both amounts
 * (units), beyond the shared shape.
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

/**
 * The shared error middleware writes only the common members; this one, placed
 * before it, adds `available` and `required`.
 */
export const insufficientBalanceHandler: ErrorRequestHandler = (err, req, res, next) => {
  if (!(err instanceof InsufficientBalanceError) || res.headersSent) return next(err);
  // Stryker disable next-line OptionalChaining: buildServiceApp's pino-http gives every request its logger
  req.log?.debug({ code: err.code, message: err.message }, 'request rejected');
  const body: InsufficientBalanceErrorBody = { ...errorBody(err, requestIdOf(req)), available: err.available, required: err.required };
  res.status(402).json(body);
};
