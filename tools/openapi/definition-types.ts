/**
 * The job definition's TypeScript types, generated from its JSON Schema
 * (json-schema-to-typescript), so the schema is the one source: types.ts
 * gives the generated types their public names (ADR 0055).
 */
import { compile } from 'json-schema-to-typescript';

export const DEFINITION_TYPES_FILE = 'libs/job-definition/src/definition-types.generated.ts';

const BANNER = `/**
 * Generated from jobDefinitionJsonSchema by \`npm run contract\`; do not edit.
 * \`npm run contract:check\` fails when this file and the schema disagree.
 */`;

export async function definitionTypes(schema: object): Promise<string> {
  // A deep copy: the compiler annotates the schema it is given.
  return compile(structuredClone(schema) as Parameters<typeof compile>[0], 'JobDefinition', {
    bannerComment: BANNER,
    // Arrays with maxItems stay arrays (not tuples of every length).
    maxItems: -1,
    // Every $def becomes a named type, used or not.
    unreachableDefinitions: true,
    style: { singleQuote: true, printWidth: 160 },
  });
}
