import { opDefs } from './defs-ops';
import { portDefs, resourceDefs } from './defs-ports';
import { NAME } from './patterns';

export const JOB_DEFINITION_SCHEMA_ID = 'https://schemas.ocg.dev/job-definition/0.1.json';

const logisticsLeg = {
  type: 'object',
  required: ['type', 'args'],
  additionalProperties: false,
  properties: {
    type: { enum: ['api', 'api-listen'] },
    args: { type: 'object', additionalProperties: false, properties: { endpoint: { type: 'string' } } },
  },
} as const;

/**
 * JSON Schema (draft 2020-12) of a job definition, version 0.1. The shape only:
 * cross-op rules (ids, dependencies, stages, volumes, literals, regexes) are
 * checked by `validate`, which also turns ajv's output into usable messages.
 */
export const jobDefinitionJsonSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: JOB_DEFINITION_SCHEMA_ID,
  title: 'Job definition',
  description: 'A container job: one or more ops run on one node, in stages.',
  type: 'object',
  required: ['version', 'type', 'ops'],
  additionalProperties: false,
  properties: {
    version: { const: '0.1' },
    type: { const: 'container' },
    meta: {
      type: 'object',
      description: 'Free-form; the members listed here are typed.',
      properties: {
        trigger: { type: 'string', description: 'Where the job came from, e.g. cli or dashboard.' },
        system_requirements: {
          type: 'object',
          properties: { required_vram: { type: 'number', minimum: 0 } },
        },
      },
    },
    global: {
      type: 'object',
      additionalProperties: false,
      properties: {
        variables: {
          type: 'object',
          propertyNames: { pattern: NAME },
          additionalProperties: { type: 'string' },
          description: 'Values substituted for %%global.variables.<name>%% when the job is posted.',
        },
      },
    },
    logistics: {
      type: 'object',
      description: 'Confidential jobs: where the node fetches the real ops and sends results.',
      additionalProperties: false,
      properties: { send: logisticsLeg, receive: logisticsLeg },
    },
    deployment_id: { type: 'string' },
    ops: { $ref: '#/$defs/opList' },
  },
  $defs: { ...opDefs, ...portDefs, ...resourceDefs },
} as const;
