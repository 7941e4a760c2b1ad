import type { ErrorRequestHandler } from 'express';
import { ErrorCodes, type InsufficientBalanceErrorBody } from '@ocg/contracts';
import { HttpError, errorBody, requestIdOf } from '@ocg/http';
import { formatCredits } from '../credits/credit-format';

/** 402: a hold would overdraw. The body names both amounts (units), beyond the shared shape. */
export class InsufficientBalanceError extends HttpError {
  constructor(
    readonly available: number,
    readonly required: number,
  ) {
    super(402, ErrorCodes.INSUFFICIENT_BALANCE, `Insufficient balance: balance ${formatCredits(available)} credits is less than the ${formatCredits(required)} credits required`);
    this.name = 'InsufficientBalanceError';
  }
}

/**
 * The shared error middleware writes only the common members; this one, placed
 * before it, adds `available` and `required`.
 */
export const insufficientBalanceHandler: ErrorRequestHandler = (err, req, res, next) => {
  if (!(err instanceof InsufficientBalanceError) || res.headersSent) return next(err);
  // Stryker disable next-line OptionalChaining: buildServiceApp's request logging gives every request its logger
  req.log?.debug({ code: err.code, message: err.message }, 'request rejected');
  const body: InsufficientBalanceErrorBody = { ...errorBody(err, requestIdOf(req)), available: err.available, required: err.required };
  res.status(402).json(body);
};
