import { FINAL_STATES, InvalidTransitionError, JOB_STATES, allowedSources, assertTransition, canTransition, isFinal, type JobState } from '../src/jobs/state';

/** The whole table, written out: every pair not listed is refused. */
const ALLOWED: [JobState, JobState][] = [
  ['QUEUED', 'RUNNING'],
  ['QUEUED', 'STOPPED'],
  ['QUEUED', 'FAILED'],
  ['RUNNING', 'COMPLETED'],
  ['RUNNING', 'FAILED'],
  ['RUNNING', 'STOPPED'],
  ['RUNNING', 'QUEUED'],
];
const allowed = (from: JobState, to: JobState) => ALLOWED.some(([f, t]) => f === from && t === to);

describe('job state transitions', () => {
  it('knows the five states, three of them final', () => {
    expect(JOB_STATES).toEqual(['QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'STOPPED']);
    expect(FINAL_STATES).toEqual(['COMPLETED', 'FAILED', 'STOPPED']);
  });

  it('allows exactly the transitions of the table, and no other pair', () => {
    for (const from of JOB_STATES) {
      for (const to of JOB_STATES) expect([from, to, canTransition(from, to)]).toEqual([from, to, allowed(from, to)]);
    }
  });

  it('calls final exactly the states nothing leaves: never a queued or running job', () => {
    expect(isFinal('QUEUED')).toBe(false);
    expect(isFinal('RUNNING')).toBe(false);
    for (const final of ['COMPLETED', 'FAILED', 'STOPPED'] as const) expect(isFinal(final)).toBe(true);
  });

  it('names the states a job may move from, for the guarded UPDATEs', () => {
    expect(allowedSources('RUNNING')).toEqual(['QUEUED']);
    expect(allowedSources('QUEUED')).toEqual(['RUNNING']);
    expect(allowedSources('COMPLETED')).toEqual(['RUNNING']);
    expect(allowedSources('FAILED')).toEqual(['QUEUED', 'RUNNING']);
    expect(allowedSources('STOPPED')).toEqual(['QUEUED', 'RUNNING']);
  });

  it('refuses a completed job becoming running with a clear, typed error', () => {
    expect(() => assertTransition('COMPLETED', 'RUNNING')).toThrow('a COMPLETED job cannot become RUNNING');
    let thrown: unknown;
    try {
      assertTransition('STOPPED', 'QUEUED');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(InvalidTransitionError);
    expect(thrown).toMatchObject({ name: 'InvalidTransitionError', from: 'STOPPED', to: 'QUEUED', message: 'a STOPPED job cannot become QUEUED' });
  });

  it('lets every allowed transition pass', () => {
    for (const [from, to] of ALLOWED) expect(() => assertTransition(from, to)).not.toThrow();
  });
});
