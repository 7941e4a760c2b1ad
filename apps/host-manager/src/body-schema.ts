/**
 * Request bodies checked against the committed contract (libs/api-spec) with
 * ajv, before tsoa's own validation. tsoa 6.6 drops the parent path of errors
 * inside nested arrays (`/metrics/0/key` instead of
 * `/templates/0/operation/metrics/0/key`); ajv reports exact JSON pointers and
 * every error at once, which apply promises. Used as `@Middlewares(bodyMatches('X'))`.
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import type { RequestHandler } from 'express';
import type { FieldError } from '@ocg/contracts';
import { openApiDocument } from '@ocg/api-spec';
import { ValidationError } from '@ocg/http';

const CONTRACT = 'ocg-contract';
let ajv: Ajv2020 | undefined;

function contract(): Ajv2020 {
  if (ajv) return ajv;
  ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
  ajv.addSchema({ $id: CONTRACT, components: (openApiDocument as { components: unknown }).components });
  return ajv;
}

export function bodyMatches(schemaName: string): RequestHandler {
  let validate: ValidateFunction | undefined;
  return (req, _res, next) => {
    validate ??= contract().getSchema(`${CONTRACT}#/components/schemas/${schemaName}`);
    if (!validate) return next(new Error(`schema ${schemaName} is missing from the contract: run npm run contract`));
    if (validate(req.body)) return next();
    next(rejection(toFieldErrors(validate.errors ?? [])));
  };
}

export function toFieldErrors(errors: ErrorObject[]): FieldError[] {
  const seen = new Set<string>();
  return errors.map(toFieldError).filter((e) => {
    const key = `${e.path}\n${e.message}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

function toFieldError(e: ErrorObject): FieldError {
  const params = e.params as { missingProperty?: string; additionalProperty?: string };
  if (e.keyword === 'required') return { path: `${e.instancePath}/${escape(params.missingProperty ?? '')}`, message: 'is required' };
  if (e.keyword === 'additionalProperties') return { path: `${e.instancePath}/${escape(params.additionalProperty ?? '')}`, message: 'is not an allowed member' };
  return { path: e.instancePath, message: e.message ?? 'is invalid' };
}

function escape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function rejection(errors: FieldError[]): ValidationError {
  const [first] = errors;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return new ValidationError(`Validation failed: ${first.path || 'request body'}: ${first.message}${more}`, errors);
}
