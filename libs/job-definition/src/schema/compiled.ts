import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { JOB_DEFINITION_SCHEMA_ID, jobDefinitionJsonSchema } from './index';
import { UNION_SELECTORS } from './unions';

/**
 * The compiled schema, built once on first use. allErrors: a user fixes
 * everything in one round; verbose: the translator needs the failing value and
 * the schema object of each error. validateSchema off: checking our own constant
 * schema against the draft 2020-12 meta-schema took 5/6 of the compile time at
 * every process start; schema.spec.ts checks it once with a standard validator.
 */
interface Compiled {
  ajv: Ajv2020;
  definition: ValidateFunction;
  unionsBySchema: Map<object, string>;
}

let compiled: Compiled | undefined;

function compile(): Compiled {
  const ajv = new Ajv2020({
    allErrors: true,
    verbose: true,
    // Stryker disable next-line BooleanLiteral: the schema is strict-clean (schema.spec.ts compiles it strictly), so this changes no verdict
    strict: true,
    // Stryker disable next-line BooleanLiteral: checking the schema against the meta-schema only costs time; schema.spec.ts does it
    validateSchema: false,
  });
  const definition = ajv.compile(jobDefinitionJsonSchema);
  const defs: Record<string, object> = jobDefinitionJsonSchema.$defs;
  const unionsBySchema = new Map<object, string>();
  for (const name of Object.keys(UNION_SELECTORS)) unionsBySchema.set(defs[name], name);
  return { ajv, definition, unionsBySchema };
}

function get(): Compiled {
  compiled ??= compile();
  return compiled;
}

export function definitionValidator(): ValidateFunction {
  return get().definition;
}

/** A validator for one `$defs` entry, e.g. `opList` or a union branch. */
export function defValidator(name: string): ValidateFunction {
  const validator = get().ajv.getSchema(`${JOB_DEFINITION_SCHEMA_ID}#/$defs/${name}`);
  if (!validator) throw new Error(`no schema def "${name}"`);
  return validator;
}

/** The union name when `schema` is one of the union defs. */
export function unionOf(schema: unknown): string | undefined {
  return get().unionsBySchema.get(schema as object);
}
