/**
 * Control-plane mode: the node key, market membership (host-manager),
 * the job source and the reporter (deployment-manager), all through one
 * URL, the gateway. main.ts composes them when CONTROL_PLANE_URL is set.
 */
import type { Logger } from 'pino';
import type { Tracing } from '@ocg/http';
import type { WalletSigner } from '@ocg/auth';
import type { AgentConfig } from '../config';
import { createDocker } from '../docker/client';
import { detectGpus, gpuDevices } from '../docker/gpu';
import { ControlPlaneClient } from './client';
import { Membership } from './membership';
import { ControlPlaneReporter } from './reporter';
import { ControlPlaneSource } from './source';

export { loadNodeKey } from './node-key';
export { ControlPlaneClient, ControlPlaneError } from './client';

export interface ControlPlane {
  source: ControlPlaneSource;
  reporter: ControlPlaneReporter;
  /** Pass to NodeAgent.start: registration needs the ingress's URL. */
  onListening(urls: { api: string; ingress: string }): void;
  /** Pass to NodeAgent.start: the market's resources to keep warm. */
  warmResources(listener: (items: object[]) => void): void;
}

export function createControlPlane(config: AgentConfig, signer: WalletSigner, logger: Logger, tracing?: Tracing): ControlPlane {
  if (!config.CONTROL_PLANE_URL || !config.MARKET || !config.JOIN_TOKEN) throw new Error('control-plane mode needs CONTROL_PLANE_URL, MARKET and JOIN_TOKEN');
  const log = logger.child({ component: 'control-plane' });
  const client = new ControlPlaneClient(config.CONTROL_PLANE_URL, signer, config.CONTROL_PLANE_TIMEOUT_MS, tracing);
  const docker = createDocker(config.DOCKER_SOCKET);
  const gpus = async () => gpuDevices(await detectGpus(docker, config.NODE_GPUS), config.GPU_DEVICES);
  const membership = new Membership(client, { market: config.MARKET, joinToken: config.JOIN_TOKEN, domain: config.NODE_DOMAIN, capacity: config.MAX_JOBS, gpus }, log);
  const source = new ControlPlaneSource(
    client,
    membership,
    { market: config.MARKET, maxJobs: config.MAX_JOBS, claimWaitSeconds: config.CLAIM_WAIT_SECONDS, syncIntervalMs: config.SYNC_INTERVAL_MS },
    log,
  );
  const reporter = new ControlPlaneReporter(client, { finishWaitMs: config.REPORT_TIMEOUT_MS }, log);
  reporter.holdUntil(membership.registered);
  return {
    source,
    reporter,
    onListening: ({ ingress }) => membership.advertise(config.INGRESS_URL ?? ingress),
    warmResources: (listener) => membership.onWarmResources(listener),
  };
}
