import { validate, validateOps, validateResources } from '../src';
import { job, loadExample, run, volume } from './helpers';

type Loose = Record<string, unknown>;
const check = (ops: Loose[], extra?: Loose) => validate(job(ops, extra));

describe('op ids', () => {
  it('rejects an op id used twice', () => {
    expect(check([run('a'), run('a')]).errors).toEqual([{ path: '/ops/1/id', message: 'duplicate op id "a": already used by /ops/0' }]);
  });

  it('rejects op ids that differ only in case, since host names ignore case', () => {
    expect(check([run('Server'), run('server')]).errors).toEqual([
      { path: '/ops/1/id', message: 'op id "server" differs from "Server" (/ops/0) only in case; host names ignore case' },
    ]);
  });

  it('accepts upper case letters in an op id, as real templates use them', () => {
    expect(check([run('Flux-comfy')]).valid).toBe(true);
  });
});

describe('depends_on', () => {
  it('rejects a dependency on an unknown op, at the reference', () => {
    const definition = loadExample('nosana-kit-docs__services.md__vllm-openwebui-multi-ops.json') as { ops: Loose[] };
    (definition.ops[1]['execution'] as Loose)['depends_on'] = ['vlm'];
    expect(validate(definition).errors).toEqual([{ path: '/ops/1/execution/depends_on/0', message: 'unknown op id "vlm"' }]);
  });

  it('suggests the op id meant', () => {
    expect(check([run('server'), run('b', {}, { depends_on: ['sever'] })]).errors[0].message).toBe('unknown op id "sever"; did you mean "server"?');
  });

  it('rejects an op depending on itself', () => {
    expect(check([run('a', {}, { depends_on: ['a'] })]).errors).toEqual([{ path: '/ops/0/execution/depends_on/0', message: 'an op cannot depend on itself' }]);
  });

  it('rejects depends_on naming a later stage', () => {
    expect(check([run('a', {}, { group: 'one', depends_on: ['b'] }), run('b', {}, { group: 'two' })]).errors).toEqual([
      { path: '/ops/0/execution/depends_on/0', message: 'op "b" runs in a later stage (group "two"); depend only on ops of the same or an earlier stage' },
    ]);
  });

  it('rejects depends_on naming an op without group that comes later, as it is a later stage', () => {
    expect(check([run('a', {}, { depends_on: ['b'] }), run('b')]).errors[0].message).toMatch(/later stage \(a stage of its own\)/);
  });

  it('accepts depends_on naming an op of the same or an earlier stage', () => {
    const ops = [run('a', { expose: 80 }, { group: 'one' }), run('b', {}, { group: 'two', depends_on: ['a'] }), run('c', {}, { group: 'two', depends_on: ['b'] })];
    expect(check(ops)).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('rejects a dependency cycle and names the ops in it once', () => {
    const ops = [run('a', {}, { group: 'g', depends_on: ['b'] }), run('b', {}, { group: 'g', depends_on: ['c'] }), run('c', {}, { group: 'g', depends_on: ['a'] })];
    expect(check(ops).errors).toEqual([{ path: '/ops/0/execution/depends_on/0', message: 'dependency cycle: a -> b -> c -> a' }]);
  });

  it('reports two separate cycles separately', () => {
    const ops = [
      run('a', {}, { group: 'g', depends_on: ['b'] }),
      run('b', {}, { group: 'g', depends_on: ['a'] }),
      run('c', {}, { group: 'h', depends_on: ['d'] }),
      run('d', {}, { group: 'h', depends_on: ['c'] }),
    ];
    expect(check(ops).errors.map((e) => e.message)).toEqual(['dependency cycle: a -> b -> a', 'dependency cycle: c -> d -> c']);
  });

  it('accepts args.depends as an alias of depends_on with a warning, and checks its ids', () => {
    expect(check([run('a'), run('b', { depends: ['a'] })]).errors).toEqual([]);
    expect(check([run('a', {}, { group: 'g' }), run('b', { depends: ['a'] }, { group: 'g' })]).warnings).toEqual([
      { path: '/ops/1/args/depends', message: '"args.depends" is a deprecated alias of "execution.depends_on"; move these ids there' },
    ]);
    expect(check([run('a', { depends: ['zz'] })]).errors).toEqual([{ path: '/ops/0/args/depends/0', message: 'unknown op id "zz"' }]);
  });

  it('warns that stop_if_dependent_stops without dependencies has no effect', () => {
    expect(check([run('a', {}, { stop_if_dependent_stops: true })]).warnings).toEqual([
      { path: '/ops/0/execution/stop_if_dependent_stops', message: 'has no effect: this op depends on no op' },
    ]);
  });

  it('warns that stop_if_dependent_stops on an ended op of an earlier stage stops the op at once', () => {
    const ops = [run('batch', {}, { group: 'one' }), run('svc', {}, { group: 'two', depends_on: ['batch'], stop_if_dependent_stops: true })];
    expect(check(ops).warnings[0]).toMatchObject({ path: '/ops/1/execution/depends_on/0', message: expect.stringContaining('stops this op at once') });
  });
});

describe('volumes', () => {
  it('accepts a volume created in an earlier stage', () => {
    const ops = [volume('make', 'data', { group: 'one' }), run('use', { volumes: [{ name: 'data', dest: '/data' }] }, { group: 'two' })];
    expect(check(ops)).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('rejects a volume no op creates', () => {
    expect(check([run('use', { volumes: [{ name: 'data', dest: '/data' }] })]).errors).toEqual([
      { path: '/ops/0/args/volumes/0/name', message: 'volume "data" is not created by any container/create-volume op' },
    ]);
  });

  it('rejects a volume created in a later stage', () => {
    const ops = [run('use', { volumes: [{ name: 'data', dest: '/data' }] }, { group: 'one' }), volume('make', 'data', { group: 'two' })];
    expect(check(ops).errors[0]).toEqual({
      path: '/ops/0/args/volumes/0/name',
      message: 'volume "data" is created by op "make" in a later stage (group "two")',
    });
  });

  it('warns about a volume created in the same stage unless the op depends on its creator', () => {
    const mount = { volumes: [{ name: 'data', dest: '/data' }] };
    expect(check([volume('make', 'data', { group: 'g' }), run('use', mount, { group: 'g' })]).warnings[0].message).toMatch(/add "make" to depends_on/);
    expect(check([volume('make', 'data', { group: 'g' }), run('use', mount, { group: 'g', depends_on: ['make'] })]).warnings).toEqual([]);
  });

  it('rejects two ops creating the same volume', () => {
    expect(check([volume('a', 'data'), volume('b', 'data')]).errors).toEqual([{ path: '/ops/1/args/name', message: 'volume "data" is already created by /ops/0' }]);
  });

  it('rejects a mount destination that is not absolute', () => {
    expect(check([volume('a', 'data', { group: 'g' }), run('b', { volumes: [{ name: 'data', dest: 'data' }] }, { group: 'g', depends_on: ['a'] })]).errors).toEqual([
      { path: '/ops/1/args/volumes/0/dest', message: 'must be an absolute path starting with "/"' },
    ]);
  });
});

describe('ports', () => {
  it('rejects ports outside 1..65535 in every form', () => {
    expect(check([run('a', { expose: [0, '70000', { port: 65536 }] })]).errors).toEqual([
      { path: '/ops/0/args/expose/0', message: 'must be between 1 and 65535' },
      { path: '/ops/0/args/expose/1', message: 'port must be between 1 and 65535' },
      { path: '/ops/0/args/expose/2/port', message: 'must be between 1 and 65535' },
    ]);
  });

  it('rejects a port exposed twice by one op, whatever the forms', () => {
    expect(check([run('a', { expose: [80, { port: 80 }, '80'] })]).errors).toEqual([
      { path: '/ops/0/args/expose/1/port', message: 'port 80 is exposed twice by this op (also /ops/0/args/expose/0)' },
      { path: '/ops/0/args/expose/2', message: 'port 80 is exposed twice by this op (also /ops/0/args/expose/0)' },
    ]);
  });

  it('accepts the same port exposed by two ops', () => {
    expect(check([run('a', { expose: 80 }), run('b', { expose: 80 })]).valid).toBe(true);
  });
});

describe('aliases', () => {
  it("rejects an alias that is another op's id or alias", () => {
    expect(check([run('db', { aliases: 'cache' }), run('redis', { aliases: ['cache', 'db'] })]).errors).toEqual([
      { path: '/ops/1/args/aliases/0', message: 'host name "cache" already belongs to op "db" (/ops/0)' },
      { path: '/ops/1/args/aliases/1', message: 'host name "db" already belongs to op "db" (/ops/0)' },
    ]);
  });
});

describe('result regexes', () => {
  const withResult = (regex: string) => check([run('a', {}, undefined, { results: { r: regex } })]);

  it('accepts the regexes real templates use', () => {
    for (const regex of ['(?<=cmd: ).*', '"users_1_tokens_per_second_mean":(-?[\\d.]+)', 'Device [0-9].*', '(?:foo|bar)+x']) {
      expect(withResult(regex)).toEqual({ valid: true, errors: [], warnings: [] });
    }
  });

  it('refuses a regex that does not compile', () => {
    const result = withResult('([a-z]');
    expect(result.valid).toBe(false);
    expect(result.errors).toEqual([{ path: '/ops/0/results/r', message: expect.stringMatching(/^does not compile: .*; this result could never be captured$/) }]);
  });

  it('accepts nested quantifiers, which RE2 matches in linear time', () => {
    expect(withResult('(a+)+$')).toEqual({ valid: true, errors: [], warnings: [] });
    expect(check([run('a', {}, undefined, { results: { r: { regex: '(\\d|\\w)+', logType: ['stdout'] } } })]).valid).toBe(true);
  });
});

describe('literals', () => {
  const producer = run('setter', {}, { group: 'pre' }, { results: { value: 'v: (.*)' } });

  it('accepts the literal forms, results coming from an earlier stage', () => {
    const env = { A: '%%ops.setter.results.value%%', B: 'http://%%ops.svc.host%%:80', C: '%%global.job%% %%global.host%% %%global.node%%', D: '%%global.variables.X%%' };
    const ops = [producer, run('svc', { expose: 80 }, { group: 'main' }), run('user', { env }, { group: 'main' })];
    expect(check(ops, { global: { variables: { X: 'x' } } })).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('rejects a literal naming an unknown op', () => {
    expect(check([run('a', { cmd: ['%%ops.nope.host%%'] })]).errors).toEqual([{ path: '/ops/0/args/cmd/0', message: 'unknown op id "nope"' }]);
  });

  it('rejects a literal naming a result the op does not declare', () => {
    expect(check([producer, run('b', { cmd: 'echo %%ops.setter.results.other%%' }, { group: 'main' })]).errors).toEqual([
      { path: '/ops/1/args/cmd', message: '%%ops.setter.results.other%%: op "setter" has no result "other"' },
    ]);
  });

  it('rejects a results literal of an op in the same stage, since results are known only once its stage is done', () => {
    expect(check([producer, run('b', { cmd: '%%ops.setter.results.value%%' }, { group: 'pre' })]).errors[0].message).toMatch(
      /results of op "setter" are known only once its stage is done, so it must run in an earlier stage/,
    );
  });

  it('rejects unknown literal names and suggests "global" for "globals"', () => {
    expect(check([run('a', { env: { A: '%%global.project%%', B: '%%globals.host%%', C: '%%ops.a.port%%' } })]).errors).toEqual([
      { path: '/ops/0/args/env/A', message: expect.stringMatching(/^%%global.project%%: unknown literal; supported: /) },
      { path: '/ops/0/args/env/B', message: '%%globals.host%%: unknown literal; use "%%global.host%%" ("global", not "globals")' },
      { path: '/ops/0/args/env/C', message: expect.stringMatching(/^%%ops.a.port%%: unknown literal; supported: /) },
    ]);
  });

  it('rejects a variable that global.variables does not define', () => {
    expect(check([run('a', { image: 'ollama:%%global.variables.TAG%%' })]).errors).toEqual([
      { path: '/ops/0/args/image', message: '%%global.variables.TAG%%: no variable "TAG" in global.variables' },
    ]);
  });

  it('rejects variables whose values use other variables or ops', () => {
    expect(check([run('a')], { global: { variables: { A: '%%global.variables.B%%', B: 'https://%%global.host%%' } } }).errors).toEqual([
      { path: '/global/variables/A', message: '%%global.variables.B%%: a variable may only use %%global.job%%, %%global.host%% or %%global.node%%' },
    ]);
  });

  it('rejects an env spread that is not one literal', () => {
    expect(check([run('a', { env: { __spread__: '{"A":"b"}' } })]).errors).toEqual([
      { path: '/ops/0/args/env/__spread__', message: expect.stringContaining('must be one literal') },
    ]);
  });

  it('leaves printf-style %% alone', () => {
    expect(check([run('a', { cmd: "printf '%%d%%s' 100%%" })]).valid).toBe(true);
  });
});

describe('ops list', () => {
  it('rejects an empty ops list', () => {
    expect(check([]).errors).toEqual([{ path: '/ops', message: 'must hold at least one op (or logistics.send for a confidential job)' }]);
  });

  it('accepts an empty ops list for a confidential job that fetches its ops', () => {
    expect(check([], { logistics: { send: { type: 'api', args: { endpoint: 'https://x' } } } }).valid).toBe(true);
  });
});

describe('validateOps', () => {
  it("rejects ids outside the list when the joined job's ids are given", () => {
    const ops = [run('bench', { env: { URL: 'http://%%ops.server.host%%' } }, { depends_on: ['serve'] })];
    expect(validateOps(ops, { externalOpIds: ['server'], pathPrefix: '/operation/ops' }).errors).toEqual([
      { path: '/operation/ops/0/execution/depends_on/0', message: 'unknown op id "serve"' },
    ]);
  });

  it('reports shape errors with the path prefix', () => {
    expect(validateOps([{ type: 'container/run', id: 'x', args: {} }], { pathPrefix: '/ops' }).errors).toEqual([
      { path: '/ops/0/args', message: 'missing required member "image"' },
    ]);
    expect(validateOps({}).errors).toEqual([{ path: '', message: 'must be an array' }]);
  });
});

describe('any input', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a number', 42],
    ['a string', 'job'],
    ['an array', [1, 2]],
    ['a huge string', 'x'.repeat(5_000_000)],
    ['a bigint', BigInt(1)],
  ])('answers, without throwing, for %s', (_kind, input) => {
    expect(validate(input)).toEqual({ valid: false, errors: [{ path: '', message: 'must be an object' }], warnings: [] });
  });

  it('answers for deeply nested JSON in free-form members', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const check = { type: 'http', path: '/', method: 'GET', expected_status: 200, continuous: true, body: deep };
    const result = validate(job([run('a', { expose: { port: 80, health_checks: [check] } })], { meta: { deep } }));
    expect(result.valid).toBe(true);
  });

  it('answers for a cycle in a free-form member', () => {
    const body: Loose = {};
    body['self'] = body;
    const check = { type: 'http', path: '/', method: 'GET', expected_status: 200, continuous: true, body };
    expect(validate(job([run('a', { expose: { port: 80, health_checks: [check] } })])).valid).toBe(true);
  });

  it('reports the errors of every op of a long list', () => {
    const ops = Array.from({ length: 2000 }, (_, i) => ({ type: 'container/run', id: `op-${i}`, args: {} }));
    const result = validate(job(ops));
    expect(result.errors).toHaveLength(2001);
    expect(result.errors[0]).toEqual({ path: '/ops', message: 'must hold at most 1000 item(s)' });
    expect(result.errors[2000]).toEqual({ path: '/ops/1999/args', message: 'missing required member "image"' });
  });

  it('answers for a huge regex, refusing it by length', () => {
    const result = check([run('a', {}, undefined, { results: { r: '('.repeat(100_000) } })]);
    expect(result.errors).toEqual([{ path: '/ops/0/results/r', message: 'must be at most 4096 characters' }]);
  });
});

describe('definitions that could never start', () => {
  it('refuses an env value over 128 KiB and an env over 1 MiB, naming the field and the limit', () => {
    const big = 'x'.repeat(200 * 1024);
    expect(check([run('a', { env: { BIG: big, OK: 'y' } })]).errors).toEqual([
      { path: '/ops/0/args/env/BIG', message: expect.stringContaining('over the limit of 131072 bytes (128 KiB) for one env value') },
    ]);
    const many = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`V${i}`, 'x'.repeat(120 * 1024)]));
    expect(check([run('a', { env: many })]).errors).toEqual([{ path: '/ops/0/args/env', message: expect.stringContaining('over the limit of 1048576 bytes (1 MiB)') }]);
  });

  it('refuses volumes at /, /proc, /sys, /dev and below, however written, and two mounts at one place', () => {
    const mounts = ['/', '/proc', '/sys/fs', '//dev/shm/', '/x/../proc/1', '/data', '/data/'].map((dest) => ({ name: 'v', dest }));
    const ops = [volume('mk', 'v'), run('a', { volumes: mounts }, { depends_on: ['mk'] })];
    expect(check(ops).errors.map((e) => e.path)).toEqual([0, 1, 2, 3, 4, 6].map((i) => `/ops/1/args/volumes/${i}/dest`));
    expect(check(ops).errors[0].message).toContain('cannot be "/"');
    expect(check(ops).errors[1].message).toContain('nothing may be mounted at /proc or below');
  });

  it('refuses a group name longer than a node may report', () => {
    expect(check([run('a', {}, { group: 'g'.repeat(10_000) })]).errors).toEqual([{ path: '/ops/0/execution/group', message: expect.stringContaining('200') }]);
  });
});

describe('a list of resources on its own', () => {
  it('accepts the items an op takes and names a bad item by its place in the list', () => {
    expect(validateResources([{ type: 'HF', repo: 'org/model', target: '/models' }]).errors).toEqual([]);
    const checked = validateResources([
      { type: 'HF', repo: 'org/model', target: '/models' },
      { type: 'HF', target: '/models' },
    ]);
    expect(checked.valid).toBe(false);
    expect(checked.errors.length).toBeGreaterThan(0);
    expect(checked.errors.every((e) => e.path.startsWith('/1'))).toBe(true);
  });
});
