import type { RequestHandler } from 'express';
import { AUTH_HEADER_MAX_AGE_SECONDS, busyAsUnavailable, nodeApiMessage, verifyAuthHeaderAsync, type AuthHeaderFailure } from '@ocg/auth';
import { NotFoundError, UnauthorizedError } from '@ocg/http';
import type { Executor } from '../executor/executor';

const FORMAT = 'ocg-node-api:<node address>:<job address>:<base58 signature>:<unix ms>';

const MESSAGES: Record<Exclude<AuthHeaderFailure, 'bad-signature'>, (maxAge: number) => string> = {
  malformed: () => `Authorization header is malformed: expected ${FORMAT}`,
  'timestamp-required': () => `Authorization header has no timestamp: expected ${FORMAT}`,
  expired: (maxAge) => `Authorization header expired: it is older than ${maxAge} s; sign a new one`,
  'from-the-future': () => 'Authorization header timestamp is in the future: check the clock',
  'unexpected-message': () => `Authorization header signs another message: a node API header names this node and this job (${FORMAT})`,
};

/**
 * Only the job's poster controls it. The header is bound to its purpose
 * (README, "Node API"): it signs `ocg-node-api:<this node>:<this job>` with a
 * timestamp at most 5 minutes old, so a signature made for another node, job
 * or use (sign-message/external for anything else, a session's header) is
 * refused. Shape, message and time are checked first (401); then an unknown
 * job and another poster's job answer the same 404, so nobody learns which
 * jobs run here. The signature is checked in libuv's thread pool, so the
 * agent's event loop (which also relays the jobs' endpoints) keeps serving.
 */
export function posterAuth(executor: Executor, node: string, maxAgeSeconds: number): RequestHandler {
  const maxAge = Math.min(maxAgeSeconds, AUTH_HEADER_MAX_AGE_SECONDS);
  return (req, _res, next) => {
    const job = String(req.params.job);
    const header = req.headers.authorization;
    if (!header) return next(new UnauthorizedError(`Authorization header required: ${FORMAT}, signed by the job poster's wallet`));
    const poster = executor.poster(job);
    verifyAuthHeaderAsync(header, poster ?? '', { maxAgeSeconds: maxAge, requireTimestamp: true, expectedMessage: nodeApiMessage(node, job) }).then(
      (check) => {
        if (!check.ok && check.reason !== 'bad-signature') return next(new UnauthorizedError(MESSAGES[check.reason](maxAge)));
        if (!check.ok || !poster) return next(new NotFoundError(`job ${job} is not running on this node`));
        next();
      },
      (err: unknown) => next(busyAsUnavailable(err)),
    );
  };
}
