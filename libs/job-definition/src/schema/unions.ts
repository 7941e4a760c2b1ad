import { hasOwn, isObject } from '../pointer';

/**
 * For every `oneOf` in the schema: which branch a value was meant to be. ajv
 * reports the errors of every branch of a failed oneOf, which buries the one
 * that matters; we pick the branch from the value's shape instead and report
 * only that branch's errors (or one issue when no branch fits at all).
 */
export type UnionChoice = { branch: string } | { issue: { at: string; message: string } };
type Selector = (value: unknown) => UnionChoice;

const branch = (name: string): UnionChoice => ({ branch: name });
const issue = (message: string, at = ''): UnionChoice => ({ issue: { at, message } });

function selectOp(value: unknown): UnionChoice {
  if (!isObject(value)) return issue('must be an object with type, id and args');
  if (value['type'] === 'container/run') return branch('runOp');
  if (value['type'] === 'container/create-volume') return branch('createVolumeOp');
  if (value['type'] !== undefined) return issue('must be "container/run" or "container/create-volume"', '/type');
  // No type: guess from the args so the other messages are about the right kind.
  const args = value['args'];
  const looksLikeVolume = isObject(args) && 'name' in args && !('image' in args);
  return branch(looksLikeVolume ? 'createVolumeOp' : 'runOp');
}

function selectExposeEntry(value: unknown): UnionChoice {
  if (typeof value === 'number') return branch('port');
  if (typeof value === 'string') return branch('portText');
  if (isObject(value)) return branch('__spread__' in value ? 'spreadMarker' : 'exposedPort');
  return issue('must be a port number, a port as text, or an object with "port" or "__spread__"');
}

function selectHealthCheck(value: unknown): UnionChoice {
  if (!isObject(value)) return issue('must be an object (an http or websocket health check)');
  if (value['type'] === 'http') return branch('httpHealthCheck');
  if (value['type'] === 'websocket') return branch('websocketHealthCheck');
  if (value['type'] === undefined) return issue('missing required member "type" ("http" or "websocket")');
  return issue('must be "http" or "websocket"', '/type');
}

const RESOURCE_KINDS: Record<string, (value: Record<string, unknown>) => string> = {
  S3: (value) => ('buckets' in value ? 's3Buckets' : 'bucket' in value ? 's3Bucket' : 's3Location'),
  HF: () => 'hfRepository',
  Ollama: () => 'ollamaModel',
};

function selectResource(value: unknown): UnionChoice {
  if (typeof value === 'string') return branch('removeIfEmpty');
  if (!isObject(value)) return issue('must be a resource object, a {"__spread__"} marker or "__remove-if-empty__"');
  if ('__spread__' in value) return branch('spreadMarker');
  const kind = value['type'];
  if (kind === undefined) return issue('missing required member "type" ("S3", "HF" or "Ollama")');
  // own keys only: a type such as "constructor" is not a kind
  const pick = typeof kind === 'string' && hasOwn(RESOURCE_KINDS, kind) ? RESOURCE_KINDS[kind] : undefined;
  return pick ? branch(pick(value)) : issue('must be "S3", "HF" or "Ollama"', '/type');
}

function byType(text: string, list: string, message: string): Selector {
  return (value) => (typeof value === 'string' ? branch(text) : Array.isArray(value) ? branch(list) : issue(message));
}

export const UNION_SELECTORS: Readonly<Record<string, Selector>> = {
  op: selectOp,
  expose: (value) => (Array.isArray(value) ? branch('exposeList') : branch('exposeEntry')),
  exposeEntry: selectExposeEntry,
  healthCheck: selectHealthCheck,
  resourceItem: selectResource,
  argv: byType('argvText', 'argvList', 'must be a string or an array of strings'),
  aliases: byType('hostName', 'hostNameList', 'must be a host name or an array of host names'),
  restartPolicy: (value) =>
    typeof value === 'string'
      ? branch('restartPolicyName')
      : isObject(value)
        ? branch('restartPolicyObject')
        : issue('must be a policy name or an object {"policy": "on-failure", "restart_tries": n}'),
  result: (value) =>
    typeof value === 'string' ? branch('resultRegex') : isObject(value) ? branch('resultSpec') : issue('must be a regex string or an object {"regex", "logType"}'),
};
