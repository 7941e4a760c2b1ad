import type { Request, RequestHandler } from 'express';
import { routeTableFrom, type RouteTable } from '@ocg/api-spec';
import { BoundsWalker, checkString, ErrorSink, SchemaResolver, unstorableText, type JsonSchema } from './bounds';
import { validationFailed } from './http-error';

export interface RequestCheckOptions {
  /** The OpenAPI document whose schemas give the limits; without it only depth and characters are checked. */
  document?: JsonSchema;
  /** Only this service's operations (`x-service`) are matched. */
  service?: string;
}

interface Parameter {
  name: string;
  in: string;
  schema?: JsonSchema;
}

interface Operation {
  template: string;
  parameters: Parameter[];
  body?: JsonSchema;
}

function operationOf(document: JsonSchema, table: RouteTable, req: Request, service?: string): Operation | undefined {
  const entry = table.match(req.method, req.path);
  if (!entry || (service && entry.service !== service)) return undefined;
  const paths = document.paths as Record<string, Record<string, JsonSchema>>;
  const op = paths[entry.template]?.[entry.method === 'HEAD' ? 'get' : entry.method.toLowerCase()];
  if (!op) return undefined;
  const content = (op.requestBody as JsonSchema | undefined)?.content as Record<string, JsonSchema> | undefined;
  return { template: entry.template, parameters: (op.parameters as Parameter[] | undefined) ?? [], body: content?.['application/json']?.schema as JsonSchema | undefined };
}

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined; // express answers 400 for a malformed escape when it decodes the parameter
  }
}

function checkPath(req: Request, op: Operation | undefined, sink: ErrorSink): void {
  const names = op?.template.split('/') ?? [];
  req.path.split('/').forEach((segment, i) => {
    const text = decoded(segment);
    if (text === undefined) return;
    const name = /^\{(.+)\}$/.exec(names[i] ?? '')?.[1];
    if (name === undefined) {
      const bad = unstorableText(text);
      if (bad) sink.add('', `the path ${bad}`);
      return;
    }
    const schema = op?.parameters.find((p) => p.in === 'path' && p.name === name)?.schema;
    checkString(text, schema, `/${name}`, sink);
  });
}

function checkQuery(req: Request, op: Operation | undefined, sink: ErrorSink): void {
  for (const [name, raw] of Object.entries(req.query as Record<string, unknown>)) {
    const bad = unstorableText(name);
    if (bad) sink.add('', `a query parameter name ${bad}`);
    const schema = op?.parameters.find((p) => p.in === 'query' && p.name === name)?.schema;
    for (const value of Array.isArray(raw) ? raw : [raw]) if (typeof value === 'string') checkString(value, schema, `/${name}`, sink);
  }
}

/**
 * One pass over path, query and body before any route runs: the sizes the
 * description declares, JSON depth, and characters Postgres cannot store
 * (see bounds.ts). It needs no credential, so an oversized request is refused
 * before any work is spent on it.
 */
export function requestCheck(opts: RequestCheckOptions = {}): RequestHandler {
  const document = opts.document;
  const table = document ? routeTableFrom(document as Parameters<typeof routeTableFrom>[0]) : undefined;
  const walker = new BoundsWalker(new SchemaResolver(document ?? {}));
  return (req, _res, next) => {
    const op = document && table ? operationOf(document, table, req, opts.service) : undefined;
    const sink = new ErrorSink();
    checkPath(req, op, sink);
    checkQuery(req, op, sink);
    if (req.body !== undefined) walker.walk(req.body, op?.body, '', sink);
    next(sink.count > 0 ? validationFailed(sink.errors, sink.count) : undefined);
  };
}
