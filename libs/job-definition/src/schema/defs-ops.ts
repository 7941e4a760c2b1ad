import { ABSOLUTE_PATH, DNS_LABEL, ENV_NAME, HOST_NAME, NAME, VOLUME_NAME } from './patterns';

/** Schema parts for ops: the two op kinds, their args, results and execution. */
const str = { type: 'string' } as const;
const opIds = { type: 'array', maxItems: 1000, uniqueItems: true, items: { type: 'string' } } as const;

/** Most ops in one definition or list. */
export const MAX_OPS = 1000;
/** Longest result regex accepted: bounds the time and memory RE2 spends compiling it. */
export const MAX_REGEX_LENGTH = 4096;
/** Longest group name: a node reports it with every op state (the report's limit). */
export const MAX_GROUP_LENGTH = 200;

export const opDefs = {
  op: { oneOf: [{ $ref: '#/$defs/runOp' }, { $ref: '#/$defs/createVolumeOp' }] },
  opList: { type: 'array', maxItems: MAX_OPS, items: { $ref: '#/$defs/op' } },
  opId: {
    type: 'string',
    pattern: DNS_LABEL,
    description: 'Unique in the job; also the host name other ops reach this op by.',
  },
  runOp: {
    type: 'object',
    required: ['type', 'id', 'args'],
    additionalProperties: false,
    properties: {
      type: { const: 'container/run' },
      id: { $ref: '#/$defs/opId' },
      args: { $ref: '#/$defs/runArgs' },
      results: { $ref: '#/$defs/results' },
      execution: { $ref: '#/$defs/execution' },
    },
  },
  createVolumeOp: {
    type: 'object',
    required: ['type', 'id', 'args'],
    additionalProperties: false,
    properties: {
      type: { const: 'container/create-volume' },
      id: { $ref: '#/$defs/opId' },
      args: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: { name: { type: 'string', pattern: VOLUME_NAME } },
      },
      results: { $ref: '#/$defs/results' },
      execution: { $ref: '#/$defs/execution' },
    },
  },
  runArgs: {
    type: 'object',
    required: ['image'],
    additionalProperties: false,
    properties: {
      image: { type: 'string', minLength: 1, description: 'A container image reference.' },
      aliases: { $ref: '#/$defs/aliases' },
      cmd: { $ref: '#/$defs/argv' },
      entrypoint: { $ref: '#/$defs/argv' },
      env: {
        type: 'object',
        propertyNames: { pattern: ENV_NAME },
        additionalProperties: { type: 'string' },
        description: 'Environment variables. A `__spread__` key merges the JSON object its literal resolves to.',
      },
      gpu: { type: 'boolean', description: 'Requests a GPU; the market must be a GPU market.' },
      work_dir: { type: 'string', pattern: ABSOLUTE_PATH },
      volumes: {
        type: 'array',
        maxItems: 100,
        items: {
          type: 'object',
          required: ['name', 'dest'],
          additionalProperties: false,
          properties: { name: { type: 'string', pattern: VOLUME_NAME }, dest: { type: 'string', pattern: ABSOLUTE_PATH } },
        },
      },
      private: { type: 'boolean' },
      expose: { $ref: '#/$defs/expose' },
      restart_policy: { $ref: '#/$defs/restartPolicy' },
      resources: { type: 'array', maxItems: 100, items: { $ref: '#/$defs/resourceItem' } },
      authentication: {
        type: 'object',
        additionalProperties: false,
        properties: {
          docker: {
            type: 'object',
            additionalProperties: false,
            properties: { username: str, password: str, email: str, server: str },
          },
        },
      },
      depends: { ...opIds, description: 'Deprecated alias of execution.depends_on.' },
    },
  },
  argv: { oneOf: [{ $ref: '#/$defs/argvText' }, { $ref: '#/$defs/argvList' }] },
  argvText: { type: 'string', description: 'Shell form: run as `/bin/sh -c <text>`.' },
  argvList: { type: 'array', maxItems: 4096, items: { type: 'string' } },
  aliases: { oneOf: [{ $ref: '#/$defs/hostName' }, { $ref: '#/$defs/hostNameList' }] },
  hostName: { type: 'string', pattern: HOST_NAME },
  hostNameList: { type: 'array', maxItems: 100, items: { $ref: '#/$defs/hostName' } },
  restartPolicy: { oneOf: [{ $ref: '#/$defs/restartPolicyName' }, { $ref: '#/$defs/restartPolicyObject' }] },
  restartPolicyName: { enum: ['no', 'on-failure', 'always', 'unless-stopped'] },
  restartPolicyObject: {
    type: 'object',
    required: ['policy'],
    additionalProperties: false,
    properties: {
      policy: { const: 'on-failure' },
      restart_tries: { type: 'integer', minimum: 1, description: 'Restarts after a failure before giving up.' },
    },
  },
  results: {
    type: 'object',
    propertyNames: { pattern: NAME },
    additionalProperties: { $ref: '#/$defs/result' },
    description: 'Values captured from the logs, by name; other ops read them as %%ops.<id>.results.<name>%%.',
  },
  result: { oneOf: [{ $ref: '#/$defs/resultRegex' }, { $ref: '#/$defs/resultSpec' }] },
  resultRegex: {
    type: 'string',
    minLength: 1,
    maxLength: MAX_REGEX_LENGTH,
    description: 'A JavaScript regular expression run over stdout and stderr.',
  },
  resultSpec: {
    type: 'object',
    required: ['regex', 'logType'],
    additionalProperties: false,
    properties: {
      regex: { $ref: '#/$defs/resultRegex' },
      logType: {
        type: 'array',
        minItems: 1,
        maxItems: 4,
        uniqueItems: true,
        items: { enum: ['stdin', 'stdout', 'stderr', 'nodeerr'] },
      },
    },
  },
  execution: {
    type: 'object',
    additionalProperties: false,
    properties: {
      group: { type: 'string', minLength: 1, maxLength: MAX_GROUP_LENGTH, description: 'Ops of one group form a stage.' },
      depends_on: { ...opIds, description: 'Ops that must be released before this op starts.' },
      timeout: { type: 'integer', minimum: 1, description: 'Seconds the op may run before it is stopped.' },
      stop_if_dependent_stops: {
        type: 'boolean',
        description: 'Stop this op when an op it depends on ends.',
      },
    },
  },
} as const;
