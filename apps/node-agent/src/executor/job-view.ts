/** Read-only views of a running job: statuses, endpoints and their host names, results. */
import type { Reporter } from '../seam';
import type { JobRunner } from './job-runner';
import type { OpRunner } from './op-runner';
import type { OpPort } from './op-container';
import type { EndpointForwards } from '../docker/forwards';
import type { EndpointReport, EndpointStatus, JobResults, JobStatus, OpStatus } from './types';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function jobStatus(runner: JobRunner, domain: string): JobStatus {
  return {
    job: runner.job,
    state: runner.state,
    reason: runner.reason,
    startedAt: new Date(runner.startedAt).toISOString(),
    deadline: new Date(runner.deadline).toISOString(),
    endedAt: iso(runner.endedAt),
    currentStage: runner.endedAt ? null : runner.plan.stages[runner.reached].name,
    ops: runner.ops.map((op) => opStatus(runner, op, domain)),
  };
}

export function opStatus(runner: JobRunner, op: OpRunner, domain: string): OpStatus {
  return {
    id: op.id,
    group: op.group,
    stage: op.plan.stage,
    opIndex: op.plan.opIndex,
    type: op.def.type,
    state: op.state,
    exitCode: op.exitCode,
    reason: op.reason,
    restarts: op.restarts,
    startedAt: iso(op.startedAt),
    endedAt: iso(op.endedAt),
    endpoints: publicPorts(op).map((p) => endpointStatus(runner, op, p, domain)),
    ...(op.resources ? { activity: op.activity, resources: op.resources } : {}),
  };
}

function endpointStatus(runner: JobRunner, op: OpRunner, port: OpPort, domain: string): EndpointStatus {
  const monitor = op.monitors.find((m) => m.port === port.port);
  const host = endpointHost(runner, op, port.port);
  const live = !op.terminal && monitor !== undefined;
  return { port: port.port, type: port.type, host, url: `https://${host}.${domain}`, status: live && monitor.online ? 'ONLINE' : 'OFFLINE', ready: live && monitor.ready };
}

/** Ports reachable through the ingress: type `none` is health-checked but never public. */
export function publicPorts(op: OpRunner): OpPort[] {
  return op.ports.filter((p) => p.type !== 'none');
}

/** The secret label of a private op (`private: true`), as the control plane chose it ('' without one); undefined for other ops. */
export function privateLabel(op: OpRunner): string | undefined {
  return op.def.type === 'container/run' && op.def.args.private ? (op.def.args.private_label ?? '') : undefined;
}

/**
 * `<job>-<port>`, or `<job>-<opIndex>-<port>` when another op exposes the same
 * port. A private op's ports are only at `<job>-<its secret label>-<port>`,
 * which knowing the job does not reveal (without a label, at no host).
 */
export function endpointHost(runner: JobRunner, op: OpRunner, port: number): string {
  const secret = privateLabel(op);
  if (secret !== undefined) return `${runner.job}-${secret || 'private'}-${port}`;
  const shared = runner.ops.filter((o) => publicPorts(o).some((p) => p.port === port)).length > 1;
  return shared ? `${runner.job}-${op.plan.opIndex}-${port}` : `${runner.job}-${port}`;
}

type Found = { op: OpRunner; port: number } | undefined;

/** Every first label the ingress serves this endpoint at (`findEndpoint` decides), lowercase: the gateway routes each to its forward. */
export function endpointHosts(runner: JobRunner, op: OpRunner, port: number): string[] {
  const secret = privateLabel(op);
  const forms = secret ? [[secret], [secret, String(port)]] : [[], [String(port)], [String(op.plan.opIndex), String(port)]];
  const job = runner.job.toLowerCase();
  return forms
    .filter((rest) => {
      const found = findEndpoint(runner, rest);
      return found?.op === op && found.port === port;
    })
    .map((rest) => [job, ...rest].join('-').toLowerCase());
}

/**
 * The op and port a host's first label names, after the job address:
 * nothing (the job's first exposed port), `<port>`, or `<opIndex>-<port>`,
 * none of which reach a private op; or a private op's `<label>[-<port>]`.
 */
export function findEndpoint(runner: JobRunner, rest: string[]): Found {
  // The job's own host (its first exposed port, the only form without a label), looked up for nearly every
  // proxied request: no lists made.
  if (rest.length === 0) {
    for (const op of runner.ops) {
      const port = privateLabel(op) === undefined ? op.ports.find((p) => p.type !== 'none') : undefined;
      if (port) return { op, port: port.port };
    }
    return undefined;
  }
  const label = rest[0].toLowerCase();
  const secret = label ? runner.ops.find((o) => privateLabel(o) === label) : undefined;
  if (secret) return privateEndpoint(secret, rest.slice(1));
  // A private op keeps its slot (undefined), so `<opIndex>-<port>` still counts every op.
  const open = runner.ops.map((op) => (privateLabel(op) === undefined ? op : undefined));
  const numbers = rest.map((part) => (/^\d{1,5}$/.test(part) ? Number(part) : Number.NaN));
  if (numbers.some(Number.isNaN) || numbers.length > 2) return undefined;
  const op = numbers.length === 1 ? open.find((o) => o !== undefined && publicPorts(o).some((p) => p.port === numbers[0])) : open[numbers[0]];
  const port = numbers[numbers.length - 1];
  return op && publicPorts(op).some((p) => p.port === port) ? { op, port } : undefined;
}

function privateEndpoint(op: OpRunner, rest: string[]): Found {
  if (rest.length > 1 || (rest.length === 1 && !/^\d{1,5}$/.test(rest[0]))) return undefined;
  const port = rest.length === 1 ? Number(rest[0]) : publicPorts(op)[0]?.port;
  return port !== undefined && publicPorts(op).some((p) => p.port === port) ? { op, port } : undefined;
}

export function jobResults(runner: JobRunner): JobResults {
  return Object.fromEntries(runner.ops.map((op) => [op.id, op.results.snapshot()]));
}

/** Tells the reporter what changed since it last heard, op by op and endpoint by endpoint. */
export class ChangeTracker {
  private readonly ops = new Map<string, string>();
  private readonly endpoints = new Map<string, string>();

  constructor(
    private readonly runner: JobRunner,
    private readonly reporter: Reporter,
    private readonly domain: string,
    private readonly forwards?: EndpointForwards,
  ) {}

  private readonly dirty = new Set<OpRunner>();
  private queued = false;

  /**
   * Reports what changed about `op`, once per turn of the event loop: a
   * 300-op group changes hundreds of times in a burst (every start, every
   * stop at its end), and comparing every op on every change would block the
   * node's API for seconds.
   */
  mark(op: OpRunner): void {
    this.dirty.add(op);
    if (this.queued) return;
    this.queued = true;
    setImmediate(() => this.flush());
  }

  /** Reports every marked op now (before the job's summary goes out). */
  flush(): void {
    this.queued = false;
    const ops = [...this.dirty];
    this.dirty.clear();
    for (const op of ops) this.reportOp(op);
  }

  private reportOp(op: OpRunner): void {
    const status = opStatus(this.runner, op, this.domain);
    const { endpoints, ...rest } = status;
    if (this.changed(this.ops, op.id, rest)) this.safely(() => this.reporter.opChanged(this.runner.job, status));
    for (const e of endpoints) {
      const report = this.endpointReport(op, e);
      if (this.changed(this.endpoints, `${op.id}:${e.port}`, report)) this.safely(() => this.reporter.endpointChanged(this.runner.job, op.id, report));
    }
  }

  /**
   * The endpoint with the host labels leading to it and, on a node with forwards, its forward once in place (asked for
   * here). A private op's ports are never forwarded: a forward has no host to check, so a node that lied about its own
   * forwards could have the gateway connect to this one's, and only the ingress keeps the secret label a secret.
   */
  private endpointReport(op: OpRunner, e: EndpointStatus): EndpointReport {
    const hosts = endpointHosts(this.runner, op, e.port);
    if (!this.forwards || privateLabel(op) !== undefined) return { ...e, hosts };
    const ip = !this.runner.ended && e.ready && e.status === 'ONLINE' ? op.ip : undefined;
    this.forwards.want(this.runner.job, op.id, e.port, ip ? { ip, port: e.port } : undefined, () => this.mark(op));
    return { ...e, hosts, forward: this.forwards.addressOf(this.runner.job, op.id, e.port) };
  }

  /** A reporter that throws must not stop the job's state machine. */
  private safely(call: () => void): void {
    try {
      call();
    } catch {
      // The reporter owns its errors (a control-plane reporter queues and retries).
    }
  }

  private changed(seen: Map<string, string>, key: string, value: object): boolean {
    const text = JSON.stringify(value);
    if (seen.get(key) === text) return false;
    seen.set(key, text);
    return true;
  }
}
