import type Docker from 'dockerode';
import type { Logger } from 'pino';
import type { JobContainerLimits } from '@ocg/contracts';
import { LABEL, labelFilter } from '../docker/labels';

/** A running job as the watcher sees it: its market limits, and how to fail it. */
export interface WatchedJob {
  job: string;
  limits?: JobContainerLimits;
  fail(reason: string): void;
}

/** What one tick measured, in bytes: per job, each container's writable layer and the volumes' sum. */
export interface JobDiskUsage {
  containers: Array<{ op: string; bytes: number }>;
  volumeBytes: number;
}

const MIB = 1024 ** 2;

function size(bytes: number): string {
  return bytes >= 1024 * MIB ? `${(bytes / 1024 / MIB).toFixed(1)} GiB` : `${Math.round(bytes / MIB)} MiB`;
}

/** Why the job must fail, or null while it is within its limits. Pure, so the words stay consistent. */
export function diskOverLimit(usage: JobDiskUsage, limits: JobContainerLimits): string | null {
  const over = usage.containers.find((c) => c.bytes > limits.diskBytes);
  if (over) return `op ${over.op} wrote ${size(over.bytes)} to its container's writable layer, over the market's limit of ${size(limits.diskBytes)} per container`;
  if (limits.volumeBytes !== undefined && usage.volumeBytes > limits.volumeBytes) {
    return `volume data used ${size(usage.volumeBytes)}, over the market's limit of ${size(limits.volumeBytes)} for a job's volumes`;
  }
  return null;
}

/**
 * Disk limits by measurement, so they hold on any storage driver (a
 * writable-layer size needs overlay2 on xfs with pquota, btrfs or zfs, and
 * local volumes take no size at all). One timer for the node: each tick makes
 * one container list (with sizes) and, when a job has a volume limit, one
 * `df`, whatever the number of jobs; a job over a limit is failed.
 */
export class DiskWatcher {
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly docker: Docker,
    private readonly node: string,
    private readonly intervalMs: number,
    private readonly logger: Logger,
    private readonly jobs: () => WatchedJob[],
  ) {}

  /** Off when the interval is 0. */
  start(): void {
    if (this.intervalMs > 0) this.schedule();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  /** The next tick is armed once this one is over, so slow engine calls never pile up. */
  private schedule(): void {
    if (this.closed) return;
    this.timer = setTimeout(() => void this.tick().finally(() => this.schedule()), this.intervalMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    const watched = this.jobs().flatMap((j) => (j.limits ? [{ ...j, limits: j.limits }] : []));
    if (watched.length === 0) return;
    const began = Date.now();
    try {
      const usage = await this.measure(watched.some((j) => j.limits.volumeBytes !== undefined));
      for (const j of watched) {
        const reason = diskOverLimit(usage.get(j.job) ?? { containers: [], volumeBytes: 0 }, j.limits);
        if (reason) j.fail(reason);
      }
    } catch (err) {
      this.logger.warn({ err }, "measuring the jobs' disk use failed; trying again next tick");
    }
    this.logger.debug({ jobs: watched.length, ms: Date.now() - began }, 'disk use measured');
  }

  /** Usage per job address, from one list call and at most one `df`. */
  private async measure(volumes: boolean): Promise<Map<string, JobDiskUsage>> {
    const usage = new Map<string, JobDiskUsage>();
    const of = (job: string): JobDiskUsage => {
      const found = usage.get(job) ?? { containers: [], volumeBytes: 0 };
      usage.set(job, found);
      return found;
    };
    // SizeRw is in the answer with `size: true`, though not in dockerode's type.
    const containers: Array<Docker.ContainerInfo & { SizeRw?: number }> = await this.docker.listContainers({
      size: true,
      filters: labelFilter(this.node, { [LABEL.kind]: 'op-container' }),
    });
    for (const c of containers) {
      const job = c.Labels[LABEL.job];
      if (job) of(job).containers.push({ op: c.Labels[LABEL.op] ?? c.Id, bytes: c.SizeRw ?? 0 });
    }
    if (!volumes) return usage;
    const df = (await this.docker.df()) as { Volumes?: Array<{ Labels: Record<string, string> | null; UsageData?: { Size: number } }> };
    for (const v of df.Volumes ?? []) {
      const labels = v.Labels ?? {};
      if (labels[LABEL.node] !== this.node || labels[LABEL.kind] !== 'job-volume' || !labels[LABEL.job]) continue;
      of(labels[LABEL.job]).volumeBytes += Math.max(0, v.UsageData?.Size ?? 0);
    }
    return usage;
  }
}
