/**
 * The cheap structural pass every request goes through before validation: the
 * limits a schema declares on sizes (maxItems, maxLength, maxProperties), a
 * nesting depth, and the characters Postgres cannot store (U+0000 and unpaired
 * surrogates). It runs in time linear in the input and looks at an array's
 * length before any of its items, so an oversized array costs one comparison
 * however invalid its items are. Full validation (tsoa) runs afterwards on
 * input whose sizes are already within the description.
 */
import type { FieldError } from '@ocg/contracts';
import { MAX_FIELD_ERRORS } from './http-error';

export type JsonSchema = Record<string, unknown>;

/** Deeper JSON than this is refused: no schema of ours nests half as deep. */
export const MAX_JSON_DEPTH = 64;

/** Collects at most {@link MAX_FIELD_ERRORS} errors and counts every one. */
export class ErrorSink {
  readonly errors: FieldError[] = [];
  count = 0;
  add(path: string, message: string): void {
    this.count++;
    if (this.errors.length < MAX_FIELD_ERRORS) this.errors.push({ path, message });
  }
}

function escapeSegment(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // A high surrogate followed by a low one is one character, as JSON Schema counts.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Characters no text column (or jsonb) can hold; refused in every string and member name. */
export function unstorableText(s: string): string | undefined {
  if (s.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (LONE_SURROGATE.test(s)) return 'must not contain an unpaired surrogate (invalid Unicode)';
  return undefined;
}

export function checkString(value: string, schema: JsonSchema | undefined, path: string, sink: ErrorSink): void {
  const max = schema?.maxLength;
  // Two UTF-16 units at most per character: most strings are decided without counting.
  if (typeof max === 'number' && value.length > max && (value.length > 2 * max || codePoints(value) > max)) {
    sink.add(path, `must be at most ${max} characters long`);
  }
  const bad = unstorableText(value);
  if (bad) sink.add(path, bad);
}

/** Follows local `$ref`s into `components.schemas` (or any local pointer). */
export class SchemaResolver {
  /** What each `$ref` names: the document does not change, so a pointer is followed once. */
  private readonly targets = new Map<string, unknown>();

  constructor(private readonly document: JsonSchema) {}

  resolve(schema: unknown): JsonSchema | undefined {
    let current = schema;
    for (let hops = 0; hops < 16; hops++) {
      if (!current || typeof current !== 'object') return undefined;
      const ref = (current as JsonSchema).$ref;
      if (typeof ref !== 'string') return current as JsonSchema;
      let target = this.targets.get(ref);
      if (target === undefined && !this.targets.has(ref)) this.targets.set(ref, (target = this.pointer(ref)));
      current = target;
    }
    return undefined;
  }

  private pointer(ref: string): unknown {
    if (!ref.startsWith('#/')) return undefined;
    let node: unknown = this.document;
    for (const raw of ref.slice(2).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      node = node && typeof node === 'object' ? (node as JsonSchema)[key] : undefined;
    }
    return node;
  }
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function admits(schema: JsonSchema | undefined, type: string): boolean {
  const declared = schema?.type;
  if (declared === undefined) return true;
  const types = Array.isArray(declared) ? declared : [declared];
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

/** Keywords a schema can hold beside `allOf` that this pass checks itself. */
const OWN_RULES = ['maxLength', 'maxItems', 'maxProperties', 'properties', 'additionalProperties', 'items', 'prefixItems'];

/** Walks a JSON value beside its schema; see the file comment. */
export class BoundsWalker {
  constructor(private readonly schemas: SchemaResolver) {}

  walk(value: unknown, schema: unknown, path: string, sink: ErrorSink, depth = 0): void {
    if (depth > MAX_JSON_DEPTH) return sink.add(path, `nests deeper than ${MAX_JSON_DEPTH} levels`);
    const s = this.schemas.resolve(schema);
    const union = (s?.oneOf ?? s?.anyOf) as unknown[] | undefined;
    if (Array.isArray(union)) return this.walkUnion(value, union, path, sink, depth);
    if (Array.isArray(s?.allOf)) {
      for (const part of s.allOf as unknown[]) this.walk(value, part, path, sink, depth);
      // A wrapper such as tsoa's `{allOf: [{$ref}], description}` adds nothing to check (and would repeat the parts' errors).
      if (!OWN_RULES.some((k) => k in s)) return;
    }
    if (typeof value === 'string') return checkString(value, s, path, sink);
    if (Array.isArray(value)) return this.walkArray(value, s, path, sink, depth);
    if (value !== null && typeof value === 'object') return this.walkObject(value as Record<string, unknown>, s, path, sink, depth);
  }

  /** The alternatives of the value's type are tried in order; the first clean one wins. */
  private walkUnion(value: unknown, union: unknown[], path: string, sink: ErrorSink, depth: number): void {
    const type = jsonType(value);
    const candidates = union.filter((alt) => admits(this.schemas.resolve(alt), type));
    if (candidates.length <= 1) return this.walk(value, candidates[0], path, sink, depth + 1);
    let first: ErrorSink | undefined;
    for (const alt of candidates) {
      const trial = new ErrorSink();
      this.walk(value, alt, path, trial, depth + 1);
      if (trial.count === 0) return;
      first ??= trial;
    }
    for (const e of first?.errors ?? []) sink.add(e.path, e.message);
    sink.count += (first?.count ?? 0) - (first?.errors.length ?? 0);
  }

  private walkArray(value: unknown[], s: JsonSchema | undefined, path: string, sink: ErrorSink, depth: number): void {
    const max = s?.maxItems;
    // Checked before any item: the point of this pass.
    if (typeof max === 'number' && value.length > max) return sink.add(path, `must have at most ${max} items (has ${value.length})`);
    const prefix = Array.isArray(s?.prefixItems) ? (s.prefixItems as unknown[]) : [];
    for (let i = 0; i < value.length; i++) this.walk(value[i], prefix[i] ?? s?.items, `${path}/${i}`, sink, depth + 1);
  }

  private walkObject(value: Record<string, unknown>, s: JsonSchema | undefined, path: string, sink: ErrorSink, depth: number): void {
    const keys = Object.keys(value);
    const max = s?.maxProperties;
    if (typeof max === 'number' && keys.length > max) return sink.add(path, `must have at most ${max} members (has ${keys.length})`);
    const properties = (s?.properties ?? {}) as Record<string, unknown>;
    const additional = s?.additionalProperties;
    for (const key of keys) {
      const at = `${path}/${escapeSegment(key.length > 200 ? `${key.slice(0, 200)}…` : key)}`;
      const bad = unstorableText(key);
      if (bad) sink.add(at, `member name ${bad}`);
      checkKeyLength(key, s, at, sink);
      const child = Object.prototype.hasOwnProperty.call(properties, key) ? properties[key] : typeof additional === 'object' ? additional : undefined;
      this.walk(value[key], child, at, sink, depth + 1);
    }
  }
}

function checkKeyLength(key: string, s: JsonSchema | undefined, at: string, sink: ErrorSink): void {
  const names = s?.propertyNames as JsonSchema | undefined;
  if (names && typeof names.maxLength === 'number' && key.length > names.maxLength) sink.add(at, `member name must be at most ${names.maxLength} characters long`);
}
