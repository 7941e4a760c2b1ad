import os from 'node:os';
import type { Logger } from 'pino';
import type { NodeHeartbeatRequest, NodeHeartbeatResponse, NodeSpecs, RegisterNodeRequest, RegisterNodeResponse, WarmResource } from '@ocg/contracts';
import { Backoff, ControlPlaneError, sleep, type ControlPlaneClient } from './client';

export interface MembershipSettings {
  market: string;
  joinToken: string;
  /** Public domain of the node (jobs are served at https://<job>.<domain>). */
  domain: string;
  /** The GPU device ids ops may be given. */
  gpus: () => Promise<string[]>;
  /** The most jobs the node runs at once (MAX_JOBS): the claim enforces it. */
  capacity: number;
}

/** The machine as host-manager records it. GPU models are not probed (no driver tools here): one entry per device id. */
export async function machineSpecs(gpus: string[]): Promise<NodeSpecs> {
  return { cpus: Math.max(1, os.cpus().length), memoryBytes: os.totalmem(), gpus: gpus.map(() => ({ model: 'nvidia', memoryBytes: 0 })) };
}

/**
 * Membership of a market (host-manager): registration with the join token,
 * then heartbeats at the interval host-manager asks for, which keep the
 * node's presence, the proof deployment-manager checks on every node call.
 * A heartbeat answered 404 (host-manager forgot the node) registers again.
 */
export class Membership {
  private ingressUrl: string | undefined;
  private intervalMs = 10_000;
  private readonly stopping = new AbortController();
  private loop: Promise<void> | undefined;
  private markRegistered!: () => void;
  /** The market's resources kept warm, as last sent, and the version that names them. */
  private warm: { items: WarmResource[]; version: string } | undefined;
  private warmListener: ((items: WarmResource[]) => void) | undefined;
  /** Resolves at the first accepted registration: deployment-manager refuses node calls before it (403). */
  readonly registered = new Promise<void>((resolve) => (this.markRegistered = resolve));

  constructor(
    private readonly client: ControlPlaneClient,
    private readonly settings: MembershipSettings,
    private readonly logger: Logger,
  ) {}

  /** Where the gateway reaches the ingress; known once the ingress listens. */
  advertise(ingressUrl: string): void {
    this.ingressUrl = ingressUrl;
  }

  /** `listener` hears the market's list of resources to keep warm: now if known, then whenever it changes. */
  onWarmResources(listener: (items: WarmResource[]) => void): void {
    this.warmListener = listener;
    if (this.warm) listener(this.warm.items);
  }

  async register(): Promise<RegisterNodeResponse> {
    if (!this.ingressUrl) throw new Error('the ingress URL is not known yet');
    const body: RegisterNodeRequest = {
      market: this.settings.market,
      joinToken: this.settings.joinToken,
      specs: await machineSpecs(await this.settings.gpus()),
      domain: this.settings.domain,
      ingressUrl: this.ingressUrl,
      capacity: this.settings.capacity,
    };
    const res = await this.client.post<RegisterNodeResponse>('/nodes/register', body);
    this.intervalMs = res.heartbeatIntervalSeconds * 1000;
    this.markRegistered();
    this.warmList(res.warmResources, res.warmResourcesVersion);
    this.logger.info({ node: this.client.address, market: res.node.marketName, heartbeatSeconds: res.heartbeatIntervalSeconds }, 'registered with the control plane');
    return res;
  }

  /**
   * The first registration. Refused (a wrong join token, an unknown market,
   * no GPU for a GPU market): throws, so the agent does not start. Control
   * plane unreachable: keeps trying in the background.
   */
  async join(): Promise<void> {
    try {
      await this.register();
    } catch (err) {
      if (err instanceof ControlPlaneError && err.status >= 400 && err.status < 500) throw new Error(`registration refused: ${err.message}`);
      this.logger.warn({ err: (err as Error).message }, 'control plane unreachable; registration retried in the background');
    }
    this.loop = this.heartbeats();
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.loop;
  }

  /** A list sent (absent: unchanged, or a control plane that sends none). */
  private warmList(items: WarmResource[] | undefined, version: string | undefined): void {
    if (!items || version === undefined || version === this.warm?.version) return;
    this.warm = { items, version };
    this.logger.info({ resources: items.length }, "the market's resources to keep warm changed");
    this.warmListener?.(items);
  }

  /** A heartbeat before any registration answers 404 and so registers: one loop covers both. */
  private async heartbeats(): Promise<void> {
    const backoff = new Backoff(this.intervalMs);
    let ok = true;
    while (!this.stopping.signal.aborted) {
      await sleep(ok ? this.intervalMs : backoff.next(), this.stopping.signal);
      if (this.stopping.signal.aborted) return;
      ok = await this.beat();
      if (ok) backoff.reset();
    }
  }

  private async beat(): Promise<boolean> {
    try {
      const body: NodeHeartbeatRequest = this.warm ? { warmResourcesVersion: this.warm.version } : {};
      const res = await this.client.post<NodeHeartbeatResponse>('/nodes/heartbeat', body, { signal: this.stopping.signal });
      this.warmList(res.warmResources, res.warmResourcesVersion);
      this.markRegistered(); // host-manager knew the node (registered before the control plane went away): it is present again
      return true;
    } catch (err) {
      if (err instanceof ControlPlaneError && err.status === 404)
        return this.register().then(
          () => true,
          () => false,
        );
      this.logger.warn({ err: (err as Error).message }, 'heartbeat failed');
      return false;
    }
  }
}
