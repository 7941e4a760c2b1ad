import { normalize, validate, type JobDefinition, type NormalizedRunOp } from '../src';
import { job, loadExample, run, volume } from './helpers';

type Loose = Record<string, unknown>;

function normalized(ops: Loose[], extra?: Loose) {
  const definition = job(ops, extra) as unknown as JobDefinition;
  expect(validate(definition).errors).toEqual([]);
  return normalize(definition);
}
const firstRun = (ops: Loose[], extra?: Loose) => normalized(ops, extra).ops[0] as NormalizedRunOp;

describe('normalize', () => {
  it('fills every default of a minimal op', () => {
    const result = normalized([run('a')]);
    expect(result).toEqual({
      version: '0.1',
      type: 'container',
      meta: {},
      global: { variables: {} },
      ops: [
        {
          type: 'container/run',
          id: 'a',
          args: {
            image: 'ubuntu',
            aliases: [],
            cmd: null,
            entrypoint: null,
            env: {},
            gpu: false,
            work_dir: null,
            volumes: [],
            private: false,
            expose: [],
            restart_policy: { policy: 'no', maxRetries: null },
            resources: [],
            authentication: null,
          },
          results: {},
          execution: { group: null, depends_on: [], timeout: null, stop_if_dependent_stops: false },
        },
      ],
    });
  });

  it('turns every expose form into {port, type, health_checks}', () => {
    const check = { type: 'http', path: '/', method: 'GET', expected_status: 200, continuous: true };
    const op = firstRun([run('a', { expose: [80, '81', { port: 82, type: 'web', health_checks: [check] }, { __spread__: '%%global.variables.E%%' }] })], {
      global: { variables: { E: '[]' } },
    });
    expect(op.args.expose).toEqual([
      { port: 80, type: 'api', health_checks: [] },
      { port: 81, type: 'api', health_checks: [] },
      { port: 82, type: 'web', health_checks: [{ ...check, headers: {} }] },
      { __spread__: '%%global.variables.E%%', chunked: false },
    ]);
    expect(firstRun([run('a', { expose: 8080 })]).args.expose).toEqual([{ port: 8080, type: 'api', health_checks: [] }]);
  });

  it('runs a string cmd or entrypoint through /bin/sh -c, as a Dockerfile shell form does', () => {
    const op = firstRun([run('a', { cmd: 'echo hello world', entrypoint: 'run.sh', aliases: 'db' })]);
    expect(op.args.cmd).toEqual(['/bin/sh', '-c', 'echo hello world']);
    expect(op.args.entrypoint).toEqual(['/bin/sh', '-c', 'run.sh']);
    expect(op.args.aliases).toEqual(['db']);
    expect(firstRun([run('a', { cmd: [] })]).args.cmd).toEqual([]);
  });

  it('maps restart policies to {policy, maxRetries}', () => {
    expect(firstRun([run('a', { restart_policy: 'always' })]).args.restart_policy).toEqual({ policy: 'always', maxRetries: null });
    const tries = { policy: 'on-failure', restart_tries: 3 };
    expect(firstRun([run('a', { restart_policy: tries })]).args.restart_policy).toEqual({ policy: 'on-failure', maxRetries: 3 });
    expect(firstRun([run('a', { restart_policy: { policy: 'on-failure' } })]).args.restart_policy).toEqual({ policy: 'on-failure', maxRetries: null });
  });

  it('merges args.depends into execution.depends_on without repeats and drops it from args', () => {
    const ops = [run('x', {}, { group: 'g' }), run('y', {}, { group: 'g' }), run('a', { depends: ['y', 'x'] }, { group: 'g', depends_on: ['x'] })];
    const op = normalized(ops).ops[2] as NormalizedRunOp;
    expect(op.execution.depends_on).toEqual(['x', 'y']);
    expect(op.args).not.toHaveProperty('depends');
  });

  it('gives bare-string results the stdout and stderr streams', () => {
    const op = firstRun([run('a', {}, undefined, { results: { r: 'x(.*)', s: { regex: 'y', logType: ['nodeerr'] } } })]);
    expect(op.results).toEqual({ r: { regex: 'x(.*)', logType: ['stdout', 'stderr'] }, s: { regex: 'y', logType: ['nodeerr'] } });
  });

  it('resolves op host names and variables, and leaves node-time literals', () => {
    const ops = [
      run('setter', {}, { group: 'pre' }, { results: { v: 'v: (.*)' } }),
      run('a', { env: { U: 'http://%%ops.setter.host%%:80/%%global.variables.M%%', J: '%%global.job%%', R: '%%ops.setter.results.v%%' } }, { group: 'main' }),
    ];
    const op = normalized(ops, { global: { variables: { M: 'gemma' } } }).ops[1] as NormalizedRunOp;
    expect(op.args.env).toEqual({ U: 'http://setter:80/gemma', J: '%%global.job%%', R: '%%ops.setter.results.v%%' });
  });

  it('drops a __remove-if-empty__ list that is empty once nothing can change, and keeps one still waiting', () => {
    expect(firstRun([run('a', { entrypoint: ['__remove-if-empty__'], cmd: ['__remove-if-empty__', 'x'] })]).args).toMatchObject({ entrypoint: null, cmd: ['x'] });
    const waiting = ['__remove-if-empty__', '%%ops.s.results.e%%'];
    const ops = [run('s', {}, { group: 'one' }, { results: { e: 'e' } }), run('a', { entrypoint: waiting }, { group: 'two' })];
    expect((normalized(ops).ops[1] as NormalizedRunOp).args.entrypoint).toEqual(waiting);
  });

  it('keeps create-volume ops to their name', () => {
    expect(normalized([volume('v', 'data')]).ops[0]).toEqual({
      type: 'container/create-volume',
      id: 'v',
      args: { name: 'data' },
      results: {},
      execution: { group: null, depends_on: [], timeout: null, stop_if_dependent_stops: false },
    });
  });

  it('keeps meta, logistics and deployment_id', () => {
    const definition = loadExample<JobDefinition>('nosana-cli__job-examples__nginx.json');
    expect(normalize(definition)).toMatchObject({ meta: { trigger: 'cli' }, deployment_id: 'Deployment Id' });
    const confidential = loadExample<JobDefinition>('nosana-cli__job-examples__confidential.json');
    expect(normalize(confidential).logistics).toEqual(confidential.logistics);
  });

  it('keeps members named __proto__ as plain data', () => {
    const definition = JSON.parse(
      '{"version":"0.1","type":"container","ops":[{"type":"container/run","id":"a","args":{"image":"x","env":{"__proto__":"v"}},"results":{"__proto__":"r"}}]}',
    );
    const op = normalize(definition).ops[0] as NormalizedRunOp;
    expect(Object.keys(op.args.env)).toEqual(['__proto__']);
    expect(Object.keys(op.results)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(op.results)).toBe(Object.prototype);
  });

  it('does not change its input', () => {
    const definition = loadExample<JobDefinition>('nosana-cli__job-examples__job-literals.json');
    const copy = structuredClone(definition);
    normalize(definition);
    expect(definition).toEqual(copy);
  });

  it('is idempotent on the literal-heavy example', () => {
    const once = normalize(loadExample<JobDefinition>('nosana-cli__job-examples__job-literals.json'));
    expect(normalize(once)).toEqual(once);
  });
});
