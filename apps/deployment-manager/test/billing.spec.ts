import { allocate, billedSeconds } from '../src/jobs/settlement.service';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1) + s * 1000);

describe('what a job is charged', () => {
  it('charges every second begun, from start to end', () => {
    expect(billedSeconds({ started_at: at(0), finished_at: at(2.001), duration_seconds: 100 })).toBe(3);
    expect(billedSeconds({ started_at: at(0), finished_at: at(2), duration_seconds: 100 })).toBe(2);
  });

  it('never charges more than the paid duration, nor anything for a job that never started', () => {
    expect(billedSeconds({ started_at: at(0), finished_at: at(500), duration_seconds: 100 })).toBe(100);
    expect(billedSeconds({ started_at: null, finished_at: at(5), duration_seconds: 100 })).toBe(0);
  });

  it('charges nothing for a job that has not ended, nor for an end recorded before its start', () => {
    expect(billedSeconds({ started_at: at(0), finished_at: null, duration_seconds: 100 })).toBe(0);
    expect(billedSeconds({ started_at: at(10), finished_at: at(7), duration_seconds: 100 })).toBe(0);
  });

  it('takes the cost from the holds in order and leaves the rest of each to be released', () => {
    const holds = [
      { reference: 'a', amount: '2000', settle_amount: null },
      { reference: 'b', amount: '100000', settle_amount: null },
      { reference: 'c', amount: '5000', settle_amount: null },
    ];
    expect([...allocate(5000, holds)]).toEqual([
      ['a', 2000],
      ['b', 3000],
      ['c', 0],
    ]);
  });

  it('keeps a share already written, so a retried settlement captures the same amounts', () => {
    expect([
      ...allocate(5000, [
        { reference: 'a', amount: '9000', settle_amount: '4000' },
        { reference: 'b', amount: '9000', settle_amount: null },
      ]),
    ]).toEqual([
      ['a', 4000],
      ['b', 1000],
    ]);
  });
});
