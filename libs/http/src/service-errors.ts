import { ErrorCodes, type ErrorBody, type ErrorCode, type FieldError } from '@ocg/contracts';
import {
  codeForStatus,
  ConflictError,
  ForbiddenError,
  HttpError,
  MalformedBodyError,
  NotAcceptableError,
  NotFoundError,
  PayloadTooLargeError,
  QuotaExceededError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationError,
} from './http-error';

/** What the mapping needs of an answer. */
export interface ErrorAnswer {
  status: number;
  body: unknown;
  headers?: Headers;
}

const KNOWN_CODES = new Set<string>(Object.values(ErrorCodes));

/** The error shape, when the body has one. */
function shapeOf(body: unknown): Partial<ErrorBody> {
  if (typeof body !== 'object' || body === null) return {};
  const b = body as Record<string, unknown>;
  const errors = Array.isArray(b.errors) ? b.errors.filter((e): e is FieldError => typeof e?.path === 'string' && typeof e?.message === 'string') : undefined;
  return {
    message: typeof b.message === 'string' ? b.message : undefined,
    code: typeof b.code === 'string' ? b.code : undefined,
    errors: errors?.length ? errors : undefined,
  };
}

function clientError(status: number, message: string, code: ErrorCode, errors: FieldError[] | undefined, headers?: Headers): HttpError {
  switch (status) {
    case 400:
      return code === ErrorCodes.MALFORMED_BODY ? new MalformedBodyError(message) : new ValidationError(message, errors);
    case 401:
      return new UnauthorizedError(message);
    case 403:
      return new ForbiddenError(message);
    case 404:
      return new NotFoundError(message);
    case 406:
      return new NotAcceptableError(message);
    case 409:
      return code === ErrorCodes.QUOTA_EXCEEDED ? new QuotaExceededError(message, errors) : new ConflictError(message, errors);
    case 413:
      return new PayloadTooLargeError(message);
    case 415:
      return new UnsupportedMediaTypeError(message);
    case 429:
      return new TooManyRequestsError(message, Number(headers?.get('retry-after')) || 1);
    default:
      return new HttpError(status, code, message, errors);
  }
}

/**
 * Another service's error answer as the typed error the caller would have
 * thrown itself: a 4xx keeps its status, message, code and field errors (the
 * caller's own client made the mistake); anything else becomes a 503 naming
 * the service, whose status and message are only logged.
 */
export function errorFromResponse(service: string, answer: ErrorAnswer): HttpError {
  const shape = shapeOf(answer.body);
  if (answer.status >= 400 && answer.status < 500) {
    const code = shape.code && KNOWN_CODES.has(shape.code) ? (shape.code as ErrorCode) : codeForStatus(answer.status);
    return clientError(answer.status, shape.message ?? `${service} answered ${answer.status}`, code, shape.errors, answer.headers);
  }
  const said = shape.message ? `: ${shape.message}` : '';
  return new ServiceUnavailableError(`${service} is unavailable; try again shortly`, undefined, { detail: `${service} answered ${answer.status}${said}` });
}
