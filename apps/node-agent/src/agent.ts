import os from 'node:os';
import { defaultForwardAddress, EndpointForwards } from './docker/forwards';
import { networkIsolation } from './docker/isolation';
import type { Logger } from 'pino';
import { listen, metricsOf, serveMetrics, type RelaySet, type RunningServer, type Tracing } from '@ocg/http';
import { buildNodeApi } from './api/app';
import { containerMemoryBytes, type ResolvedConfig } from './config';
import { assertEngine, createDocker, type Docker } from './docker/client';
import { detectDiskQuota, detectGpus, gpuDevices } from './docker/gpu';
import { Executor } from './executor/executor';
import { createIngress, type Ingress } from './ingress/server';
import type { ResourceItem } from '@ocg/job-definition';
import { resourceStage } from './resources';
import { WarmSet } from './resources/warm';
import type { JobSource, Reporter } from './seam';

export interface AgentParts {
  source: JobSource;
  reporter: Reporter;
  /** Defaults to the engine at DOCKER_SOCKET. */
  docker?: Docker;
  /** Told where the API and the ingress listen, before the source starts (a control-plane source registers the ingress URL). */
  onListening?: (urls: { api: string; ingress: string }) => void;
  /** Records the node API's requests (OTEL_* settings). */
  tracing?: Tracing;
  /** Hands the market's list of resources to keep warm to `listener`, now if known and whenever it changes. */
  warmResources?: (listener: (items: object[]) => void) => void;
}

/**
 * The node agent: the executor, the node API and the port ingress on their
 * own ports, fed by a job source. Closing it leaves jobs running: a new agent
 * adopts them.
 */
export class NodeAgent {
  private constructor(
    readonly executor: Executor,
    readonly api: RunningServer,
    readonly ingress: RunningServer,
    readonly adopted: string[],
    /** The resources kept warm; undefined when the node has no resource cache. */
    readonly warm: WarmSet | undefined,
    private readonly parts: { source: JobSource; proxy: Ingress; relays?: RelaySet; metrics?: RunningServer; forwards?: EndpointForwards },
  ) {}

  static async start(config: ResolvedConfig, logger: Logger, parts: AgentParts): Promise<NodeAgent> {
    const docker = parts.docker ?? createDocker(config.DOCKER_SOCKET);
    await assertEngine(docker, config.DOCKER_SOCKET);
    const gpus = await detectGpus(docker, config.NODE_GPUS);
    const metrics = metricsOf('node-agent', config, logger);
    const isolation = await networkIsolation({ enabled: config.NETWORK_ISOLATION, allow: config.NETWORK_ISOLATION_ALLOW, command: config.IPTABLES }, logger);
    const forwards = await endpointForwards(config, logger);
    const resources = await resourceStage(config, logger);
    const executor = new Executor({
      docker,
      logger,
      reporter: parts.reporter,
      node: config.NODE_ID,
      nodeAddress: config.NODE_ADDRESS ?? config.NODE_ID,
      domain: config.NODE_DOMAIN,
      gpus,
      isolation,
      forwards,
      limits: {
        memoryBytes: containerMemoryBytes(config),
        pidsLimit: config.CONTAINER_PIDS_LIMIT,
        cpus: Math.max(1, os.cpus().length),
        gpuDevices: await gpuDevices(gpus, config.GPU_DEVICES),
        diskQuota: await detectDiskQuota(docker, config.CONTAINER_DISK_QUOTA),
      },
      health: {
        startupIntervalMs: config.HEALTH_STARTUP_INTERVAL_MS,
        continuousIntervalMs: config.HEALTH_CONTINUOUS_INTERVAL_MS,
        timeoutMs: config.HEALTH_TIMEOUT_MS,
        failuresToOffline: config.HEALTH_FAILURES_TO_OFFLINE,
      },
      logLimits: { lines: config.LOG_MAX_LINES, bytes: config.LOG_MAX_BYTES },
      pullTimeoutMs: config.PULL_TIMEOUT_SECONDS * 1000,
      stopGraceSeconds: config.STOP_GRACE_SECONDS,
      reportTimeoutMs: config.REPORT_TIMEOUT_MS,
      retentionMs: config.FINISHED_JOB_RETENTION_SECONDS * 1000,
      startConcurrency: config.START_CONCURRENCY,
      stopConcurrency: config.STOP_CONCURRENCY,
      images: { allowedPrivateRegistries: config.ALLOW_PRIVATE_REGISTRIES },
      diskCheckIntervalMs: config.DISK_CHECK_INTERVAL_MS,
      resources,
      metrics,
    });
    const adopted = await executor.start();
    // An earlier agent's forwards of the adopted jobs are taken back by their endpoints; the others end.
    forwards?.keep(adopted);
    // Adopted jobs hold what they mount before anything (the warm set's downloads) may evict.
    await resources?.holdMounted(docker, config.NODE_ID);
    const warm = resources && new WarmSet(resources, config.RESOURCE_KEEP as ResourceItem[], logger);
    if (warm) {
      metrics?.gauge('ocg_node_warm_resources', "Resources the node keeps warm (RESOURCE_KEEP and its market's), by state: ready, fetching, failed", ['state'], (gauge) => {
        gauge.reset();
        for (const state of ['ready', 'fetching', 'failed']) gauge.set({ state }, 0);
        for (const s of warm.status()) gauge.inc({ state: s.state });
      });
      void warm.sync();
      parts.warmResources?.((items) => warm.setMarket(items));
    }
    const app = buildNodeApi({
      executor,
      docker,
      logger,
      node: config.NODE_ADDRESS ?? config.NODE_ID,
      authMaxAgeSeconds: config.AUTH_MAX_AGE_SECONDS,
      tracing: parts.tracing,
      metrics,
      logFollow: { perJob: config.LOG_FOLLOWERS_PER_JOB, heartbeatMs: config.LOG_FOLLOW_HEARTBEAT_SECONDS * 1000 },
    });
    const proxy = createIngress({ executor, logger, nodeApi: app, nodeAddress: config.NODE_ADDRESS, trustForwardedHost: config.INGRESS_TRUST_FORWARDED_HOST });
    const api = await listen(app, { host: config.HOST, port: config.API_PORT });
    const ingress = await listen(proxy.handle, { host: config.HOST, port: config.INGRESS_PORT });
    ingress.server.on('upgrade', proxy.upgrade);
    const relays = config.INGRESS_RELAY ? proxy.relay(ingress.server) : undefined;
    const metricsServer = await serveMetrics(metrics, config, logger);
    parts.onListening?.({ api: api.url, ingress: ingress.url });
    try {
      await parts.source.start(executor);
    } catch (err) {
      // A source that cannot start (e.g. registration refused) must not leave the ports open.
      proxy.close();
      await Promise.all([relays?.close(0), api.close(), ingress.close(), metricsServer?.close()]);
      await executor.close();
      forwards?.close();
      throw err;
    }
    logger.info({ api: api.url, ingress: ingress.url, gpus, adopted: adopted.length }, 'node agent ready');
    return new NodeAgent(executor, api, ingress, adopted, warm, { source: parts.source, proxy, relays, metrics: metricsServer, forwards });
  }

  /**
   * The node shuts down with its jobs: no new job is taken, every job is
   * stopped, reported (while the control plane still listens) and removed.
   */
  async drain(reason: string): Promise<void> {
    await this.parts.source.pause?.();
    const left = await this.executor.drain(reason);
    if (left.objects > 0) throw new Error(`${left.objects} objects of ${left.jobs} jobs could not be removed from the engine`);
  }

  /** Stops serving and watching; containers keep running for the next agent. */
  async close(): Promise<void> {
    await this.parts.source.close();
    this.parts.proxy.close();
    await Promise.all([this.parts.relays?.close(10_000), this.api.close(), this.ingress.close(), this.parts.metrics?.close()]);
    await this.executor.close();
    this.parts.forwards?.close();
  }
}

/** The node's endpoint forwards when FORWARD_PORTS is set (ADR 0092). */
async function endpointForwards(config: ResolvedConfig, logger: Logger): Promise<EndpointForwards | undefined> {
  if (!config.FORWARD_PORTS) return undefined;
  const address = config.FORWARD_ADDRESS ?? defaultForwardAddress(config.INGRESS_URL);
  if (!address) {
    logger.warn('FORWARD_PORTS is set but this host has no IPv4 address besides loopback: endpoint forwards off (set FORWARD_ADDRESS)');
    return undefined;
  }
  const settings = { command: config.IPTABLES, node: config.NODE_ID, address, ports: config.FORWARD_PORTS, from: config.FORWARD_FROM };
  return EndpointForwards.start({ ...settings, quarantineMs: config.FORWARD_QUARANTINE_SECONDS * 1000 }, logger);
}
