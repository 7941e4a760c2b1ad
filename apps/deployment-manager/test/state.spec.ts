import { JOB_STATES, allowedSources, assertTransition, canTransition, isFinal } from '../src/jobs/state';

describe('job state transitions', () => {
  it('lets a queued job be claimed, stopped or failed', () => {
    expect(allowedSources('RUNNING')).toEqual(['QUEUED']);
    expect(canTransition('QUEUED', 'STOPPED')).toBe(true);
    expect(canTransition('QUEUED', 'FAILED')).toBe(true);
  });

  it('lets a running job complete, fail or stop, or go back to the queue (a claim never acknowledged)', () => {
    expect(canTransition('RUNNING', 'COMPLETED')).toBe(true);
    expect(canTransition('RUNNING', 'FAILED')).toBe(true);
    expect(canTransition('RUNNING', 'STOPPED')).toBe(true);
    expect(allowedSources('QUEUED')).toEqual(['RUNNING']);
  });

  it('never moves a final job', () => {
    for (const final of ['COMPLETED', 'FAILED', 'STOPPED'] as const) {
      expect(isFinal(final)).toBe(true);
      for (const to of JOB_STATES) expect(canTransition(final, to)).toBe(false);
    }
  });

  it('refuses a completed job becoming running with a clear message', () => {
    expect(() => assertTransition('COMPLETED', 'RUNNING')).toThrow('a COMPLETED job cannot become RUNNING');
  });

  it('never completes a job that was not running', () => {
    expect(allowedSources('COMPLETED')).toEqual(['RUNNING']);
  });
});
