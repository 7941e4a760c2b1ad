import { validate, validateOps } from '../src';
import { didYouMean } from '../src/text';
import { job, run } from './helpers';

type Loose = Record<string, unknown>;
const check = (ops: Loose[], extra?: Loose) => validate(job(ops, extra));

describe('suggestions', () => {
  it('suggests a candidate closer than a third of the word, ignoring case, the first of equals', () => {
    expect(didYouMean('abc', ['abd'])).toBe('; did you mean "abd"?');
    expect(didYouMean('abcdef', ['abcxyf'])).toBe('; did you mean "abcxyf"?');
    expect(didYouMean('abcdef', ['abcxyz'])).toBe('');
    expect(didYouMean('ab', ['ba'])).toBe('');
    expect(didYouMean('GPU', ['gpu'])).toBe('; did you mean "gpu"?');
    expect(didYouMean('colour', ['color'])).toBe('; did you mean "color"?');
    expect(didYouMean('color', ['colour'])).toBe('; did you mean "colour"?');
    expect(didYouMean('xabcdef', ['abcdef'])).toBe('; did you mean "abcdef"?');
    expect(didYouMean('abcdef', ['xabcdef'])).toBe('; did you mean "xabcdef"?');
    expect(didYouMean('emd', ['cmd', 'env'])).toBe('; did you mean "cmd"?');
    expect(didYouMean('abcdefgh', ['abcdefzz', 'abcdefgz'])).toBe('; did you mean "abcdefgz"?');
    expect(didYouMean('abcdefgh', ['zzzzzzzz'])).toBe('');
  });

  it('suggests for words up to 64 characters only', () => {
    const id = 'a'.repeat(63);
    expect(didYouMean(`${id}x`, [id])).toBe(`; did you mean "${id}"?`);
    expect(didYouMean(`${id}xy`, [id])).toBe('');
  });

  it('looks at the first 100 candidates only', () => {
    const candidates = Array.from({ length: 150 }, (_, i) => `op-${i}`);
    expect(didYouMean('op-149x', candidates)).toBe('; did you mean "op-14"?');
    expect(didYouMean('op-99x', candidates)).toBe('; did you mean "op-99"?');
  });

  it('suggests an op id in a reference', () => {
    expect(check([run('server'), run('b', {}, { depends_on: ['servr'] })]).errors).toEqual([
      { path: '/ops/1/execution/depends_on/0', message: 'unknown op id "servr"; did you mean "server"?' },
    ]);
  });
});

describe('dependencies in one stage', () => {
  const g = (id: string, dependsOn: string[] = [], args: Loose = {}) => run(id, args, { group: 'g', depends_on: dependsOn });

  it('accepts a diamond, which has no cycle', () => {
    expect(check([g('a'), g('b', ['a']), g('c', ['a']), g('d', ['b', 'c'])])).toEqual({ valid: true, errors: [], warnings: [] });
    expect(check([g('d', ['b', 'c']), g('b', ['a']), g('c', ['a']), g('a')])).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('reports a cycle of two, and a cycle reached through a tail once, from its first op', () => {
    expect(check([g('a', ['b']), g('b', ['a'])]).errors).toEqual([{ path: '/ops/0/execution/depends_on/0', message: 'dependency cycle: a -> b -> a' }]);
    expect(check([g('t', ['b']), g('a', ['c']), g('b', ['a']), g('c', ['b'])]).errors).toEqual([
      { path: '/ops/1/execution/depends_on/0', message: 'dependency cycle: a -> c -> b -> a' },
    ]);
  });

  it('reports the shortest cycle through the first op of a tangle', () => {
    const ops = [g('a', ['b']), g('b', ['c', 'a']), g('c', ['a', 'd']), g('d', ['c'])];
    expect(check(ops).errors).toEqual([{ path: '/ops/0/execution/depends_on/0', message: 'dependency cycle: a -> b -> a' }]);
    const longer = [g('a', ['b']), g('b', ['c']), g('c', ['d', 'a']), g('d', ['b'])];
    expect(check(longer).errors).toEqual([{ path: '/ops/0/execution/depends_on/0', message: 'dependency cycle: a -> b -> c -> a' }]);
  });

  it('does not warn about stop_if_dependent_stops when the op depends on one of its stage', () => {
    expect(check([g('a'), run('b', {}, { group: 'g', depends_on: ['a'], stop_if_dependent_stops: true })]).warnings).toEqual([]);
  });
});

describe('dependencies across stages', () => {
  const stopping = (on: string) => run('svc', {}, { group: 'two', depends_on: [on], stop_if_dependent_stops: true });

  it('warns that stopping with an ended op stops at once only when that op exposes no port', () => {
    const warning = {
      path: '/ops/1/execution/depends_on/0',
      message: 'op "one" has ended before this op starts (earlier stage, no exposed ports), so stop_if_dependent_stops stops this op at once',
    };
    expect(check([run('one', { expose: [] }, { group: 'one' }), stopping('one')]).warnings).toEqual([warning]);
    expect(check([run('one', {}, { group: 'one' }), stopping('one')]).warnings).toEqual([warning]);
    expect(check([run('one', { expose: null }, { group: 'one' }), stopping('one')]).warnings).toEqual([warning]);
    expect(check([run('one', { expose: 80 }, { group: 'one' }), stopping('one')]).warnings).toEqual([]);
    expect(check([run('one', { expose: [80] }, { group: 'one' }), stopping('one')]).warnings).toEqual([]);
    expect(check([run('one', {}, { group: 'one' }), run('svc', {}, { group: 'two', depends_on: ['one'] })]).warnings).toEqual([]);
  });

  it('resolves a duplicated id to its first op', () => {
    const ops = [run('a', {}, { group: 'one' }), run('b', {}, { group: 'two', depends_on: ['a'] }), run('a', {}, { group: 'three' })];
    expect(check(ops).errors).toEqual([{ path: '/ops/2/id', message: 'duplicate op id "a": already used by /ops/0' }]);
  });

  it('names stages by group, or as a stage of its own, in order of first appearance', () => {
    const ops = [run('x', {}, { group: 'one', depends_on: ['z'] }), run('y', {}, { group: 'two' }), run('z', {}, { group: 'one' })];
    expect(check(ops).errors).toEqual([]);
    const later = [run('x', {}, { group: 'one', depends_on: ['y'] }), run('y'), run('w', {}, { group: 'one' })];
    expect(check(later).errors).toEqual([
      { path: '/ops/0/execution/depends_on/0', message: 'op "y" runs in a later stage (a stage of its own); depend only on ops of the same or an earlier stage' },
    ]);
  });

  it('reads only string ids from depends lists', () => {
    expect(check([run('a'), run('b', {}, { depends_on: [1, 'a'] })]).errors).toEqual([{ path: '/ops/1/execution/depends_on/0', message: 'must be a string' }]);
  });
});

describe('empty op lists', () => {
  it('refuses an empty list when the job only receives', () => {
    expect(check([], { logistics: { receive: { type: 'api', args: {} } } }).errors).toEqual([
      { path: '/ops', message: 'must hold at least one op (or logistics.send for a confidential job)' },
    ]);
  });
});

describe('limits of a startable op', () => {
  const env = (entries: Record<string, string>) => check([run('a', { env: entries })]).errors;

  it('takes an env value of exactly 128 KiB and refuses one byte more, counting bytes, not characters', () => {
    expect(env({ A: 'x'.repeat(131072) })).toEqual([]);
    expect(env({ A: 'x'.repeat(131073) })).toEqual([{ path: '/ops/0/args/env/A', message: 'is 131073 bytes, over the limit of 131072 bytes (128 KiB) for one env value' }]);
    expect(env({ A: 'é'.repeat(65537) })).toEqual([{ path: '/ops/0/args/env/A', message: 'is 131074 bytes, over the limit of 131072 bytes (128 KiB) for one env value' }]);
  });

  it('counts each name, value and two more bytes towards the 1 MiB of a whole env', () => {
    const full: Record<string, string> = {};
    for (let i = 0; i < 7; i++) full[`A${i}`] = 'x'.repeat(131072);
    full['B0'] = 'x'.repeat(131040);
    expect(env(full)).toEqual([]);
    full['B0'] += 'x';
    expect(env(full)).toEqual([{ path: '/ops/0/args/env', message: "is 1048577 bytes, over the limit of 1048576 bytes (1 MiB) for an op's whole env" }]);
  });

  it('refuses system mount points and their insides, not names that only start alike', () => {
    const dests = ['/dev', '/system', '/devices', '/procfs', '/sys/kernel', '/data//', '/data'];
    const ops = [{ type: 'container/create-volume', id: 'mk', args: { name: 'v' } }, run('a', { volumes: dests.map((dest) => ({ name: 'v', dest })) }, { depends_on: ['mk'] })];
    expect(check(ops).errors).toEqual([
      { path: '/ops/1/args/volumes/0/dest', message: '"/dev" is refused: nothing may be mounted at /dev or below (the container\'s kernel and device filesystems)' },
      { path: '/ops/1/args/volumes/4/dest', message: '"/sys/kernel" is refused: nothing may be mounted at /sys or below (the container\'s kernel and device filesystems)' },
      { path: '/ops/1/args/volumes/6/dest', message: '"/data" is already mounted by /ops/1/args/volumes/5/dest: Docker refuses two mounts at one destination' },
    ]);
  });

  it('reads mounts and env of any shape without failing', () => {
    expect(check([run('a', { volumes: [null, 'v'], resources: [null], env: null })]).errors).toEqual([
      { path: '/ops/0/args/env', message: 'must be an object' },
      { path: '/ops/0/args/resources/0', message: 'must be a resource object, a {"__spread__"} marker or "__remove-if-empty__"' },
      { path: '/ops/0/args/volumes/0', message: 'must be an object' },
      { path: '/ops/0/args/volumes/1', message: 'must be an object' },
    ]);
    expect(check([{ type: 'container/run', id: 'a' }]).errors).toEqual([{ path: '/ops/0', message: 'missing required member "args"' }]);
  });

  it('counts resource targets as mounts too, and leaves create-volume ops alone', () => {
    const resources = [
      { type: 'HF', repo: 'o/m', target: '/models/' },
      { type: 'S3', url: 's3://b', target: '/models' },
    ];
    expect(check([run('a', { resources })]).errors).toEqual([
      { path: '/ops/0/args/resources/1/target', message: '"/models" is already mounted by /ops/0/args/resources/0/target: Docker refuses two mounts at one destination' },
    ]);
    expect(check([{ type: 'container/create-volume', id: 'v', args: { name: 'd', volumes: [{ name: 'd', dest: '/' }] } }])).toEqual({
      valid: false,
      errors: [{ path: '/ops/0/args/volumes', message: 'unknown member "volumes"' }],
      warnings: [],
    });
  });
});

describe('literals and regexes in detail', () => {
  it('finds literals at any depth and names them by an escaped pointer', () => {
    const check1 = { type: 'http', path: '/', method: 'GET', expected_status: 200, continuous: true, headers: { 'X-A': '%%ops.gone.host%%' } };
    const args = {
      env: { 'a/b': '%%ops.gone.host%%' },
      expose: [{ port: 80, health_checks: [check1] }],
      resources: [{ type: 'HF', repo: 'o/m', target: '/m', files: ['x', '%%ops.gone.host%%'] }],
    };
    expect(check([run('a', args)]).errors.map((e) => e.path)).toEqual([
      '/ops/0/args/env/a~1b',
      '/ops/0/args/expose/0/health_checks/0/headers/X-A',
      '/ops/0/args/resources/0/files/1',
    ]);
  });

  it('lets variables use node-time globals only, and leaves variables unknown to a list of ops', () => {
    expect(check([run('a')], { global: { variables: { A: 'http://%%global.host%%/%%global.job%%' } } }).errors).toEqual([]);
    expect(validateOpsErrors([run('a', { env: { M: '%%global.variables.MODEL%%' } })])).toEqual([]);
  });

  it('takes a spread env that is one literal', () => {
    const ops = [run('s', {}, { group: 'one' }, { results: { e: 'e' } }), run('a', { env: { __spread__: '%%ops.s.results.e%%' } }, { group: 'two' })];
    expect(check(ops)).toEqual({ valid: true, errors: [], warnings: [] });
  });

  it('refuses a result literal of an op without results', () => {
    expect(check([run('s', {}, { group: 'one' }), run('a', { cmd: '%%ops.s.results.x%%' }, { group: 'two' })]).errors).toEqual([
      { path: '/ops/1/args/cmd', message: '%%ops.s.results.x%%: op "s" has no result "x"' },
    ]);
  });

  it('compiles a regex of the longest length allowed', () => {
    expect(check([run('a', {}, undefined, { results: { r: `(${'a'.repeat(4095)}` } })]).errors).toEqual([
      { path: '/ops/0/results/r', message: expect.stringMatching(/^does not compile: /) },
    ]);
  });

  it('reads an op without type as a run op unless its args look like a volume', () => {
    expect(check([{ id: 'a', args: { image: 'x' } }]).errors).toEqual([{ path: '/ops/0', message: 'missing required member "type"' }]);
    expect(check([{ id: 'a', args: { image: 'x', name: 'd' } }]).errors).toEqual([
      { path: '/ops/0', message: 'missing required member "type"' },
      { path: '/ops/0/args/name', message: 'unknown member "name"' },
    ]);
  });

  it('refuses a resource type that is an object prototype name', () => {
    expect(check([run('a', { resources: [{ type: 'constructor', target: '/x' }] })]).errors).toEqual([
      { path: '/ops/0/args/resources/0/type', message: 'must be "S3", "HF" or "Ollama"' },
    ]);
  });
});

function validateOpsErrors(ops: Loose[]) {
  return validateOps(ops).errors;
}

describe('ports and host names at their edges', () => {
  it('takes port text from 1 to 65535', () => {
    expect(check([run('a', { expose: ['1', '65535'] })]).errors).toEqual([]);
    expect(check([run('a', { expose: ['0', '65536'] })]).errors).toEqual([
      { path: '/ops/0/args/expose/0', message: 'port must be between 1 and 65535' },
      { path: '/ops/0/args/expose/1', message: 'port must be between 1 and 65535' },
    ]);
    expect(check([run('a', { expose: '99999' })]).errors).toEqual([{ path: '/ops/0/args/expose', message: 'port must be between 1 and 65535' }]);
  });

  it('lets an op use its own id as an alias, and compares host names without case', () => {
    expect(check([run('db', { aliases: ['DB', 'store'] })]).errors).toEqual([]);
    expect(check([run('a', { aliases: 'Cache' }), run('b', { aliases: 'cache' })]).errors).toEqual([
      { path: '/ops/1/args/aliases', message: 'host name "cache" already belongs to op "a" (/ops/0)' },
    ]);
  });
});

describe('cycles with ways out', () => {
  it('reports the cycle, not the op it also depends on', () => {
    const g = (id: string, dependsOn: string[] = []) => run(id, {}, { group: 'g', depends_on: dependsOn });
    expect(check([g('a', ['b']), g('b', ['x', 'c']), g('c', ['a']), g('x')]).errors).toEqual([
      { path: '/ops/0/execution/depends_on/0', message: 'dependency cycle: a -> b -> c -> a' },
    ]);
  });
});
