import type { ErrorRequestHandler, Express, Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { ErrorCodes } from '@ocg/contracts';
import { codeForStatus, errorBody, HttpError, InternalError, NotFoundError, nameForStatus, ServiceUnavailableError } from './http-error';
import { requestIdOf } from './request-id';
import { fromTsoaValidateError, isTsoaValidateError } from './tsoa';
import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from './unavailable';

interface StatusLike {
  status?: unknown;
  statusCode?: unknown;
  message?: unknown;
  type?: unknown;
}

function clientStatusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as StatusLike;
  const status = typeof e.status === 'number' ? e.status : e.statusCode;
  return typeof status === 'number' && Number.isInteger(status) && status >= 400 && status < 500 ? status : undefined;
}

/**
 * Every error becomes an {@link HttpError}. 4xx errors from other libraries (body-parser,
 * http-errors, express's param decoding, an auth hook) are client mistakes whose messages
 * are meant for the client, so they keep status and message. Postgres or Redis being
 * unreachable is a 503 with Retry-After (retry shortly). Anything else is a 500 that
 * says nothing about why.
 */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (isTsoaValidateError(err)) return fromTsoaValidateError(err);
  if (isStoreUnavailable(err)) return storeUnavailable();
  const status = clientStatusOf(err);
  if (status === undefined) return new InternalError();
  const e = err as StatusLike;
  const code = e.type === 'entity.parse.failed' ? ErrorCodes.MALFORMED_BODY : codeForStatus(status);
  const message = typeof e.message === 'string' && e.message && !isRuntimeFault(err) ? e.message : nameForStatus(status);
  return new HttpError(status, code, message);
}

function storeUnavailable(): HttpError {
  return new ServiceUnavailableError('The service cannot reach its database right now; retry shortly', undefined, { retryAfterSeconds: STORE_RETRY_AFTER_SECONDS });
}

/**
 * A JavaScript runtime error (a stack overflow, a TypeError) that something tagged
 * with a 4xx status, as tsoa does with whatever an auth hook throws: the status
 * stands, its text is ours, not the client's.
 */
function isRuntimeFault(err: unknown): boolean {
  return err instanceof RangeError || err instanceof TypeError || err instanceof ReferenceError || err instanceof EvalError;
}

function notFound(): RequestHandler {
  return (req, _res, next) => next(new NotFoundError(`No route for ${req.method} ${req.path}`));
}

function logFailure(req: Request, logger: Logger, err: unknown, mapped: HttpError): void {
  const log = (req.log as Logger | undefined) ?? logger.child({ requestId: requestIdOf(req) });
  if (mapped.status >= 500) log.error({ err }, mapped instanceof InternalError ? 'unhandled error' : mapped.message);
  else log.debug({ code: mapped.code, message: mapped.message }, 'request rejected');
}

function errorMiddleware(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    const mapped = toHttpError(err);
    logFailure(req, logger, err, mapped);
    // Too late for a body: let express cut the connection so the client sees a failure.
    if (res.headersSent) return next(err);
    if (mapped.headers) res.set(mapped.headers);
    res.status(mapped.status).json(errorBody(mapped, requestIdOf(req)));
  };
}

/** Call after the routes: unknown routes answer 404, and every error gets the one body shape. */
export function installErrorHandling(app: Express, logger: Logger): void {
  app.use(notFound());
  app.use(errorMiddleware(logger));
}

export * from './http-error';
