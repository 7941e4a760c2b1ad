import type { Request, RequestHandler, Response } from 'express';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Logger } from 'pino';
import type { FieldError } from '@ocg/contracts';
import { routeTableFrom, type RouteEntry } from '@ocg/api-spec';
import { errorBody, InternalError, validationFailed } from './http-error';
import { requestIdOf } from './request-id';

type Json = Record<string, unknown>;

export interface ContractValidationOptions {
  /** An OpenAPI 3.1 document whose operations carry `x-service` (libs/api-spec builds them so). */
  document: Json;
  /** For answers that break the document; default the request's logger (createApp's). */
  logger?: Logger;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  check: ValidateFunction;
  type?: unknown;
}

interface CompiledOperation {
  parameters: Parameter[];
  /** JSON bodies' validators by status ('default' included), resolved through components.responses. */
  responses: Map<string, ValidateFunction>;
}

const DOCUMENT_ID = 'contract';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
/** OpenAPI's number formats say how wide, not what is valid: JSON Schema's bounds do that. */
const WIDTH_FORMATS = ['int32', 'int64', 'float', 'double'];

/** A JSON pointer into the document as a URI fragment (`{` and `}` of path templates escaped). */
function pointer(tokens: string[]): string {
  return `${DOCUMENT_ID}#/${tokens.map((t) => encodeURIComponent(t.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`;
}

function compileDocument(document: Json): Map<string, CompiledOperation> {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateSchema: false });
  addFormats(ajv);
  for (const format of WIDTH_FORMATS) ajv.addFormat(format, { type: 'number', validate: () => true });
  ajv.addSchema(document, DOCUMENT_ID);
  const responsesById = (document.components as Json | undefined)?.responses as Record<string, Json> | undefined;
  const operations = new Map<string, CompiledOperation>();
  for (const [template, item] of Object.entries((document.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const parameters = ((op.parameters as Json[] | undefined) ?? []).map((p, i) => ({
        name: String(p.name),
        in: String(p.in),
        required: p.required === true,
        type: (p.schema as Json | undefined)?.type,
        check: ajv.compile({ $ref: pointer(['paths', template, method, 'parameters', String(i), 'schema']) }),
      }));
      const responses = new Map<string, ValidateFunction>();
      for (const [status, answer] of Object.entries((op.responses ?? {}) as Record<string, Json>)) {
        const ref = typeof answer.$ref === 'string' ? /^#\/components\/responses\/(.+)$/.exec(answer.$ref)?.[1] : undefined;
        const tokens = ref ? ['components', 'responses', ref] : ['paths', template, method, 'responses', status];
        const resolved = ref ? responsesById?.[ref] : answer;
        if (!(resolved?.content as Json | undefined)?.['application/json']) continue;
        responses.set(status, ajv.compile({ $ref: pointer([...tokens, 'content', 'application/json', 'schema']) }));
      }
      operations.set(`${method.toUpperCase()} ${template}`, { parameters, responses });
    }
  }
  return operations;
}

/** Query and path values arrive as text: a number or boolean parameter is read as one when it looks like one. */
function coerce(value: string, type: unknown): unknown {
  if ((type === 'integer' || type === 'number') && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function pathValues(entry: RouteEntry, path: string): Map<string, string> {
  const names = entry.template.split('/');
  const values = new Map<string, string>();
  path.split('/').forEach((segment, i) => {
    const name = /^\{(.+)\}$/.exec(names[i] ?? '')?.[1];
    if (name === undefined) return;
    try {
      values.set(name, decodeURIComponent(segment));
    } catch {
      values.set(name, segment); // express answers 400 for the malformed escape itself
    }
  });
  return values;
}

function fieldErrors(name: string, errors: ErrorObject[] | null | undefined): FieldError[] {
  return (errors ?? []).map((e) => ({ path: `/${name}${e.instancePath}`, message: e.message ?? 'is invalid' }));
}

function checkRequest(req: Request, entry: RouteEntry, op: CompiledOperation): FieldError[] {
  const fromPath = pathValues(entry, req.path);
  const errors: FieldError[] = [];
  for (const p of op.parameters) {
    const raw = p.in === 'path' ? fromPath.get(p.name) : p.in === 'query' ? (req.query as Record<string, unknown>)[p.name] : undefined;
    if (raw === undefined) {
      if (p.required) errors.push({ path: `/${p.name}`, message: 'is required' });
      continue;
    }
    if (Array.isArray(raw)) {
      errors.push({ path: `/${p.name}`, message: 'must be given once' });
      continue;
    }
    if (!p.check(coerce(String(raw), p.type))) errors.push(...fieldErrors(p.name, p.check.errors));
  }
  return errors;
}

/**
 * Holds an app to its OpenAPI document: a request's path and query
 * parameters are checked against the matched operation before any route
 * runs (400, `errors[].path` naming the parameter), and every JSON answer
 * against the schema the document gives its status. An answer that breaks
 * the document is never sent: it is logged with what broke, and the caller
 * gets a 500. Requests the document does not describe pass untouched (the
 * app's own 404 answers them).
 */
export function contractValidation(opts: ContractValidationOptions): RequestHandler {
  const operations = compileDocument(opts.document);
  const table = routeTableFrom(opts.document as Parameters<typeof routeTableFrom>[0]);
  return (req, res, next) => {
    const entry = table.match(req.method, req.path);
    const op = entry && operations.get(`${entry.method === 'HEAD' ? 'GET' : entry.method} ${entry.template}`);
    if (!entry || !op) return next();
    guardAnswers(req, res, entry, op, opts.logger);
    const errors = checkRequest(req, entry, op);
    next(errors.length > 0 ? validationFailed(errors) : undefined);
  };
}

function guardAnswers(req: Request, res: Response, entry: RouteEntry, op: CompiledOperation, logger?: Logger): void {
  const json = res.json.bind(res);
  res.json = (body?: unknown): Response => {
    const check = op.responses.get(String(res.statusCode)) ?? op.responses.get('default');
    if (!check || check(body)) return json(body);
    const log = (req.log as Logger | undefined) ?? logger;
    log?.error(
      { operation: `${entry.method} ${entry.template}`, status: res.statusCode, errors: fieldErrors('body', check.errors).slice(0, 20) },
      'answer breaks the API document; sent 500 instead',
    );
    res.status(500);
    return json(errorBody(new InternalError(), requestIdOf(req)));
  };
}
