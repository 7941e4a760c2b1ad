import { jobDefinitionJsonSchema } from './index';

type Json = unknown;

/**
 * The schema split into OpenAPI 3.1 components: `<prefix>` for the root and
 * `<prefix><Def>` per `$defs` entry, refs rewritten to `#/components/schemas/…`.
 * Embedding the schema whole keeps `#/$defs/…` refs that resolve against its
 * `$id`, which OpenAPI tooling (openapi-typescript) does not follow.
 */
export function jobDefinitionOpenApiSchemas(prefix = 'JobDefinition'): Record<string, Json> {
  const {
    $defs,
    $schema: _schema,
    $id: _id,
    ...root
  } = structuredClone(jobDefinitionJsonSchema) as Record<string, Json> & {
    $defs: Record<string, Json>;
  };
  const name = (def: string) => `${prefix}${def[0].toUpperCase()}${def.slice(1)}`;
  const rewrite = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (typeof value !== 'object' || value === null) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, member]) =>
        key === '$ref' && typeof member === 'string' ? [key, `#/components/schemas/${name(member.replace('#/$defs/', ''))}`] : [key, rewrite(member)],
      ),
    );
  };
  const schemas: Record<string, Json> = { [prefix]: rewrite(root) };
  for (const [def, schema] of Object.entries($defs)) schemas[name(def)] = rewrite(schema);
  return schemas;
}
