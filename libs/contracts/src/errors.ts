/** One field-level problem: a JSON pointer into the request and what to do about it. */
export interface FieldError {
  /** JSON pointer of the offending member, for example `/scopes/0`. */
  path: string;
  message: string;
}

/**
 * The one error body every service answers with. `name` and `message` are always
 * present; 5xx bodies never carry internals.
 */
export interface ErrorBody {
  /** Error class, for example `ValidationError`. */
  name: string;
  /** What went wrong, for a person. */
  message: string;
  /** The HTTP status, repeated for clients that lose it. */
  status?: number;
  /** Stable machine-readable code, for example `VALIDATION_FAILED`. */
  code?: string;
  /** The request id (header `x-request-id`) to quote when asking for help. */
  requestId?: string;
  /** At most 20 field errors are listed. */
  errors?: FieldError[];
  /** How many more field errors there were beyond those listed. */
  moreErrors?: number;
}

/** Stable codes used in {@link ErrorBody.code}. */
export const ErrorCodes = {
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  MALFORMED_BODY: 'MALFORMED_BODY',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  NOT_ACCEPTABLE: 'NOT_ACCEPTABLE',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  FORBIDDEN: 'FORBIDDEN',
  NOT_FOUND: 'NOT_FOUND',
  CONFLICT: 'CONFLICT',
  RATE_LIMITED: 'RATE_LIMITED',
  INSUFFICIENT_BALANCE: 'INSUFFICIENT_BALANCE',
  QUOTA_EXCEEDED: 'QUOTA_EXCEEDED',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  UPSTREAM_TIMEOUT: 'UPSTREAM_TIMEOUT',
  INTERNAL: 'INTERNAL',
} as const;
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];
