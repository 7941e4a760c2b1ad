/**
 * Preloaded into a service by `gateway-gc.ts` (NODE_OPTIONS `--import`; node
 * strips the types itself): a SIGUSR2 starts a measured window, the next one
 * ends it and writes `<PROBE_DIR>/<pid>.json` with the garbage collections
 * of the window (count, total and longest pause by kind) and the process's
 * CPU time. PROBE_HEAP=1 also writes `<pid>.heapprofile`: a sampling heap
 * profile of what was allocated in the window and outlived a young-generation
 * collection (what is still alive, and what only a full collection freed).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';

interface Pauses {
  n: number;
  ms: number;
  max: number;
}

const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak',
};

const dir = process.env.PROBE_DIR ?? '.';
let window: { gc: Record<string, Pauses>; cpu: NodeJS.CpuUsage; session?: Session } | undefined;

new PerformanceObserver((list) => {
  if (!window) return;
  for (const entry of list.getEntries() as Array<PerformanceEntry & { detail?: { kind?: number } }>) {
    const kind = KINDS[entry.detail?.kind ?? 0] ?? 'other';
    const pauses = (window.gc[kind] ??= { n: 0, ms: 0, max: 0 });
    pauses.n++;
    pauses.ms += entry.duration;
    pauses.max = Math.max(pauses.max, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });

process.on('SIGUSR2', () => {
  if (!window) {
    window = { gc: {}, cpu: process.cpuUsage() };
    if (process.env.PROBE_HEAP === '1') {
      const session = new Session();
      session.connect();
      session.post('HeapProfiler.enable');
      session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
      window.session = session;
    }
    return;
  }
  const { gc, cpu, session } = window;
  window = undefined;
  const used = process.cpuUsage(cpu);
  const write = () => writeFileSync(`${dir}/${process.pid}.json`, JSON.stringify({ gc, cpuUs: used.user + used.system }));
  if (!session) return write();
  session.post('HeapProfiler.stopSampling', (err, result) => {
    if (!err) writeFileSync(`${dir}/${process.pid}.heapprofile`, JSON.stringify(result.profile));
    session.disconnect();
    write();
  });
});
