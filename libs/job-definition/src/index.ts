export * from './types';
export type * from './normalized-types';
export { validate, validateOps, type ValidateOpsOptions } from './validate';
export { normalize } from './normalize';
export { resolveLiterals, resolveOpLiterals, unresolvedLiterals, LiteralResolutionError, type LiteralContext } from './resolve';
export { planStages, type StagePlan, type PlannedStage, type PlannedOp, type OpRelease } from './plan';
export { GLOBAL_NAMES, type GlobalName } from './literals';
export { jobDefinitionJsonSchema, JOB_DEFINITION_SCHEMA_ID } from './schema/index';
export { jobDefinitionOpenApiSchemas } from './schema/openapi';
