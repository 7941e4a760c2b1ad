import { ErrorCodes } from '@ocg/contracts';
import { HttpError, ValidationError } from '@ocg/http';

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
  if (key.length < 1 || key.length > 200)
    throw new ValidationError('Validation failed: Idempotency-Key must be 1 to 200 characters', [{ path: '/Idempotency-Key', message: 'must be 1 to 200 characters' }]);
}
