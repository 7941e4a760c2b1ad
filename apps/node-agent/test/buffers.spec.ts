/** The pure pieces: bounded logs, result capture, host rules. */
import { LogBuffer, MAX_LINE_CHARS } from '../src/executor/log-buffer';
import { MAX_VALUES_PER_RESULT, ResultExtractor } from '../src/executor/results';
import { parseHost } from '../src/ingress/host-rules';

describe('LogBuffer', () => {
  it('keeps only the last lines when more arrive than it may hold', () => {
    const logs = new LogBuffer(3, 1024 * 1024);
    for (let i = 1; i <= 5; i++) logs.push('stdout', `line ${i}`);
    expect(logs.lines().map((l) => l.text)).toEqual(['line 3', 'line 4', 'line 5']);
    expect(logs.lines().map((l) => l.seq)).toEqual([3, 4, 5]);
  });

  it('drops the oldest lines when the byte budget is exceeded', () => {
    const logs = new LogBuffer(1000, 3 * (100 + 48));
    for (let i = 0; i < 10; i++) logs.push('stdout', `${i}`.repeat(100));
    expect(logs.lines().map((l) => l.text[0])).toEqual(['7', '8', '9']);
  });

  it("numbers an adopted op's lines from where its log was, and only before the first line", () => {
    const adopted = new LogBuffer(10, 1024);
    adopted.continueAt(7);
    expect(adopted.firstSeq).toBe(7);
    expect(adopted.lastSeq).toBe(6);
    adopted.push('stdout', 'a');
    adopted.continueAt(40); // too late: the numbering has begun
    adopted.push('stdout', 'b');
    expect(adopted.lines().map((l) => l.seq)).toEqual([7, 8]);
    expect(adopted.after(7, 10).map((l) => l.text)).toEqual(['b']);
    for (const seq of [0, 1, -3, 2.5, Number.NaN]) {
      const fresh = new LogBuffer(10, 1024);
      fresh.continueAt(seq);
      expect(fresh.push('stdout', 'x').seq).toBe(1);
    }
  });

  it('hands new lines to followers and tells them when the op ended', () => {
    const logs = new LogBuffer(10, 1024);
    const seen: string[] = [];
    let ended = false;
    logs.follow(
      (l) => seen.push(l.text),
      () => (ended = true),
    );
    logs.push('stderr', 'a');
    logs.close();
    expect(seen).toEqual(['a']);
    expect(ended).toBe(true);
  });
});

describe('ResultExtractor', () => {
  it('captures the first group per match, only from the named streams, and nothing for a regex that does not compile', () => {
    const r = new ResultExtractor({ n: { regex: 'v=(\\d+)', logType: ['stdout'] }, bad: { regex: '\\', logType: ['stdout'] } });
    r.feed('stdout', 'v=1 v=2');
    r.feed('stderr', 'v=3');
    expect(r.snapshot()).toEqual({ n: ['1', '2'], bad: [] });
    expect(r.forLiterals()).toEqual({ n: ['1', '2'] });
  });

  it('stops keeping values past the limit', () => {
    const r = new ResultExtractor({ x: { regex: 'x', logType: ['stdout'] } });
    r.feed('stdout', 'x'.repeat(MAX_VALUES_PER_RESULT + 5));
    expect(r.snapshot().x).toHaveLength(MAX_VALUES_PER_RESULT);
  });

  it('runs a pathological regex over a long line in linear time (RE2), not for seconds', () => {
    const r = new ResultExtractor({ slow: { regex: 'a*a*a*a*a*a*a*a*b', logType: ['stdout'] }, group: { regex: '(x+x+)+y', logType: ['stdout'] } });
    const started = performance.now();
    for (let i = 0; i < 3; i++) r.feed('stdout', 'a'.repeat(16 * 1024));
    r.feed('stdout', 'x'.repeat(16 * 1024));
    // A backtracking engine takes far beyond a minute on these lines; RE2 takes milliseconds (bound generous for a busy CI).
    expect(performance.now() - started).toBeLessThan(2000);
    expect(r.snapshot()).toEqual({ slow: [], group: [] });
  });

  it('reads a line longer than the log buffer keeps only as far as the buffer does', () => {
    const r = new ResultExtractor({ tail: { regex: 'END', logType: ['stdout'] } });
    r.feed('stdout', `${'.'.repeat(MAX_LINE_CHARS)}END`);
    expect(r.snapshot().tail).toEqual([]);
  });
});

describe('parseHost', () => {
  it('reads the job, port and op index from the first label, ignoring case and the port of the Host header', () => {
    expect(parseHost('AbC-8080.node.example:443', undefined)).toEqual({ kind: 'job', job: 'abc', rest: ['8080'] });
    expect(parseHost('abc-1-8080.node.example', undefined)).toEqual({ kind: 'job', job: 'abc', rest: ['1', '8080'] });
    expect(parseHost('abc.node.example', undefined)).toEqual({ kind: 'job', job: 'abc', rest: [] });
  });

  it('routes the node address to the node API and an empty host nowhere', () => {
    expect(parseHost('NodeAddr.node.example', 'nodeaddr')).toEqual({ kind: 'node-api' });
    expect(parseHost(undefined, 'nodeaddr')).toEqual({ kind: 'none' });
  });
});
