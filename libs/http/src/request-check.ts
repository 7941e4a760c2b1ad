import { LRUCache } from 'lru-cache';
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
  /** The parameter name of each path segment of the template, undefined for a fixed one. */
  segmentNames: (string | undefined)[];
  parameters: Parameter[];
  body?: JsonSchema;
}

/** A path's operation, and whether the path itself passed its check (it is the same check every time). */
interface Remembered {
  op: Operation | undefined;
  pathPassed: boolean;
}

/** Paths whose operation is remembered; routes with ids in the path churn through it, fixed ones stay. */
const REMEMBERED_PATHS = 1000;

/**
 * The operation a request matches, looked up once per method and path: the
 * route table is a scan of regular expressions and the operation is built
 * from the document, both the same for every request to that path.
 */
class OperationLookup {
  private readonly table: RouteTable;
  private readonly byTemplate = new Map<string, Operation | undefined>();
  /** Boxed: the cache holds no undefined, and a path with no operation is worth remembering too. */
  private readonly byPath = new LRUCache<string, Remembered>({ max: REMEMBERED_PATHS });

  constructor(
    private readonly document: JsonSchema,
    private readonly service?: string,
  ) {
    this.table = routeTableFrom(document as Parameters<typeof routeTableFrom>[0]);
  }

  find(req: Request): Remembered {
    const key = `${req.method} ${req.path}`;
    let remembered = this.byPath.get(key);
    if (!remembered) this.byPath.set(key, (remembered = { op: this.build(req), pathPassed: false }));
    return remembered;
  }

  private build(req: Request): Operation | undefined {
    const entry = this.table.match(req.method, req.path);
    if (!entry || (this.service && entry.service !== this.service)) return undefined;
    const method = entry.method === 'HEAD' ? 'get' : entry.method.toLowerCase();
    const key = `${method} ${entry.template}`;
    if (!this.byTemplate.has(key)) this.byTemplate.set(key, operationOf(this.document, entry.template, method));
    return this.byTemplate.get(key);
  }
}

function operationOf(document: JsonSchema, template: string, method: string): Operation | undefined {
  const paths = document.paths as Record<string, Record<string, JsonSchema>>;
  const op = paths[template]?.[method];
  if (!op) return undefined;
  const content = (op.requestBody as JsonSchema | undefined)?.content as Record<string, JsonSchema> | undefined;
  return {
    template,
    segmentNames: template.split('/').map((segment) => /^\{(.+)\}$/.exec(segment)?.[1]),
    parameters: (op.parameters as Parameter[] | undefined) ?? [],
    body: content?.['application/json']?.schema as JsonSchema | undefined,
  };
}

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined; // express answers 400 for a malformed escape when it decodes the parameter
  }
}

function checkPath(req: Request, op: Operation | undefined, sink: ErrorSink): void {
  req.path.split('/').forEach((segment, i) => {
    const text = decoded(segment);
    if (text === undefined) return;
    const name = op?.segmentNames[i];
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
  // No query string, no work (express still builds an empty object for req.query).
  if (!req.url.includes('?')) return;
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
  const operations = document ? new OperationLookup(document, opts.service) : undefined;
  const walker = new BoundsWalker(new SchemaResolver(document ?? {}));
  return (req, _res, next) => {
    const remembered = operations?.find(req);
    const op = remembered?.op;
    const sink = new ErrorSink();
    if (!remembered?.pathPassed) {
      checkPath(req, op, sink);
      if (remembered && sink.count === 0) remembered.pathPassed = true;
    }
    checkQuery(req, op, sink);
    if (req.body !== undefined) walker.walk(req.body, op?.body, '', sink);
    next(sink.count > 0 ? validationFailed(sink.errors, sink.count) : undefined);
  };
}
