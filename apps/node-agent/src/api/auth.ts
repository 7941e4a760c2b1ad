import type { RequestHandler } from 'express';
import { verifyAuthHeader, type AuthHeaderFailure } from '@ocg/auth';
import { NotFoundError, UnauthorizedError } from '@ocg/http';
import type { Executor } from '../executor/executor';

const FORMAT = '<message>:<base58 signature>:<unix ms>';

const MESSAGES: Record<AuthHeaderFailure, (maxAge: number) => string> = {
  malformed: () => `Authorization header is malformed: expected ${FORMAT}`,
  'timestamp-required': () => `Authorization header has no timestamp: expected ${FORMAT}`,
  expired: (maxAge) => `Authorization header expired: it is older than ${maxAge} s; sign a new one`,
  'from-the-future': () => 'Authorization header timestamp is in the future: check the clock',
  'bad-signature': () => "Authorization header is not signed by this job's poster",
  'unexpected-message': () => 'Authorization header signs an unexpected message',
};

/**
 * Only the job's poster controls it: the header must be signed by the
 * poster's wallet (the address came with the job) and carry a timestamp, so
 * a captured header stops working after `maxAgeSeconds`. An unknown job is
 * 404 before any check: there is no poster to check against.
 */
export function posterAuth(executor: Executor, maxAgeSeconds: number): RequestHandler {
  return (req, _res, next) => {
    const job = String(req.params.job);
    const poster = executor.poster(job);
    if (!poster) return next(new NotFoundError(`job ${job} is not running on this node`));
    const header = req.headers.authorization;
    if (!header) return next(new UnauthorizedError(`Authorization header required: ${FORMAT}, signed by the job poster's wallet`));
    const check = verifyAuthHeader(header, poster, { maxAgeSeconds, requireTimestamp: true });
    if (!check.ok) return next(new UnauthorizedError(MESSAGES[check.reason](maxAgeSeconds)));
    next();
  };
}
