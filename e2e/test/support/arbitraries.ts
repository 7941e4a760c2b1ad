/**
 * fast-check arbitraries derived from the description's schemas: values a
 * schema admits, mixed at every depth with hostile ones (NUL bytes, lone
 * surrogates, huge numbers, wrong types, long strings, large arrays, deep
 * nesting). A new operation or member is fuzzed without new test code.
 */
import fc from 'fast-check';
import { resolve, type Json } from './openapi';

const MAX_DEPTH = 5;

/** Values known to exist, by member or parameter name (a market, a node), so requests also reach past the lookups. */
const knownValues: Record<string, string[]> = {};
export function setKnownValues(values: Record<string, string[]>): void {
  Object.assign(knownValues, values);
}

/** Large values print as a short label in fast-check's reports (printing them whole would overflow). */
function labelled<T extends object>(value: T, label: string): T {
  Object.defineProperty(value, fc.toStringMethod, { value: () => label, enumerable: false });
  return value;
}

const deep = (n: number): object => labelled(JSON.parse('['.repeat(n) + ']'.repeat(n)) as object, `<array nested ${n} deep>`);

/** Strings that break naive handling: Postgres, UTF-8 encoders, parsers, coercion. */
export const hostileString = fc.constantFrom(
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '',
  ' ',
  '12',
  '1e308',
  'Infinity',
  'NaN',
  '-1',
  'true',
  'null',
  '../../etc/passwd',
  '%00',
  '<script>',
  '😀',
  'x'.repeat(5_000),
  'é'.repeat(70_000),
);

/** Any hostile value, including other types, sizes and depths. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(1e308, -1e308, 2 ** 53 + 2, 2 ** 31, 2 ** 63, -1, 0, 0.5, -0.000001, true, false, null),
  fc.constantFrom([], {}, ['\u0000'], { unknownMember: 1 }, { __proto__: 1, constructor: 'x' }),
  fc.constant(null).map(() => labelled(new Array(20_000).fill(0), '<20,000 zeros>')),
  fc.constant(null).map(() => labelled(new Array(2_000).fill('\ud800'), '<2,000 lone surrogates>')),
  fc.constant(null).map(() => deep(10_000)),
  fc.constant(null).map(() => ({ a: deep(200) })),
);

function typesOf(s: Json): string[] {
  if (Array.isArray(s.type)) return s.type;
  if (typeof s.type === 'string') return [s.type];
  if (s.properties || s.additionalProperties) return ['object'];
  if (s.items) return ['array'];
  return [];
}

function stringFor(s: Json): fc.Arbitrary<string> {
  const max = Math.min(typeof s.maxLength === 'number' ? s.maxLength : 24, 64);
  const min = Math.min(typeof s.minLength === 'number' ? s.minLength : 0, max);
  if (typeof s.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(s.pattern)).filter((v) => v.length >= min && v.length <= (s.maxLength ?? Infinity));
    } catch {
      // A pattern fast-check cannot generate from: plain strings still exercise the route.
    }
  }
  if (s.format === 'date-time') return fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString());
  return fc.string({ minLength: min, maxLength: max, unit: 'grapheme' });
}

function numberFor(s: Json, integer: boolean): fc.Arbitrary<number> {
  const wide = s.format === 'int64' || !integer;
  const lo = typeof s.minimum === 'number' ? s.minimum : wide ? -Number.MAX_SAFE_INTEGER : -(2 ** 31);
  const hi = typeof s.maximum === 'number' ? s.maximum : wide ? Number.MAX_SAFE_INTEGER : 2 ** 31 - 1;
  if (integer) return fc.oneof(fc.integer({ min: Math.max(lo, -Number.MAX_SAFE_INTEGER), max: Math.min(hi, Number.MAX_SAFE_INTEGER) }), fc.constantFrom(lo, hi));
  return fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true });
}

function objectFor(s: Json, depth: number): fc.Arbitrary<unknown> {
  const props = Object.entries((s.properties ?? {}) as Json).map(([k, v]) => {
    const known = knownValues[k];
    return [k, known ? fc.oneof(fc.constantFrom(...known), fuzzValue(v, depth + 1)) : fuzzValue(v, depth + 1)] as const;
  });
  const required = new Set<string>((s.required as string[] | undefined) ?? []);
  const known = fc.record(Object.fromEntries(props), { requiredKeys: props.map(([k]) => k).filter((k) => required.has(k)) });
  const extra =
    s.additionalProperties && typeof s.additionalProperties === 'object'
      ? fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fuzzValue(s.additionalProperties, depth + 1), { maxKeys: 3 })
      : fc.constant({});
  return fc.tuple(known, extra).map(([a, b]) => ({ ...b, ...(a as object) }));
}

/** Values the schema admits (mostly); see {@link fuzzValue} for the hostile mix. */
export function validValue(schema: Json | undefined, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  if (!s || depth > MAX_DEPTH) return fc.constantFrom(null, 1, 'x', {});
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const union = (s.oneOf ?? s.anyOf) as Json[] | undefined;
  if (union) return fc.oneof(...union.map((alt) => validValue(alt, depth + 1)));
  if (Array.isArray(s.allOf)) return validValue({ ...s, allOf: undefined, ...resolve(s.allOf[0]) }, depth + 1);
  const types = typesOf(s);
  const options = types.map((type): fc.Arbitrary<unknown> => {
    if (type === 'string') return stringFor(s);
    if (type === 'integer') return numberFor(s, true);
    if (type === 'number') return numberFor(s, false);
    if (type === 'boolean') return fc.boolean();
    if (type === 'null') return fc.constant(null);
    if (type === 'array') {
      const max = Math.min(typeof s.maxItems === 'number' ? s.maxItems : 3, 3);
      const min = Math.min(typeof s.minItems === 'number' ? s.minItems : 0, max);
      const item = fuzzValue(s.items, depth + 1);
      return s.uniqueItems ? fc.uniqueArray(item, { minLength: min, maxLength: max, selector: (v) => JSON.stringify(v) }) : fc.array(item, { minLength: min, maxLength: max });
    }
    return objectFor(s, depth);
  });
  return options.length > 0 ? fc.oneof(...options) : fc.constantFrom(null, 1, 'x', {}, []);
}

/** A value for the schema, hostile at any depth one time in six. */
export function fuzzValue(schema: Json | undefined, depth = 0): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: validValue(schema, depth), weight: 5 }, { arbitrary: hostileValue, weight: 1 });
}

/** A path or query parameter's text: valid for its schema, hostile, or a value known to exist. */
export function parameterText(schema: Json | undefined, known: string[], inPath = false): fc.Arbitrary<string> {
  // An empty, `.` or `..` path segment is another URL, not this operation.
  if (inPath) return parameterText(schema, known).filter((v) => v !== '' && v !== '.' && v !== '..');
  const valid = validValue(schema).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  const hostile = fc.oneof(
    hostileString.filter((v) => v.length < 4000),
    fc.constantFrom('1e308', '-1', '12.5', 'abc', '9007199254740993', '99999999999999999999'),
  );
  return known.length > 0 ? fc.oneof(valid, hostile, fc.constantFrom(...known)) : fc.oneof(valid, hostile);
}
