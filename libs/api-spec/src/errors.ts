type Json = Record<string, unknown>;

const fieldError: Json = {
  type: 'object',
  required: ['path', 'message'],
  properties: {
    path: { type: 'string', description: 'JSON pointer of the offending member, for example `/scopes/0`.' },
    message: { type: 'string' },
  },
};

const errorBody: Json = {
  type: 'object',
  description: 'The one error shape of every operation. `name` and `message` are always present.',
  required: ['name', 'message'],
  properties: {
    name: { type: 'string', examples: ['ValidationError'] },
    message: { type: 'string' },
    status: { type: 'integer' },
    code: { type: 'string', examples: ['VALIDATION_FAILED'] },
    requestId: { type: 'string' },
    errors: { type: 'array', maxItems: 20, description: 'At most 20 field errors; `moreErrors` counts the rest.', items: { $ref: '#/components/schemas/FieldError' } },
    moreErrors: { type: 'integer', minimum: 1, description: 'How many more field errors there were beyond those listed.' },
  },
};

const reasons: Record<string, string> = {
  BadRequest: 'The body or a parameter is malformed or fails validation; `errors` names each offending field.',
  Unauthorized: 'No valid credential was presented.',
  Forbidden: 'The credential lacks a required scope.',
  NotFound: 'No such resource visible to the caller.',
  PayloadTooLarge: 'The body exceeds the size limit (1 MiB by default).',
  UnsupportedMediaType: 'The body is not application/json, text/plain or multipart/form-data.',
  TooManyRequests: 'Rate limited; retry after the number of seconds in `Retry-After`.',
  InternalError: 'Something failed on our side; quote `requestId` when reporting it.',
  ServiceUnavailable: 'The service behind this operation is down or not ready.',
};

const response = (description: string): Json => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
});

export const errorComponents = {
  schemas: { ErrorBody: errorBody, FieldError: fieldError },
  responses: Object.fromEntries(Object.entries(reasons).map(([name, text]) => [name, response(text)])),
};

const ref = (name: string): Json => ({ $ref: `#/components/responses/${name}` });

/**
 * The error responses an operation can give, by what it takes. Every request can
 * be a 400 (a NUL byte or an over-long value in any query parameter, libs/http's
 * request check), and any method but GET and HEAD reads a body if one is sent,
 * so it can be a 413 or 415 even when the operation takes none.
 */
export function errorResponsesFor(op: { method?: string; hasBody: boolean; secured: boolean; hasParams: boolean }): Json {
  const out: Json = {};
  const readsBody = op.hasBody || (op.method !== undefined && !['get', 'head'].includes(op.method.toLowerCase()));
  out['400'] = ref('BadRequest');
  if (op.secured) {
    out['401'] = ref('Unauthorized');
    out['403'] = ref('Forbidden');
  }
  if (readsBody) {
    out['413'] = ref('PayloadTooLarge');
    out['415'] = ref('UnsupportedMediaType');
  }
  out['500'] = ref('InternalError');
  out['503'] = ref('ServiceUnavailable');
  return out;
}
