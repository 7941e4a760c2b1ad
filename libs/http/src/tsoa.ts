import { ValidateError } from '@tsoa/runtime';
import type { FieldError } from '@ocg/contracts';
import { validationFailed, type ValidationError } from './http-error';

/** Names tsoa gives the `@Body()` parameter in our controllers; stripped from paths. */
export const BODY_PARAM_NAMES = ['requestBody', 'body'];

const EXCESS = /^"(.+)" is an excess property and therefore is not allowed$/;

type TsoaFields = Record<string, { message: string; value?: unknown }>;

/** Duck-typed too, in case two copies of @tsoa/runtime end up installed. */
export function isTsoaValidateError(err: unknown): err is ValidateError {
  if (err instanceof ValidateError) return true;
  const e = err as { name?: unknown; fields?: unknown } | null;
  return typeof e === 'object' && e !== null && e.name === 'ValidateError' && typeof e.fields === 'object' && e.fields !== null;
}

function escapeSegment(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * tsoa field names to JSON pointers: `requestBody.scopes.$0` -> `/scopes/0`,
 * `body.name` (a `@BodyProp`) -> `/name`, the body itself -> `` (the root), and a path,
 * query or header parameter `id` -> `/id`.
 */
export function tsoaNameToPointer(name: string): string {
  const segments = name.split('.');
  if (BODY_PARAM_NAMES.includes(segments[0] ?? '')) segments.shift();
  return segments.map((s) => '/' + escapeSegment(/^\$\d+$/.test(s) ? s.slice(1) : s)).join('');
}

function toFieldErrors(name: string, message: string): FieldError[] {
  const pointer = tsoaNameToPointer(name);
  const excess = EXCESS.exec(message);
  if (excess) {
    // Nested objects report every extra member on the parent in one message; give each its own pointer.
    const props = (excess[1] ?? '').split(',');
    const last = name.split('.').pop();
    if (props.length === 1 && props[0] === last) return [{ path: pointer, message: 'is not an allowed member' }];
    return props.map((p) => ({ path: `${pointer}/${escapeSegment(p)}`, message: 'is not an allowed member' }));
  }
  if (pointer === '' && /^'.*' is required$/.test(message)) return [{ path: '', message: 'A request body is required' }];
  return [{ path: pointer, message }];
}

/** A tsoa ValidateError as our 400, with one field error per problem and the first one in the message. */
export function fromTsoaValidateError(err: ValidateError): ValidationError {
  const fields = (err.fields ?? {}) as TsoaFields;
  const errors = Object.entries(fields).flatMap(([name, f]) => toFieldErrors(name, String(f?.message ?? 'is invalid')));
  return validationFailed(errors);
}
