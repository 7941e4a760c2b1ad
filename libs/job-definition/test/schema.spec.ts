import Ajv2020 from 'ajv/dist/2020';
import { jobDefinitionJsonSchema, jobDefinitionOpenApiSchemas, validate } from '../src';
import { HEALTH_CHECK_EXAMPLE, jobExamples } from './helpers';
import { job, run } from './helpers';

const errorsOf = (definition: unknown) => validate(definition).errors;
const argsErrors = (args: Record<string, unknown>) => errorsOf(job([run('a', args)]));

describe('JSON Schema', () => {
  it('is a draft 2020-12 schema with an $id that a standard validator compiles', () => {
    expect(jobDefinitionJsonSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(jobDefinitionJsonSchema.$id).toMatch(/^https:\/\//);
    expect(() => new Ajv2020({ strict: true }).compile(jobDefinitionJsonSchema)).not.toThrow();
  });
});

describe('OpenAPI components', () => {
  const schemas = jobDefinitionOpenApiSchemas();

  it('points every $ref at a component it provides', () => {
    const refs = [...JSON.stringify(schemas).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(20);
    for (const ref of refs) expect(Object.keys(schemas)).toContain(ref);
    expect(JSON.stringify(schemas)).not.toContain('$defs');
  });

  it('accepts and refuses the same examples as the schema', () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'https://openapi.test/doc.json', components: { schemas } });
    const check = ajv.compile({ $ref: 'https://openapi.test/doc.json#/components/schemas/JobDefinition' });
    for (const [name, definition] of jobExamples()) expect([name, check(definition)]).toEqual([name, name !== HEALTH_CHECK_EXAMPLE]);
  });
});

describe('shape errors', () => {
  it('requires version, type and ops', () => {
    expect(errorsOf({})).toEqual([
      { path: '', message: 'missing required member "version"' },
      { path: '', message: 'missing required member "type"' },
      { path: '', message: 'missing required member "ops"' },
    ]);
  });

  it('rejects a version other than 0.1 and a type other than container', () => {
    expect(errorsOf({ version: 0.1, type: 'vm', ops: [run('a')] })).toEqual([
      { path: '/type', message: 'must be "container"' },
      { path: '/version', message: 'must be "0.1"' },
    ]);
  });

  it('names an unknown member and suggests the member meant', () => {
    expect(errorsOf(job([run('a', { helth_checks: 1 })], { opz: [] }))).toEqual([
      { path: '/ops/0/args/helth_checks', message: 'unknown member "helth_checks"' },
      { path: '/opz', message: 'unknown member "opz"; did you mean "ops"?' },
    ]);
    expect(argsErrors({ enviroment: {}, gpus: true })).toEqual([
      { path: '/ops/0/args/enviroment', message: 'unknown member "enviroment"' },
      { path: '/ops/0/args/gpus', message: 'unknown member "gpus"; did you mean "gpu"?' },
    ]);
  });

  it('accepts any member inside meta, env, health check headers and body', () => {
    const check = { type: 'http', path: '/', method: 'POST', expected_status: 200, continuous: false, headers: { 'X-A': 'b' }, body: { any: [1, { deep: null }] } };
    const definition = job([run('a', { env: { ANY_NAME: 'x', 'lower.case': 'y' }, expose: { port: 80, health_checks: [check] } })], {
      meta: { trigger: 'cli', anything: { goes: [1] }, system_requirements: { required_vram: 8, required_cuda: ['12.8'] } },
    });
    expect(validate(definition)).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('rejects a required_vram that is not a number', () => {
    expect(errorsOf(job([run('a')], { meta: { system_requirements: { required_vram: '8GB' } } }))).toEqual([
      { path: '/meta/system_requirements/required_vram', message: 'must be a number' },
    ]);
  });

  it('rejects an unknown op type at its type member', () => {
    expect(errorsOf(job([{ type: 'container/exec', id: 'a', args: {} }]))).toEqual([{ path: '/ops/0/type', message: 'must be "container/run" or "container/create-volume"' }]);
  });

  it('reports a create-volume op without type as a create-volume op', () => {
    expect(errorsOf(job([{ id: 'v', args: { name: 'data' } }]))).toEqual([{ path: '/ops/0', message: 'missing required member "type"' }]);
  });

  it('requires an image for container/run and only a name for container/create-volume', () => {
    expect(
      errorsOf(
        job([
          { type: 'container/run', id: 'a', args: {} },
          { type: 'container/create-volume', id: 'v', args: { name: 'd', size: 1 } },
        ]),
      ),
    ).toEqual([
      { path: '/ops/0/args', message: 'missing required member "image"' },
      { path: '/ops/1/args/size', message: 'unknown member "size"' },
    ]);
  });

  it('rejects an op id that is not a DNS label', () => {
    expect(errorsOf(job([run('my_op'), run('-x'), run('a'.repeat(64))])).map((e) => e.path)).toEqual(['/ops/0/id', '/ops/1/id', '/ops/2/id']);
    expect(errorsOf(job([run('my_op')]))[0].message).toMatch(/DNS label/);
  });
});

describe('expose forms', () => {
  it.each([
    ['a number', 8080],
    ['a port as text', '8080'],
    ['a literal', '%%ops.a.results.port%%'],
    ['a spread marker', { __spread__: '%%ops.a.results.expose%%', chunked: true }],
    ['a port object', { port: 80, type: 'web' }],
    ['a list of every form', [80, '81', { port: 82 }, { __spread__: '%%global.variables.PORTS%%' }]],
  ])('accepts %s', (_form, expose) => {
    const producer = run('a', {}, { group: 'first' }, { results: { port: 'p', expose: 'e' } });
    const definition = job([producer, run('b', { expose }, { group: 'second' })], { global: { variables: { PORTS: '[]' } } });
    expect(validate(definition).errors).toEqual([]);
  });

  it('rejects an entry of no known form with one message listing the forms', () => {
    expect(argsErrors({ expose: [true] })).toEqual([{ path: '/ops/0/args/expose/0', message: 'must be a port number, a port as text, or an object with "port" or "__spread__"' }]);
  });

  it('rejects port text that is neither digits nor a literal, and a port range', () => {
    expect(argsErrors({ expose: ['http', '8000-8010'] }).map((e) => e.path)).toEqual(['/ops/0/args/expose/0', '/ops/0/args/expose/1']);
  });

  it('reports a bad member of a port object, not the other forms', () => {
    expect(argsErrors({ expose: [{ port: 80, type: 'grpc' }] })).toEqual([
      { path: '/ops/0/args/expose/0/type', message: 'must be one of "api", "web", "websocket", "webapi", "none"' },
    ]);
  });

  it('accepts a websocket health check and rejects one without expected_response', () => {
    const ok = { type: 'websocket', expected_response: 'pong', continuous: true };
    expect(argsErrors({ expose: { port: 80, health_checks: [ok] } })).toEqual([]);
    expect(argsErrors({ expose: { port: 80, health_checks: [{ type: 'websocket', continuous: true }] } })).toEqual([
      { path: '/ops/0/args/expose/health_checks/0', message: 'missing required member "expected_response"' },
    ]);
  });

  it('rejects a health check of an unknown type or without type at that health check', () => {
    expect(argsErrors({ expose: { port: 80, health_checks: [{ type: 'tcp' }, { path: '/' }] } })).toEqual([
      { path: '/ops/0/args/expose/health_checks/0/type', message: 'must be "http" or "websocket"' },
      { path: '/ops/0/args/expose/health_checks/1', message: 'missing required member "type" ("http" or "websocket")' },
    ]);
  });

  it('rejects an http health check with a bad method and status', () => {
    const check = { type: 'http', path: 'health', method: 'PATCH', expected_status: 42, continuous: true };
    expect(argsErrors({ expose: { port: 80, health_checks: [check] } })).toEqual([
      { path: '/ops/0/args/expose/health_checks/0/expected_status', message: 'must be between 100 and 599' },
      { path: '/ops/0/args/expose/health_checks/0/method', message: 'must be one of "GET", "POST", "PUT", "DELETE"' },
      { path: '/ops/0/args/expose/health_checks/0/path', message: 'must be an absolute path starting with "/"' },
    ]);
  });
});

describe('resources', () => {
  it.each([
    ['an object store location', { type: 'S3', url: 's3://b/p', target: '/data', files: ['a'], allowWrite: false }],
    ['an object store bucket', { type: 'S3', url: 'https://x', bucket: 'b', target: '/d', IAM: { REGION: 'r', ACCESS_KEY_ID: 'k', SECRET_ACCESS_KEY: 's' } }],
    ['several buckets', { type: 'S3', target: '/d', buckets: [{ url: 's3://a', files: ['x'] }, { url: 's3://b' }] }],
    ['a model hub repository', { type: 'HF', repo: 'org/model', target: '/m', revision: 'main', accessToken: 't' }],
    ['a model runner model', { type: 'Ollama', model: 'gemma' }],
    ['a spread marker', { __spread__: '%%ops.a.results.r%%' }],
    ['the remove-if-empty marker', '__remove-if-empty__'],
  ])('accepts %s', (_kind, resource) => {
    const definition = job([run('a', {}, { group: 'one' }, { results: { r: 'x' } }), run('b', { resources: [resource] }, { group: 'two' })]);
    expect(validate(definition).errors).toEqual([]);
  });

  it('reports a resource of an unknown kind at its type, and one without type once', () => {
    expect(argsErrors({ resources: [{ type: 'GCS', target: '/x' }, { repo: 'x' }, 'remove'] })).toEqual([
      { path: '/ops/0/args/resources/0/type', message: 'must be "S3", "HF" or "Ollama"' },
      { path: '/ops/0/args/resources/1', message: 'missing required member "type" ("S3", "HF" or "Ollama")' },
      { path: '/ops/0/args/resources/2', message: 'must be "__remove-if-empty__"' },
    ]);
  });

  it('reports missing members of the object store shape the resource has', () => {
    expect(
      argsErrors({
        resources: [
          { type: 'S3', bucket: 'b' },
          { type: 'HF', target: '/m' },
        ],
      }),
    ).toEqual([
      { path: '/ops/0/args/resources/0', message: 'missing required member "target"' },
      { path: '/ops/0/args/resources/1', message: 'missing required member "repo"' },
    ]);
  });
});

describe('args, results and execution', () => {
  it('accepts every args member in every allowed form', () => {
    const args = {
      aliases: 'db.local',
      cmd: 'echo hi',
      entrypoint: ['/bin/sh', '-c'],
      env: { A: 'b' },
      gpu: true,
      work_dir: '/app',
      volumes: [],
      private: true,
      restart_policy: 'unless-stopped',
      authentication: { docker: { username: 'u', password: 'p', email: 'e', server: 's' } },
    };
    expect(argsErrors(args)).toEqual([]);
    expect(argsErrors({ aliases: ['x', 'y'], cmd: [], entrypoint: 'run.sh', restart_policy: { policy: 'on-failure', restart_tries: 3 } })).toEqual([]);
  });

  it('rejects cmd that is neither a string nor an array of strings', () => {
    expect(argsErrors({ cmd: 42, entrypoint: ['a', 1] })).toEqual([
      { path: '/ops/0/args/cmd', message: 'must be a string or an array of strings' },
      { path: '/ops/0/args/entrypoint/1', message: 'must be a string' },
    ]);
  });

  it('rejects an unknown restart policy and restart_tries below 1', () => {
    expect(argsErrors({ restart_policy: 'sometimes' })).toEqual([{ path: '/ops/0/args/restart_policy', message: 'must be one of "no", "on-failure", "always", "unless-stopped"' }]);
    expect(argsErrors({ restart_policy: { policy: 'always', restart_tries: 0 } })).toEqual([
      { path: '/ops/0/args/restart_policy/policy', message: 'must be "on-failure"' },
      { path: '/ops/0/args/restart_policy/restart_tries', message: 'must be at least 1' },
    ]);
  });

  it('rejects an env value that is not a string and an env name holding "="', () => {
    expect(argsErrors({ env: { PORT: 80, 'A=B': 'x' } })).toEqual([
      { path: '/ops/0/args/env/A=B', message: 'name must not be empty or contain "="' },
      { path: '/ops/0/args/env/PORT', message: 'must be a string' },
    ]);
  });

  it('rejects a result with an unknown log type or a bad name', () => {
    const results = { ok: { regex: 'x', logType: ['stdout', 'stdlog'] }, 'a.b': 'x', none: { regex: 'x', logType: [] } };
    expect(errorsOf(job([run('a', {}, undefined, { results })]))).toEqual([
      { path: '/ops/0/results/a.b', message: 'name must be 1 to 128 letters, digits, "_" or "-"' },
      { path: '/ops/0/results/none/logType', message: 'must hold at least 1 item(s)' },
      { path: '/ops/0/results/ok/logType/1', message: 'must be one of "stdin", "stdout", "stderr", "nodeerr"' },
    ]);
  });

  it('rejects a timeout that is not a whole number of seconds and an unknown execution member', () => {
    expect(errorsOf(job([run('a', {}, { timeout: 1.5, retries: 2, group: '' })]))).toEqual([
      { path: '/ops/0/execution/group', message: 'must not be empty' },
      { path: '/ops/0/execution/retries', message: 'unknown member "retries"' },
      { path: '/ops/0/execution/timeout', message: 'must be an integer' },
    ]);
  });

  it('rejects the same id twice in depends_on at the repeat', () => {
    expect(errorsOf(job([run('a'), run('b', {}, { depends_on: ['a', 'a'] })]))).toEqual([{ path: '/ops/1/execution/depends_on/1', message: 'repeats item 0' }]);
  });
});
