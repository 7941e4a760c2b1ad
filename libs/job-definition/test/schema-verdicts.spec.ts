/**
 * The schema constraint by constraint: a valid definition with one change is
 * accepted or refused at the pointer of the change, with the message a user
 * sees; the published JSON Schema (what other tools validate with) gives the
 * same verdict.
 */
import Ajv2020 from 'ajv/dist/2020';
import { jobDefinitionJsonSchema, validate } from '../src';

type Loose = Record<string, unknown>;
type Issue = { path: string; message: string };

const httpCheck = { type: 'http', path: '/', method: 'GET', expected_status: 200, continuous: true };
const base = {
  version: '0.1',
  type: 'container',
  ops: [
    { type: 'container/create-volume', id: 'vol', args: { name: 'data' } },
    {
      type: 'container/run',
      id: 'a',
      args: {
        image: 'ubuntu',
        volumes: [{ name: 'data', dest: '/data' }],
        expose: [{ port: 80, type: 'api', health_checks: [httpCheck, { type: 'websocket', expected_response: 'pong', continuous: false }] }],
        resources: [{ type: 'S3', url: 's3://b', target: '/s3' }],
        authentication: { docker: { username: 'u', password: 'p', email: 'e', server: 's' } },
        restart_policy: { policy: 'on-failure', restart_tries: 2 },
      },
      results: { r: { regex: 'v=(\\d+)', logType: ['stdout'] } },
      execution: { depends_on: ['vol'] },
    },
    { type: 'container/create-volume', id: 'spare', args: { name: 'spare' } },
  ],
};

/** `base` with the member at `pointer` set to `value` (undefined: removed). */
function change(pointer: string, value: unknown): Loose {
  const copy = structuredClone(base) as Loose;
  const keys = pointer.split('/').slice(1);
  const last = keys.pop() as string;
  let node = copy as Loose;
  for (const key of keys) {
    node[key] ??= {};
    node = node[key] as Loose;
  }
  if (value === undefined) delete node[last];
  else node[last] = value;
  return copy;
}

const A = '/ops/1';
const ARGS = `${A}/args`;
const CHECK = `${ARGS}/expose/0/health_checks/0`;
const WS = `${ARGS}/expose/0/health_checks/1`;
const RES = `${ARGS}/resources/0`;
const err = (path: string, message: string): Issue[] => [{ path, message }];
const OK: Issue[] = [];

const cases: Array<[string, unknown, Issue[]]> = [
  // root
  ['/meta', 'cli', err('/meta', 'must be an object')],
  ['/meta/trigger', 5, err('/meta/trigger', 'must be a string')],
  ['/meta/system_requirements', 8, err('/meta/system_requirements', 'must be an object')],
  ['/global', 5, err('/global', 'must be an object')],
  ['/global/variable', {}, err('/global/variable', 'unknown member "variable"; did you mean "variables"?')],
  ['/global/variables', 'x', err('/global/variables', 'must be an object')],
  ['/global/variables', { A: 5 }, err('/global/variables/A', 'must be a string')],
  ['/global/variables', { 'a.b': 'x' }, err('/global/variables/a.b', 'name must be 1 to 128 letters, digits, "_" or "-"')],
  ['/logistics', 5, err('/logistics', 'must be an object')],
  ['/logistics/fetch', {}, err('/logistics/fetch', 'unknown member "fetch"')],
  ['/logistics/send', 5, err('/logistics/send', 'must be an object')],
  ['/logistics/send', { type: 'api' }, err('/logistics/send', 'missing required member "args"')],
  ['/logistics/send', { args: {} }, err('/logistics/send', 'missing required member "type"')],
  ['/logistics/send', { type: 'api', args: {}, x: 1 }, err('/logistics/send/x', 'unknown member "x"')],
  ['/logistics/send', { type: 'ftp', args: {} }, err('/logistics/send/type', 'must be one of "api", "api-listen"')],
  ['/logistics/receive', { type: 'api-listen', args: { endpoint: 5 } }, err('/logistics/receive/args/endpoint', 'must be a string')],
  ['/logistics/receive', { type: 'api-listen', args: { url: 'x' } }, err('/logistics/receive/args/url', 'unknown member "url"')],
  ['/logistics/receive', { type: 'api-listen', args: 5 }, err('/logistics/receive/args', 'must be an object')],
  ['/logistics', { send: { type: 'api', args: { endpoint: 'https://x' } }, receive: { type: 'api-listen', args: {} } }, OK],
  ['/deployment_id', 5, err('/deployment_id', 'must be a string')],
  ['/deployment_id', 'dep-1', OK],
  ['/ops', 'x', err('/ops', 'must be an array')],
  // ops
  ['/ops/2', 5, err('/ops/2', 'must be an object with type, id and args')],
  ['/ops/2', null, err('/ops/2', 'must be an object with type, id and args')],
  ['/ops/2', [], err('/ops/2', 'must be an object with type, id and args')],
  ['/ops/2', { id: 'x' }, [...err('/ops/2', 'missing required member "type"'), ...err('/ops/2', 'missing required member "args"')]],
  [`${A}/id`, undefined, err(A, 'missing required member "id"')],
  [`${A}/args`, undefined, err(A, 'missing required member "args"')],
  [`${A}/id`, 5, err(`${A}/id`, 'must be a string')],
  [`${A}/retries`, 1, err(`${A}/retries`, 'unknown member "retries"')],
  ['/ops/2/id', undefined, err('/ops/2', 'missing required member "id"')],
  ['/ops/2/args', undefined, err('/ops/2', 'missing required member "args"')],
  ['/ops/2/size', 1, err('/ops/2/size', 'unknown member "size"')],
  ['/ops/2/args', 'data', err('/ops/2/args', 'must be an object')],
  ['/ops/2/args/name', undefined, err('/ops/2/args', 'missing required member "name"')],
  ['/ops/2/args/name', '.data', err('/ops/2/args/name', 'must start with a letter or digit and hold only letters, digits, "_", "." or "-"')],
  ['/ops/2/args/name', 5, err('/ops/2/args/name', 'must be a string')],
  ['/ops/2/results', { done: 'done' }, OK],
  ['/ops/2/execution', { timeout: 60 }, OK],
  // run args
  [`${ARGS}/image`, '', err(`${ARGS}/image`, 'must not be empty')],
  [`${ARGS}/image`, 5, err(`${ARGS}/image`, 'must be a string')],
  [`${ARGS}/aliases`, 'db.local', OK],
  [`${ARGS}/aliases`, 'db_local', err(`${ARGS}/aliases`, 'must be a host name: DNS labels of letters, digits and hyphens joined by dots')],
  [`${ARGS}/aliases`, ['db', 'x y'], err(`${ARGS}/aliases/1`, 'must be a host name: DNS labels of letters, digits and hyphens joined by dots')],
  [`${ARGS}/aliases`, 5, err(`${ARGS}/aliases`, 'must be a host name or an array of host names')],
  [`${ARGS}/aliases`, ['db', 5], err(`${ARGS}/aliases/1`, 'must be a string')],
  [`${ARGS}/env`, 'A=b', err(`${ARGS}/env`, 'must be an object')],
  [`${ARGS}/gpu`, 'yes', err(`${ARGS}/gpu`, 'must be a boolean')],
  [`${ARGS}/private`, 1, err(`${ARGS}/private`, 'must be a boolean')],
  [`${ARGS}/work_dir`, 'app', err(`${ARGS}/work_dir`, 'must be an absolute path starting with "/"')],
  [`${ARGS}/work_dir`, 5, err(`${ARGS}/work_dir`, 'must be a string')],
  [`${ARGS}/volumes`, 'data', err(`${ARGS}/volumes`, 'must be an array')],
  [`${ARGS}/volumes`, [5], err(`${ARGS}/volumes/0`, 'must be an object')],
  [`${ARGS}/volumes`, [{ name: 'data' }], err(`${ARGS}/volumes/0`, 'missing required member "dest"')],
  [`${ARGS}/volumes`, [{ dest: '/d' }], err(`${ARGS}/volumes/0`, 'missing required member "name"')],
  [`${ARGS}/volumes`, [{ name: 'data', dest: '/d', mode: 'ro' }], err(`${ARGS}/volumes/0/mode`, 'unknown member "mode"')],
  [`${ARGS}/volumes`, [{ name: 'data', dest: 5 }], err(`${ARGS}/volumes/0/dest`, 'must be a string')],
  [`${ARGS}/authentication`, 5, err(`${ARGS}/authentication`, 'must be an object')],
  [`${ARGS}/authentication`, { ecr: {} }, err(`${ARGS}/authentication/ecr`, 'unknown member "ecr"')],
  [`${ARGS}/authentication`, { docker: 5 }, err(`${ARGS}/authentication/docker`, 'must be an object')],
  [`${ARGS}/authentication`, { docker: { token: 't' } }, err(`${ARGS}/authentication/docker/token`, 'unknown member "token"')],
  ...['username', 'password', 'email', 'server'].map((m): [string, unknown, Issue[]] => [
    `${ARGS}/authentication`,
    { docker: { [m]: 5 } },
    err(`${ARGS}/authentication/docker/${m}`, 'must be a string'),
  ]),
  [`${ARGS}/depends`, 'vol', err(`${ARGS}/depends`, 'must be an array')],
  [`${ARGS}/depends`, [1], err(`${ARGS}/depends/0`, 'must be a string')],
  [`${ARGS}/cmd`, ['a', 'b'], OK],
  [`${ARGS}/entrypoint`, 'run.sh', OK],
  // restart policies
  ...['no', 'on-failure', 'always', 'unless-stopped'].map((p): [string, unknown, Issue[]] => [`${ARGS}/restart_policy`, p, OK]),
  [`${ARGS}/restart_policy`, { restart_tries: 2 }, err(`${ARGS}/restart_policy`, 'missing required member "policy"')],
  [`${ARGS}/restart_policy`, { policy: 'on-failure', restart_try: 2 }, err(`${ARGS}/restart_policy/restart_try`, 'unknown member "restart_try"; did you mean "restart_tries"?')],
  [`${ARGS}/restart_policy`, { policy: 'on-failure', restart_tries: 1.5 }, err(`${ARGS}/restart_policy/restart_tries`, 'must be an integer')],
  [`${ARGS}/restart_policy`, 5, err(`${ARGS}/restart_policy`, 'must be a policy name or an object {"policy": "on-failure", "restart_tries": n}')],
  // results
  [`${A}/results`, 'v', err(`${A}/results`, 'must be an object')],
  [`${A}/results`, { r: 5 }, err(`${A}/results/r`, 'must be a regex string or an object {"regex", "logType"}')],
  [`${A}/results`, { r: '' }, err(`${A}/results/r`, 'must not be empty')],
  [`${A}/results`, { r: 'x'.repeat(4097) }, err(`${A}/results/r`, 'must be at most 4096 characters')],
  [`${A}/results`, { r: { logType: ['stdout'] } }, err(`${A}/results/r`, 'missing required member "regex"')],
  [`${A}/results`, { r: { regex: 'x' } }, err(`${A}/results/r`, 'missing required member "logType"')],
  [`${A}/results`, { r: { regex: 'x', logType: ['stdout'], flags: 'i' } }, err(`${A}/results/r/flags`, 'unknown member "flags"')],
  [`${A}/results`, { r: { regex: '', logType: ['stdout'] } }, err(`${A}/results/r/regex`, 'must not be empty')],
  [`${A}/results`, { r: { regex: 'x', logType: 'stdout' } }, err(`${A}/results/r/logType`, 'must be an array')],
  [`${A}/results`, { r: { regex: 'x', logType: ['stdout', 'stdout'] } }, err(`${A}/results/r/logType/1`, 'repeats item 0')],
  [`${A}/results`, { r: { regex: 'x', logType: ['stdin', 'stdout', 'stderr', 'nodeerr'] } }, OK],
  // execution
  [`${A}/execution`, 5, err(`${A}/execution`, 'must be an object')],
  [`${A}/execution`, { group: 5 }, err(`${A}/execution/group`, 'must be a string')],
  [`${A}/execution`, { group: 'g'.repeat(201) }, err(`${A}/execution/group`, 'must be at most 200 characters')],
  [`${A}/execution`, { depends_on: 'vol' }, err(`${A}/execution/depends_on`, 'must be an array')],
  [`${A}/execution`, { depends_on: [1] }, err(`${A}/execution/depends_on/0`, 'must be a string')],
  [`${A}/execution`, { timeout: '60' }, err(`${A}/execution/timeout`, 'must be an integer')],
  [`${A}/execution`, { stop_if_dependent_stops: 'yes' }, err(`${A}/execution/stop_if_dependent_stops`, 'must be a boolean')],
  // expose
  [`${ARGS}/expose`, 80.5, err(`${ARGS}/expose`, 'must be an integer')],
  [`${ARGS}/expose`, 0, err(`${ARGS}/expose`, 'must be between 1 and 65535')],
  [`${ARGS}/expose`, { __spread__: 'ports' }, err(`${ARGS}/expose/__spread__`, 'must be a literal such as "%%ops.<id>.results.<name>%%"')],
  [`${ARGS}/expose`, { __spread__: '%%ops.a.host%%', chunked: 'yes' }, err(`${ARGS}/expose/chunked`, 'must be a boolean')],
  [`${ARGS}/expose`, { __spread__: '%%ops.a.host%%', join: true }, err(`${ARGS}/expose/join`, 'unknown member "join"')],
  [`${ARGS}/expose`, { type: 'web' }, err(`${ARGS}/expose`, 'missing required member "port"')],
  [`${ARGS}/expose`, { chunked: true }, [...err(`${ARGS}/expose`, 'missing required member "port"'), ...err(`${ARGS}/expose/chunked`, 'unknown member "chunked"')]],
  [`${ARGS}/expose`, 'http', err(`${ARGS}/expose`, 'must be a port number such as "8080" or a literal such as "%%ops.<id>.results.port%%"')],
  [`${ARGS}/expose`, { port: 80, tls: true }, err(`${ARGS}/expose/tls`, 'unknown member "tls"')],
  ...['api', 'web', 'websocket', 'webapi', 'none'].map((t): [string, unknown, Issue[]] => [`${ARGS}/expose`, { port: 80, type: t }, OK]),
  [`${ARGS}/expose`, { port: 80, health_checks: httpCheck }, err(`${ARGS}/expose/health_checks`, 'must be an array')],
  // health checks
  ...['type', 'path', 'method', 'expected_status', 'continuous'].map((m): [string, unknown, Issue[]] => [
    `${CHECK}/${m}`,
    undefined,
    err(m === 'type' ? CHECK : CHECK, m === 'type' ? 'missing required member "type" ("http" or "websocket")' : `missing required member "${m}"`),
  ]),
  ...['GET', 'POST', 'PUT', 'DELETE'].map((m): [string, unknown, Issue[]] => [`${CHECK}/method`, m, OK]),
  [`${CHECK}/timeout`, 5, err(`${CHECK}/timeout`, 'unknown member "timeout"')],
  [`${CHECK}/path`, 5, err(`${CHECK}/path`, 'must be a string')],
  [`${CHECK}/expected_status`, '200', err(`${CHECK}/expected_status`, 'must be an integer')],
  [`${CHECK}/continuous`, 'yes', err(`${CHECK}/continuous`, 'must be a boolean')],
  [`${CHECK}/headers`, 'X-A: b', err(`${CHECK}/headers`, 'must be an object')],
  [`${CHECK}/headers`, { 'X-A': 5 }, err(`${CHECK}/headers/X-A`, 'must be a string')],
  [`${CHECK}/body`, [1, 'two', { three: null }], OK],
  [`${WS}/continuous`, undefined, err(WS, 'missing required member "continuous"')],
  [`${WS}/expected_response`, 5, err(`${WS}/expected_response`, 'must be a string')],
  [`${WS}/continuous`, 'no', err(`${WS}/continuous`, 'must be a boolean')],
  [`${WS}/path`, '/', err(`${WS}/path`, 'unknown member "path"')],
  [`${CHECK}`, 5, err(CHECK, 'must be an object (an http or websocket health check)')],
  // resources
  [RES, { type: 'S3', url: 's3://b' }, err(RES, 'missing required member "target"')],
  [RES, { type: 'S3', url: 's3://b', target: 'data' }, err(`${RES}/target`, 'must be an absolute path starting with "/"')],
  [RES, { type: 'S3', url: 5, target: '/d' }, err(`${RES}/url`, 'must be a string')],
  [RES, { type: 'S3', url: 's3://b', target: '/d', files: [1] }, err(`${RES}/files/0`, 'must be a string')],
  [RES, { type: 'S3', url: 's3://b', target: '/d', allowWrite: 'yes' }, err(`${RES}/allowWrite`, 'must be a boolean')],
  [RES, { type: 'S3', url: 's3://b', target: '/d', region: 'x' }, err(`${RES}/region`, 'unknown member "region"')],
  [RES, { type: 'S3', url: 's3://b', target: '/d', IAM: { REGION: 'r', ACCESS_KEY_ID: 'k' } }, err(`${RES}/IAM`, 'missing required member "SECRET_ACCESS_KEY"')],
  [RES, { type: 'S3', url: 's3://b', target: '/d', IAM: { REGION: 'r', SECRET_ACCESS_KEY: 's' } }, err(`${RES}/IAM`, 'missing required member "ACCESS_KEY_ID"')],
  [RES, { type: 'S3', url: 's3://b', target: '/d', IAM: { ACCESS_KEY_ID: 'k', SECRET_ACCESS_KEY: 's' } }, err(`${RES}/IAM`, 'missing required member "REGION"')],
  [RES, { type: 'S3', url: 's3://b', target: '/d', IAM: { REGION: 5, ACCESS_KEY_ID: 'k', SECRET_ACCESS_KEY: 's' } }, err(`${RES}/IAM/REGION`, 'must be a string')],
  [RES, { type: 'S3', url: 's3://b', target: '/d', IAM: { REGION: 'r', ACCESS_KEY_ID: 5, SECRET_ACCESS_KEY: 's' } }, err(`${RES}/IAM/ACCESS_KEY_ID`, 'must be a string')],
  [RES, { type: 'S3', url: 's3://b', target: '/d', IAM: { REGION: 'r', ACCESS_KEY_ID: 'k', SECRET_ACCESS_KEY: 5 } }, err(`${RES}/IAM/SECRET_ACCESS_KEY`, 'must be a string')],
  [
    RES,
    { type: 'S3', url: 's3://b', target: '/d', IAM: { REGION: 'r', ACCESS_KEY_ID: 'k', SECRET_ACCESS_KEY: 's', TOKEN: 't' } },
    err(`${RES}/IAM/TOKEN`, 'unknown member "TOKEN"'),
  ],
  [RES, { type: 'S3', bucket: 5, target: '/d' }, err(`${RES}/bucket`, 'must be a string')],
  [RES, { type: 'S3', bucket: 'b', target: '/d', files: ['x'] }, err(`${RES}/files`, 'unknown member "files"')],
  [RES, { type: 'S3', buckets: 'b', target: '/d' }, err(`${RES}/buckets`, 'must be an array')],
  [RES, { type: 'S3', buckets: [{}], target: '/d' }, err(`${RES}/buckets/0`, 'missing required member "url"')],
  [RES, { type: 'S3', buckets: [{ url: 'u', files: [1] }], target: '/d' }, err(`${RES}/buckets/0/files/0`, 'must be a string')],
  [RES, { type: 'S3', buckets: [{ url: 'u', bucket: 'b' }], target: '/d' }, err(`${RES}/buckets/0/bucket`, 'unknown member "bucket"')],
  [RES, { type: 'S3', buckets: [{ url: 'u' }] }, err(RES, 'missing required member "target"')],
  [RES, { type: 'HF', repo: '', target: '/m' }, err(`${RES}/repo`, 'must not be empty')],
  [RES, { type: 'HF', repo: 'o/m', target: 'm' }, err(`${RES}/target`, 'must be an absolute path starting with "/"')],
  [RES, { type: 'HF', repo: 'o/m' }, err(RES, 'missing required member "target"')],
  [RES, { type: 'HF', repo: 'o/m', target: '/m', revision: 5 }, err(`${RES}/revision`, 'must be a string')],
  [RES, { type: 'HF', repo: 'o/m', target: '/m', files: [5] }, err(`${RES}/files/0`, 'must be a string')],
  [RES, { type: 'HF', repo: 'o/m', target: '/m', accessToken: 5 }, err(`${RES}/accessToken`, 'must be a string')],
  [RES, { type: 'HF', repo: 'o/m', target: '/m', url: 'x' }, err(`${RES}/url`, 'unknown member "url"')],
  [RES, { type: 'Ollama', model: '' }, err(`${RES}/model`, 'must not be empty')],
  [RES, { type: 'Ollama' }, err(RES, 'missing required member "model"')],
  [RES, { type: 'Ollama', model: 'gemma', target: 'm' }, err(`${RES}/target`, 'must be an absolute path starting with "/"')],
  [RES, { type: 'Ollama', model: 'gemma', target: '/m' }, OK],
  [RES, { type: 'Ollama', model: 'gemma', repo: 'x' }, err(`${RES}/repo`, 'unknown member "repo"')],
  [RES, { __spread__: '%%ops.a.host%%', extra: 1 }, err(`${RES}/extra`, 'unknown member "extra"')],
  [RES, 5, err(RES, 'must be a resource object, a {"__spread__"} marker or "__remove-if-empty__"')],
  [RES, { type: 7 }, err(`${RES}/type`, 'must be "S3", "HF" or "Ollama"')],
];

/** The published schema as another tool would use it: a standard validator, no help from `validate`. */
let standard: ((data: unknown) => boolean) | undefined;
// Compiled on first use: mutation runs load this file for every mutant, most of which run none of its tests.
const published = (data: unknown): boolean => {
  standard ??= new Ajv2020({ strict: true, validateSchema: false }).compile(jobDefinitionJsonSchema);
  return standard(data);
};

describe('the schema, constraint by constraint', () => {
  it('accepts the base definition', () => {
    expect(validate(base)).toEqual({ valid: true, errors: [], warnings: [] });
    expect(published(base)).toBe(true);
  });

  it.each(cases)('%s = %j: %j', (pointer, value, expected) => {
    const definition = change(pointer, value);
    expect(validate(definition).errors).toEqual(expected);
    expect(published(definition)).toBe(expected.length === 0);
  });

  it('publishes a non-empty title and description wherever it has one', () => {
    const texts: string[] = [];
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(visit);
      else if (typeof node === 'object' && node !== null) {
        for (const [key, value] of Object.entries(node)) {
          if ((key === 'description' || key === 'title') && typeof value === 'string') texts.push(value);
          else visit(value);
        }
      }
    };
    visit(jobDefinitionJsonSchema);
    expect(texts.length).toBeGreaterThan(30);
    for (const text of texts) expect(text.trim().length).toBeGreaterThan(3);
  });
});
