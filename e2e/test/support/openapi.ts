/** Reading the committed description: operations, their schemas, and refs resolved. */
import { openApiDocument } from '@ocg/api-spec';

export type Json = Record<string, any>;
export const doc = openApiDocument as unknown as Json;

export interface Operation {
  method: string;
  template: string;
  op: Json;
  /** The JSON request body's schema, if the operation takes one. */
  body?: Json;
  /** Security scheme names that satisfy it (empty: public). */
  security: string[];
}

export function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      const security = ((op.security as Json[] | undefined) ?? []).flatMap((s) => Object.keys(s));
      out.push({ method: method.toUpperCase(), template, op, body: op.requestBody?.content?.['application/json']?.schema, security });
    }
  }
  return out;
}

export function resolve(schema: Json | undefined): Json | undefined {
  let s = schema;
  for (let i = 0; s?.$ref && i < 16; i++)
    s = (s.$ref as string)
      .slice(2)
      .split('/')
      .reduce((node: Json, key) => node?.[key], doc);
  return s;
}

/** A member name, or an index into an array. */
export type Step = string | number;

/** Every array reachable in a schema through members, items and unions, as the steps that lead to it. */
export function arrayPaths(schema: Json | undefined, at: Step[] = [], seen = new Set<Json>()): Step[][] {
  const s = resolve(schema);
  if (!s || seen.has(s)) return [];
  seen.add(s);
  const out: Step[][] = [];
  const types = Array.isArray(s.type) ? s.type : [s.type];
  if (types.includes('array')) out.push(at);
  for (const part of [...(s.allOf ?? []), ...(s.anyOf ?? []), ...(s.oneOf ?? [])]) out.push(...arrayPaths(part, at, seen));
  for (const [name, child] of Object.entries((s.properties ?? {}) as Json)) out.push(...arrayPaths(child, [...at, name], seen));
  if (s.additionalProperties && typeof s.additionalProperties === 'object') out.push(...arrayPaths(s.additionalProperties, [...at, 'x'], seen));
  if (s.items && typeof s.items === 'object') out.push(...arrayPaths(s.items, [...at, 0], seen));
  return out;
}

/** encodeURIComponent, except that a lone surrogate is sent as its (invalid) three UTF-8-style bytes instead of throwing. */
export function encodeSegment(text: string): string {
  return text.replace(/[\ud800-\udbff][\udc00-\udfff]|[\s\S]/g, (ch) => {
    const c = ch.charCodeAt(0);
    if (ch.length === 1 && c >= 0xd800 && c <= 0xdfff)
      return [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    return encodeURIComponent(ch);
  });
}

/** The path with its parameters filled in. */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeSegment(values[name] ?? 'x'));
}
