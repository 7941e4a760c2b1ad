import { openApiDocument } from '../src';

type Json = Record<string, any>;
const doc = openApiDocument as Json;

function resolve(schema: Json | undefined): Json | undefined {
  let s = schema;
  for (let i = 0; s?.$ref && i < 16; i++) s = doc.components.schemas[(s.$ref as string).split('/').pop()!];
  return s;
}

/** Arrays without `maxItems` reachable from a schema, by their path. */
function unboundedArrays(schema: Json | undefined, at: string, seen: Set<Json>): string[] {
  const s = resolve(schema);
  if (!s || seen.has(s)) return [];
  seen.add(s);
  const types = Array.isArray(s.type) ? s.type : [s.type];
  const out = types.includes('array') && typeof s.maxItems !== 'number' ? [at] : [];
  for (const part of [...(s.allOf ?? []), ...(s.anyOf ?? []), ...(s.oneOf ?? [])]) out.push(...unboundedArrays(part, at, seen));
  for (const [name, child] of Object.entries((s.properties ?? {}) as Json)) out.push(...unboundedArrays(child, `${at}/${name}`, seen));
  if (s.additionalProperties && typeof s.additionalProperties === 'object') out.push(...unboundedArrays(s.additionalProperties, `${at}/*`, seen));
  if (s.items) out.push(...unboundedArrays(s.items, `${at}/0`, seen));
  return out;
}

describe('request limits in the description', () => {
  it('gives every array in every request body a maxItems, so its length is checked before its items', () => {
    const unbounded: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Json)) {
      for (const [method, op] of Object.entries(item as Json)) {
        const schema = op.requestBody?.content?.['application/json']?.schema;
        unbounded.push(...unboundedArrays(schema, `${method.toUpperCase()} ${path} `, new Set()));
      }
    }
    expect(unbounded).toEqual([]);
  });

  it('documents error responses as JSON only, in the one error shape with at most 20 field errors', () => {
    for (const [name, response] of Object.entries(doc.components.responses as Json)) {
      expect([name, Object.keys(response.content)]).toEqual([name, ['application/json']]);
    }
    expect(doc.components.schemas.ErrorBody.properties.errors.maxItems).toBe(20);
  });
});
