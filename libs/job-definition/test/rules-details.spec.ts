import { validate } from '../src';
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
