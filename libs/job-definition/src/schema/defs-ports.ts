import { ABSOLUTE_PATH, PORT_TEXT, WHOLE_LITERAL } from './patterns';

/**
 * Schema parts for expose entries, health checks and resources. Every union is
 * a def holding only `oneOf` over `$ref`s, so the error translator can pick
 * one branch and re-validate with it (see ../errors.ts).
 */
const str = { type: 'string' } as const;
const strings = { type: 'array', maxItems: 1000, items: { type: 'string' } } as const;
const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;

export const portDefs = {
  port: { type: 'integer', minimum: 1, maximum: 65535, description: 'A TCP port of the container.' },
  portText: {
    type: 'string',
    pattern: PORT_TEXT,
    description: 'A port written as text: decimal digits, or a literal that the node resolves to one.',
  },
  literal: { type: 'string', pattern: WHOLE_LITERAL },
  spreadMarker: {
    type: 'object',
    description: 'Replaced at run time by the JSON (array or object) the literal resolves to.',
    required: ['__spread__'],
    additionalProperties: false,
    properties: {
      __spread__: { $ref: '#/$defs/literal' },
      chunked: { type: 'boolean', description: 'The literal has several values: join them, then parse once.' },
    },
  },
  expose: { oneOf: [{ $ref: '#/$defs/exposeList' }, { $ref: '#/$defs/exposeEntry' }] },
  exposeList: { type: 'array', maxItems: 1000, items: { $ref: '#/$defs/exposeEntry' } },
  exposeEntry: {
    oneOf: [{ $ref: '#/$defs/port' }, { $ref: '#/$defs/portText' }, { $ref: '#/$defs/spreadMarker' }, { $ref: '#/$defs/exposedPort' }],
  },
  exposedPort: {
    type: 'object',
    required: ['port'],
    additionalProperties: false,
    properties: {
      port: { $ref: '#/$defs/port' },
      type: { enum: ['api', 'web', 'websocket', 'webapi', 'none'] },
      health_checks: { type: 'array', maxItems: 100, items: { $ref: '#/$defs/healthCheck' } },
    },
  },
  healthCheck: { oneOf: [{ $ref: '#/$defs/httpHealthCheck' }, { $ref: '#/$defs/websocketHealthCheck' }] },
  httpHealthCheck: {
    type: 'object',
    required: ['type', 'path', 'method', 'expected_status', 'continuous'],
    additionalProperties: false,
    properties: {
      type: { const: 'http' },
      path: { type: 'string', pattern: ABSOLUTE_PATH },
      method: { enum: ['GET', 'POST', 'PUT', 'DELETE'] },
      expected_status: { type: 'integer', minimum: 100, maximum: 599 },
      continuous: {
        type: 'boolean',
        description: 'true: keep checking after startup and take the endpoint offline while it fails.',
      },
      headers: stringMap,
      body: { description: 'Request body: sent as is when a string, as JSON otherwise.' },
    },
  },
  websocketHealthCheck: {
    type: 'object',
    required: ['type', 'expected_response', 'continuous'],
    additionalProperties: false,
    properties: {
      type: { const: 'websocket' },
      expected_response: str,
      continuous: { type: 'boolean' },
    },
  },
} as const;

const target = { type: 'string', pattern: ABSOLUTE_PATH, description: 'Where the files appear in the container.' };
const iam = {
  type: 'object',
  required: ['REGION', 'ACCESS_KEY_ID', 'SECRET_ACCESS_KEY'],
  additionalProperties: false,
  properties: { REGION: str, ACCESS_KEY_ID: str, SECRET_ACCESS_KEY: str },
} as const;
const s3Common = { type: { const: 'S3' }, target, url: str, allowWrite: { type: 'boolean' }, IAM: iam };

export const resourceDefs = {
  resourceItem: {
    oneOf: [
      { $ref: '#/$defs/removeIfEmpty' },
      { $ref: '#/$defs/spreadMarker' },
      { $ref: '#/$defs/s3Location' },
      { $ref: '#/$defs/s3Bucket' },
      { $ref: '#/$defs/s3Buckets' },
      { $ref: '#/$defs/hfRepository' },
      { $ref: '#/$defs/ollamaModel' },
    ],
  },
  removeIfEmpty: {
    const: '__remove-if-empty__',
    description: 'Marker: drop the member when nothing is left in the array after literals resolve.',
  },
  s3Location: {
    type: 'object',
    description: 'Object store, one location.',
    required: ['type', 'target'],
    additionalProperties: false,
    properties: { ...s3Common, files: strings },
  },
  s3Bucket: {
    type: 'object',
    description: 'Object store, a whole bucket.',
    required: ['type', 'target', 'bucket'],
    additionalProperties: false,
    properties: { ...s3Common, bucket: str },
  },
  s3Buckets: {
    type: 'object',
    description: 'Object store, several buckets.',
    required: ['type', 'target', 'buckets'],
    additionalProperties: false,
    properties: {
      ...s3Common,
      buckets: {
        type: 'array',
        maxItems: 100,
        items: {
          type: 'object',
          required: ['url'],
          additionalProperties: false,
          properties: { url: str, files: strings },
        },
      },
    },
  },
  hfRepository: {
    type: 'object',
    description: 'Model hub repository.',
    required: ['type', 'target', 'repo'],
    additionalProperties: false,
    properties: {
      type: { const: 'HF' },
      target,
      repo: { type: 'string', minLength: 1 },
      revision: str,
      files: strings,
      accessToken: str,
    },
  },
  ollamaModel: {
    type: 'object',
    description: 'Model runner model.',
    required: ['type', 'model'],
    additionalProperties: false,
    properties: { type: { const: 'Ollama' }, model: { type: 'string', minLength: 1 }, target },
  },
} as const;
