/**
 * Merges the per-service OpenAPI 3.0 fragments tsoa emits into one OpenAPI
 * 3.1.0 document: nullable to type arrays, the three wire formats on every
 * body and 200, one error shape, `x-service` and a tag on every operation,
 * and the two security schemes. Pure: same input, same bytes out.
 */
import { SCOPE_CATALOG } from '@ocg/contracts';
import { errorComponents, errorResponsesFor } from './errors';

type Json = Record<string, unknown>;
export interface ServiceFragment {
  service: string;
  spec: Json;
}
export interface NormalizeOptions {
  title: string;
  version: string;
  description?: string;
  /** Extra schemas to publish under components.schemas (e.g. the job definition). */
  extraSchemas?: Record<string, Json>;
  /** Where the operations are served; default the gateway origin. */
  servers?: Json[];
  /** The security schemes operations name; default the gateway's three. */
  securitySchemes?: Record<string, Json>;
}

export const WIRE_TYPES = ['application/json', 'text/plain', 'multipart/form-data'] as const;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

export function mergeAndNormalize(fragments: ServiceFragment[], opts: NormalizeOptions): Json {
  const paths: Record<string, Json> = {};
  const schemas: Record<string, Json> = {};
  const operationIds = new Map<string, string>();
  const tags = new Map<string, string>();

  for (const { service, spec } of fragments) {
    const components = (spec.components ?? {}) as Json;
    for (const [name, schema] of Object.entries((components.schemas ?? {}) as Record<string, Json>)) {
      const normalized = toSchema31(schema);
      if (schemas[name] && JSON.stringify(schemas[name]) !== JSON.stringify(normalized)) {
        throw new Error(`schema "${name}" is defined differently by ${service} and another service`);
      }
      schemas[name] = normalized;
    }
    for (const [path, item] of Object.entries((spec.paths ?? {}) as Record<string, Json>)) {
      const target = (paths[path] ??= {});
      for (const method of METHODS) {
        const op = item[method] as Json | undefined;
        if (!op) continue;
        if (target[method]) throw new Error(`${method.toUpperCase()} ${path} is served by two services`);
        const id = String(op.operationId ?? '');
        if (operationIds.has(id)) throw new Error(`operationId "${id}" used by ${operationIds.get(id)} and ${service}`);
        operationIds.set(id, service);
        for (const tag of (op.tags as string[] | undefined) ?? []) tags.set(tag, service);
        target[method] = normalizeOperation(op, service, method);
      }
    }
  }
  for (const [name, schema] of Object.entries(opts.extraSchemas ?? {})) schemas[name] = stripDialect(schema);
  Object.assign(schemas, errorComponents.schemas);

  return {
    openapi: '3.1.0',
    info: { title: opts.title, version: opts.version, ...(opts.description ? { description: opts.description } : {}) },
    servers: opts.servers ?? [{ url: '/', description: 'The gateway origin' }],
    tags: [...tags.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, service]) => ({ name, 'x-service': service })),
    paths: sortKeys(paths),
    components: {
      schemas: sortKeys(schemas),
      responses: errorComponents.responses,
      securitySchemes: opts.securitySchemes ?? securitySchemes(),
    },
  };
}

function normalizeOperation(op: Json, service: string, method: string): Json {
  const out: Json = { ...op, 'x-service': service };
  if (!Array.isArray(out.tags) || out.tags.length === 0) out.tags = [service];
  if (Array.isArray(out.parameters)) out.parameters = out.parameters.map((p: Json) => ({ ...p, schema: toSchema31(p.schema as Json) }));
  const body = op.requestBody as Json | undefined;
  if (body) out.requestBody = isJsonContent(body.content as Json) ? { ...body, content: everyWireType(body.content as Json) } : toResponse31(body);
  const responses: Json = {};
  for (const [status, response] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
    const content = response.content as Json | undefined;
    responses[status] = content && status.startsWith('2') && isJsonContent(content) ? { ...response, content: everyWireType(content) } : toResponse31(response);
  }
  const errors = errorResponsesFor({
    method,
    hasBody: Boolean(body),
    secured: Array.isArray(op.security) && op.security.length > 0,
    hasParams: Array.isArray(op.parameters) && op.parameters.length > 0,
  });
  for (const [status, ref] of Object.entries(errors)) responses[status] ??= ref;
  out.responses = sortKeys(responses);
  return out;
}

/** JSON bodies get the three wire formats; a declared other type (e.g. octet-stream downloads) stays as it is. */
function isJsonContent(content: Json | undefined): boolean {
  return !content || Object.keys(content).length === 0 || 'application/json' in content;
}

/** The three media types share one schema: the parsed object is the same whichever arrives. */
function everyWireType(content: Json | undefined): Json {
  const json = (content?.['application/json'] ?? Object.values(content ?? {})[0] ?? {}) as Json;
  const schema = json.schema ? toSchema31(json.schema as Json) : undefined;
  if (!schema) return Object.fromEntries(WIRE_TYPES.map((type) => [type, {}]));
  return {
    'application/json': { schema },
    // The text is the JSON document itself.
    'text/plain': { schema: { type: 'string', contentMediaType: 'application/json', contentSchema: schema } },
    // One part per top-level member; non-string members carry their JSON text.
    'multipart/form-data': { schema },
  };
}

function toResponse31(response: Json): Json {
  const content = response.content as Record<string, Json> | undefined;
  if (!content) return response;
  return { ...response, content: Object.fromEntries(Object.entries(content).map(([k, v]) => [k, { ...v, schema: toSchema31(v.schema as Json) }])) };
}

/** OpenAPI 3.0 schema dialect to 3.1 (JSON Schema 2020-12). */
export function toSchema31(schema: Json | undefined): Json {
  if (!schema || typeof schema !== 'object') return schema as unknown as Json;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'nullable' || key === 'example') continue;
    if (key === 'properties' || key === 'patternProperties' || key === '$defs') {
      out[key] = Object.fromEntries(Object.entries(value as Record<string, Json>).map(([k, v]) => [k, toSchema31(v)]));
    } else if (['items', 'additionalProperties', 'not', 'contains', 'propertyNames'].includes(key) && value && typeof value === 'object') {
      out[key] = toSchema31(value as Json);
    } else if (['allOf', 'anyOf', 'oneOf', 'prefixItems'].includes(key)) {
      out[key] = (value as Json[]).map(toSchema31);
    } else {
      out[key] = value;
    }
  }
  if ('example' in schema) out.examples = [schema.example];
  if (schema.nullable === true) return makeNullable(out);
  return out;
}

function makeNullable(schema: Json): Json {
  if (schema.$ref || schema.allOf || schema.oneOf || schema.anyOf) {
    const { description, ...rest } = schema;
    // oneOf: exactly one alternative matches (tsoa's nullable wrappers hold objects, arrays or enums, never null).
    return { ...(description ? { description } : {}), oneOf: [rest, { type: 'null' }] };
  }
  const out = { ...schema };
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null'];
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  return out;
}

function stripDialect(schema: Json): Json {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

function securitySchemes(): Json {
  const scopes = Object.fromEntries(SCOPE_CATALOG.filter((s) => s.oauthGrantable).map((s) => [s.scope, s.description]));
  return {
    bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'API key', description: 'An API key: `Authorization: Bearer <key>`.' },
    nodeSignature: {
      type: 'apiKey',
      in: 'header',
      name: 'authorization',
      description:
        'A request signed by a registered node key: `x-ocg-node: <node address>` and `authorization: <message>:<signature>:<unix ms>` over the method, path and body digest.',
    },
    serviceOAuth: {
      type: 'oauth2',
      description: 'An OAuth 2.0 access token (RFC 9068 JWT) from the configured issuer, carrying the scope.',
      flows: {
        authorizationCode: { authorizationUrl: '/oauth/authorize', tokenUrl: '/oauth/token', scopes },
        clientCredentials: { tokenUrl: '/oauth/token', scopes },
      },
    },
  };
}

export function sortKeys<T extends Record<string, unknown>>(obj: T): T {
  return Object.fromEntries(Object.entries(obj).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) as T;
}
