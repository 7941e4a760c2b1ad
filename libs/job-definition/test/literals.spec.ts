import { findLiterals, replaceLiterals, wholeLiteral, type LiteralRef } from '../src/literals';

const SUPPORTED = 'supported: %%ops.<id>.host%%, %%ops.<id>.results.<name>%%, %%global.job%%, %%global.host%%, %%global.node%%, %%global.variables.<name>%%';
const unsupported: LiteralRef = { kind: 'invalid', reason: SUPPORTED };
const refOf = (body: string): LiteralRef | undefined => wholeLiteral(`%%${body}%%`)?.ref;

// Literal parses are memoized per process: this file's first test is the first to parse each form,
// so it is the one that sees the parser itself.
describe('literal parsing', () => {
  it('reads each supported form and refuses every near miss', () => {
    expect(['ops.a.host', 'ops.a.results.r', 'global.job', 'global.host', 'global.node', 'global.variables.M'].map(refOf)).toEqual([
      { kind: 'opHost', op: 'a' },
      { kind: 'opResult', op: 'a', result: 'r' },
      { kind: 'global', name: 'job' },
      { kind: 'global', name: 'host' },
      { kind: 'global', name: 'node' },
      { kind: 'variable', name: 'M' },
    ]);
    const nearMisses = [
      'ops.',
      'ops.a',
      'ops..host',
      'ops.a.host.x',
      'ops.a.hosts',
      'ops.a.results',
      'ops.a.results.',
      'ops..results.r',
      'ops.a.results.r.x',
      'ops.a.result.r',
      'global.',
      'global.job.x',
      'global.jobs',
      'global.variables',
      'global.variables.',
      'global.variables.a.b',
      'global.variable.M',
      'global.host.variables',
    ];
    for (const body of nearMisses) expect([body, refOf(body)]).toEqual([body, unsupported]);
    expect(refOf('globals.host')).toEqual({ kind: 'invalid', reason: 'use "%%global.host%%" ("global", not "globals")' });
    expect(refOf('globals.variables.M')).toEqual({ kind: 'invalid', reason: 'use "%%global.variables.M%%" ("global", not "globals")' });
  });

  it('finds literals inside text, by their ops/global/globals prefix only', () => {
    const found = findLiterals('a %%ops.x.host%%:%%global.job%% 100%% %%globals.node%% %%ops.%% %%other.x%% %%global%% %%ops.a b%%');
    expect(found.map((m) => m.raw)).toEqual(['%%ops.x.host%%', '%%global.job%%', '%%globals.node%%', '%%ops.%%']);
    expect(findLiterals('plain text')).toEqual([]);
    // the shared regex restarts for every text
    expect(findLiterals('%%global.node%%').map((m) => m.raw)).toEqual(['%%global.node%%']);
  });

  it('takes a whole literal only when nothing surrounds it', () => {
    expect(wholeLiteral('%%global.job%%')).toEqual({ raw: '%%global.job%%', ref: { kind: 'global', name: 'job' } });
    for (const text of ['x%%global.job%%', '%%global.job%%x', '%%global.job%% ', '%%global.job%%%%global.node%%', '%%other.a%%']) {
      expect([text, wholeLiteral(text)]).toEqual([text, undefined]);
    }
  });

  it('replaces the literals the callback answers and keeps the others as written', () => {
    const text = 'http://%%ops.db.host%%:%%global.variables.PORT%%/%%global.job%%';
    const out = replaceLiterals(text, (ref) => (ref.kind === 'opHost' ? ref.op : ref.kind === 'variable' ? '5432' : undefined));
    expect(out).toBe('http://db:5432/%%global.job%%');
    expect(replaceLiterals('no literal', () => 'x')).toBe('no literal');
  });
});
