/** The words a poster reads when an op fails or stops. Pure, so they stay consistent. */

export interface ExitFacts {
  code: number;
  restarts: number;
  oomKilled: boolean;
  memoryLimitBytes: number;
  engineError: string;
  /** The last lines the container wrote (stderr preferred). */
  lastOutput: string[];
  /** The op exposes ports and had not passed their startup checks yet. */
  beforeReady: boolean;
}

export function exitReason(f: ExitFacts): string | null {
  if (f.code === 0 && !f.beforeReady) return null;
  const parts = [`exited with code ${f.code}`];
  if (f.beforeReady) parts.push('before its exposed ports were ready (a wrapper script must keep running while its services run)');
  if (f.restarts > 0) parts.push(`after ${f.restarts} restart${f.restarts === 1 ? '' : 's'}`);
  if (f.oomKilled) parts.push(`(killed: out of memory, limit ${Math.round(f.memoryLimitBytes / 1024 / 1024)} MiB)`);
  let reason = parts.join(' ');
  if (f.engineError) reason += `: ${f.engineError}`;
  if (f.lastOutput.length > 0) reason += `; last output: ${f.lastOutput.join(' | ')}`;
  return reason;
}

export const reasons = {
  dependencyEnded: (dep: string, state: string, why: string | null) =>
    `dependency ${dep} ${state === 'completed' ? 'ended' : state} before it was released${why ? ` (${why})` : ''}`,
  dependentStopped: (dep: string) => `stopped because ${dep}, which it depends on, ended (stop_if_dependent_stops)`,
  timeout: (seconds: number) => `execution.timeout of ${seconds} s reached`,
  noGpu: () => 'gpu: true but this node has no GPU (no nvidia runtime in Docker; see NODE_GPUS): post it to a GPU market',
  resources: () => "this node cannot fetch args.resources: its resource cache could not be opened (RESOURCE_CACHE_DIR; the agent's log says why)",
  resourceFailed: (detail: string) => `a resource could not be fetched: ${detail}`,
  unresolved: (literals: string[]) => `literals still unresolved when the op was due to start: ${literals.join(', ')} (no such result was captured)`,
  startFailed: (detail: string) => `container could not start: ${detail}`,
  userStop: () => 'stopped through the node API',
  jobEnded: (why: string) => `stopped at the job's end (${why})`,
  removedOutside: () => 'its container was removed outside the agent',
};
