import { ErrorCodes, type ErrorBody, type ErrorCode, type FieldError } from '@ocg/contracts';

/** Default class names by status, so a bare `HttpError(402, ...)` still has a useful `name`. */
const NAMES: Record<number, string> = {
  400: 'BadRequestError',
  401: 'UnauthorizedError',
  402: 'PaymentRequiredError',
  403: 'ForbiddenError',
  404: 'NotFoundError',
  405: 'MethodNotAllowedError',
  406: 'NotAcceptableError',
  408: 'RequestTimeoutError',
  409: 'ConflictError',
  413: 'PayloadTooLargeError',
  415: 'UnsupportedMediaTypeError',
  431: 'RequestHeaderFieldsTooLargeError',
  429: 'TooManyRequestsError',
  500: 'InternalError',
  502: 'BadGatewayError',
  503: 'ServiceUnavailableError',
  504: 'GatewayTimeoutError',
};

/** Codes for errors that only carry a status (http-errors, tsoa auth rejections, ...). */
const CODES: Record<number, ErrorCode> = {
  400: ErrorCodes.VALIDATION_FAILED,
  401: ErrorCodes.UNAUTHENTICATED,
  403: ErrorCodes.FORBIDDEN,
  404: ErrorCodes.NOT_FOUND,
  406: ErrorCodes.NOT_ACCEPTABLE,
  409: ErrorCodes.CONFLICT,
  413: ErrorCodes.PAYLOAD_TOO_LARGE,
  415: ErrorCodes.UNSUPPORTED_MEDIA_TYPE,
  429: ErrorCodes.RATE_LIMITED,
  503: ErrorCodes.SERVICE_UNAVAILABLE,
  504: ErrorCodes.UPSTREAM_TIMEOUT,
};

export function nameForStatus(status: number): string {
  return NAMES[status] ?? 'HttpError';
}

export function codeForStatus(status: number): ErrorCode {
  return CODES[status] ?? (status >= 500 ? ErrorCodes.INTERNAL : ErrorCodes.VALIDATION_FAILED);
}

/**
 * An error whose message is meant for the caller. Services throw these; the error
 * middleware answers with {@link errorBody} and `status`, plus `headers`.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;
  headers?: Record<string, string>;
  /** Field errors found beyond those in `errors` (see {@link MAX_FIELD_ERRORS}). */
  moreErrors = 0;
  /** What went wrong inside, for the log line only: never sent to the client (the request id finds it). */
  internalDetail?: string;

  constructor(status: number, code: ErrorCode, message: string, errors?: FieldError[]) {
    super(message);
    this.name = nameForStatus(status);
    this.status = status;
    this.code = code;
    this.errors = errors;
  }
}

export class ValidationError extends HttpError {
  constructor(message: string, errors?: FieldError[]) {
    super(400, ErrorCodes.VALIDATION_FAILED, message, errors);
    this.name = 'ValidationError';
  }
}

/** The body could not be read as any of the wire formats (bad JSON, broken multipart). */
export class MalformedBodyError extends HttpError {
  constructor(message: string) {
    super(400, ErrorCodes.MALFORMED_BODY, message);
    this.name = 'MalformedBodyError';
  }
}

export class UnauthorizedError extends HttpError {
  constructor(message = 'Authentication required') {
    super(401, ErrorCodes.UNAUTHENTICATED, message);
    this.name = 'UnauthorizedError';
  }
}

export class ForbiddenError extends HttpError {
  constructor(message = 'Forbidden') {
    super(403, ErrorCodes.FORBIDDEN, message);
    this.name = 'ForbiddenError';
  }
}

export class NotFoundError extends HttpError {
  constructor(message = 'Not found') {
    super(404, ErrorCodes.NOT_FOUND, message);
    this.name = 'NotFoundError';
  }
}

export class NotAcceptableError extends HttpError {
  constructor(message: string) {
    super(406, ErrorCodes.NOT_ACCEPTABLE, message);
    this.name = 'NotAcceptableError';
  }
}

export class ConflictError extends HttpError {
  constructor(message: string, errors?: FieldError[]) {
    super(409, ErrorCodes.CONFLICT, message, errors);
    this.name = 'ConflictError';
  }
}

export class PayloadTooLargeError extends HttpError {
  constructor(message: string) {
    super(413, ErrorCodes.PAYLOAD_TOO_LARGE, message);
    this.name = 'PayloadTooLargeError';
  }
}

export function bodyTooLarge(limit: number): PayloadTooLargeError {
  return new PayloadTooLargeError(`Request body exceeds the limit of ${limit} bytes`);
}

/** A per-user limit is reached (uploads, API keys): the message names the limit and its setting. */
export class QuotaExceededError extends HttpError {
  constructor(message: string, errors?: FieldError[]) {
    super(409, ErrorCodes.QUOTA_EXCEEDED, message, errors);
    this.name = 'QuotaExceededError';
  }
}

export class UnsupportedMediaTypeError extends HttpError {
  constructor(message: string) {
    super(415, ErrorCodes.UNSUPPORTED_MEDIA_TYPE, message);
    this.name = 'UnsupportedMediaTypeError';
  }
}

export class TooManyRequestsError extends HttpError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, ErrorCodes.RATE_LIMITED, message);
    this.name = 'TooManyRequestsError';
    // Retry-After takes whole seconds; never tell a client to retry "now" while limited.
    this.headers = { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) };
  }
}

/** Seconds a client is told to wait before retrying a 503 (a store or another service is away). */
export const RETRY_UNAVAILABLE_AFTER_SECONDS = 5;

/** Every 503 says when to retry (Retry-After), so clients back off instead of hammering or giving up. */
export class ServiceUnavailableError extends HttpError {
  /** `detail` (another service's status, a socket error) is logged, never sent. */
  constructor(message: string, errors?: FieldError[], opts: { detail?: string; retryAfterSeconds?: number } = {}) {
    super(503, ErrorCodes.SERVICE_UNAVAILABLE, message, errors);
    this.name = 'ServiceUnavailableError';
    this.internalDetail = opts.detail;
    this.headers = { 'Retry-After': String(Math.max(1, Math.ceil(opts.retryAfterSeconds ?? RETRY_UNAVAILABLE_AFTER_SECONDS))) };
  }
}

/** The body of a 500: deliberately the same for every unexpected failure. */
export class InternalError extends HttpError {
  constructor() {
    super(500, ErrorCodes.INTERNAL, 'Internal server error');
    this.name = 'InternalError';
  }
}

/** A 400 names at most this many fields, then counts the rest. */
export const MAX_FIELD_ERRORS = 20;
/** Longest message, and longest field path, an error body carries: 20 fields stay far below 64 KiB. */
const MAX_MESSAGE = 1000;
const MAX_PATH = 500;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `count` field errors of which `errors` are the first: the 400 names them and counts the rest. */
export function validationFailed(errors: FieldError[], count = errors.length): ValidationError {
  const first = errors[0];
  const more = count > 1 ? ` (and ${count - 1} more)` : '';
  const summary = first ? `${first.path || 'request body'}: ${first.message}${more}` : 'invalid request';
  const err = new ValidationError(`Validation failed: ${summary}`, errors);
  err.moreErrors = Math.max(0, count - errors.length);
  return err;
}

/** The body of an error response: bounded in size whatever the error carries (under 64 KiB). */
export function errorBody(err: HttpError, requestId?: string): ErrorBody {
  const body: ErrorBody = { name: clip(err.name, 100), message: clip(err.message, MAX_MESSAGE), status: err.status, code: err.code };
  if (requestId !== undefined) body.requestId = requestId;
  const errors = err.errors ?? [];
  if (errors.length > 0) body.errors = errors.slice(0, MAX_FIELD_ERRORS).map((e) => ({ path: clip(e.path, MAX_PATH), message: clip(e.message, MAX_MESSAGE) }));
  const more = err.moreErrors + Math.max(0, errors.length - MAX_FIELD_ERRORS);
  if (more > 0) body.moreErrors = more;
  return body;
}
