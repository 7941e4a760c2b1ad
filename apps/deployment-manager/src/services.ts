import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import { ServiceClient, upstreamPool, type Logger, type Metrics } from '@ocg/http';
import { RateLimiter } from '@ocg/redis';
import type { DeploymentManagerSettings } from './app';
import { CasDownloads } from './cas/cas-downloads';
import { BlobRepository } from './cas/blob.repository';
import { CasService } from './cas/cas.service';
import { ContentSeal } from './cas/content-seal';
import { UploadCollector } from './cas/upload-collector';
import { masterKeyOf } from './config';
import { CreditsClient } from './clients/credits.client';
import { MarketsClient } from './clients/markets.client';
import { DefinitionLoader } from './jobs/definition';
import { ExtendRequestRepository } from './jobs/extend-request.repository';
import { HoldRepository } from './jobs/hold.repository';
import { JobControlService } from './jobs/job-control.service';
import { JobEvents } from './jobs/job-events';
import { JobEventLog } from './jobs/job-event-log';
import { JobEventStreams } from './jobs/job-event-stream';
import { EventWakeups } from './jobs/event-wakeups';
import { StreamLeases } from './jobs/event-stream-leases';
import { JobPostService } from './jobs/job-post.service';
import { JobQueryService } from './jobs/job-query.service';
import { JobRepository } from './jobs/job.repository';
import { JobMetrics } from './jobs/job-metrics';
import { JobViews } from './jobs/job-views';
import { LooseHolds } from './jobs/loose-holds';
import { MarketWaker } from './jobs/market-waker';
import { NodeJobsService } from './jobs/node-jobs.service';
import { PostRequestRepository } from './jobs/post-request.repository';
import { ReportRepository } from './jobs/report.repository';
import { SettlementService } from './jobs/settlement.service';
import { Sweeper } from './jobs/sweeper';
import { NodePresence } from './nodes/node-presence';

export interface ServiceDeps {
  logger: Logger;
  db: DataSource;
  redis: Redis;
  settings: DeploymentManagerSettings;
  /** The service's Prometheus registry (main makes it when METRICS_PORT is set). */
  metrics?: Metrics;
}

/** Connections kept to each service called (client-manager, host-manager); calls beyond them wait for one. */
const SERVICE_CONNECTIONS = 64;

export type DeploymentManagerServices = ReturnType<typeof composeServices>;

/** Builds every object of the service once (no DI framework): main.ts and tests share it. */
export function composeServices({ logger, db, redis, settings: s, metrics }: ServiceDeps) {
  // Kept-alive connections (undici's pool) rather than fetch: less CPU per call (ADR 0075).
  const service = (name: string, baseUrl: string) =>
    new ServiceClient({
      service: name,
      baseUrl,
      internalToken: s.INTERNAL_TOKEN,
      timeoutMs: s.SERVICE_TIMEOUT_MS,
      dispatcher: upstreamPool(baseUrl, { connections: SERVICE_CONNECTIONS }),
    });
  const clientManager = service('client-manager', s.CLIENT_MANAGER_URL);
  const hostManager = service('host-manager', s.HOST_MANAGER_URL);
  const credits = new CreditsClient(clientManager);
  const markets = new MarketsClient(hostManager, s.MARKET_CACHE_TTL_MS);
  const seal = new ContentSeal(masterKeyOf(s));
  const perMinute = (scope: string, limit: number) => new RateLimiter(redis, scope, { limit, windowSeconds: 60 }, logger);
  const casLimits = { maxBytes: s.MAX_CONTENT_BYTES, maxUploadsPerUser: s.MAX_UPLOADS_PER_USER, maxUploadBytesPerUser: s.MAX_UPLOAD_BYTES_PER_USER };
  const blobs = new BlobRepository(db);
  const cas = new CasService(blobs, casLimits, seal, perMinute('uploads', s.UPLOADS_PER_MINUTE));
  const jobs = new JobRepository(db, seal);
  const holds = new HoldRepository(db);
  const jobMetrics = metrics && new JobMetrics(metrics, jobs);
  const waker = new MarketWaker(redis, logger);
  const views = new JobViews({ nodeDomain: s.NODE_DOMAIN, nodePublicPort: s.NODE_PUBLIC_PORT, publicUrl: s.PUBLIC_URL }, seal);
  const query = new JobQueryService(jobs, views);
  const eventLog = new JobEventLog(redis, { retained: s.JOB_EVENTS_RETAINED, keepSeconds: s.JOB_EVENTS_KEEP_SECONDS, idleSeconds: s.JOB_EVENTS_IDLE_SECONDS });
  const events = new JobEvents(eventLog, redis, (label) => views.url(label), logger);
  const settlement = new SettlementService(jobs, holds, credits, s.SETTLE_LEASE_SECONDS, logger, jobMetrics);
  const looseHolds = new LooseHolds(holds, credits, settlement, s.ORPHAN_HOLD_SECONDS, logger);
  const definitions = new DefinitionLoader(cas, s.MAX_DEFINITION_BYTES);
  const requests = new PostRequestRepository(db);
  const extendRequests = new ExtendRequestRepository(db);
  const presence = new NodePresence(redis, markets);
  const wakeups = new EventWakeups(redis, logger);
  const streamCaps = { perJob: s.JOB_EVENT_STREAMS_PER_JOB, perUser: s.JOB_EVENT_STREAMS_PER_USER, leaseMs: 3 * s.JOB_EVENTS_HEARTBEAT_MS };
  const streamSettings = { heartbeatMs: s.JOB_EVENTS_HEARTBEAT_MS, stalledMs: 4 * s.JOB_EVENTS_HEARTBEAT_MS };
  return {
    presence,
    wakeups,
    eventStreams: new JobEventStreams({ jobs, query, log: eventLog, wakeups, leases: new StreamLeases(redis, streamCaps), logger, settings: streamSettings }),
    seal,
    blobs,
    jobs,
    cas,
    uploads: new UploadCollector(blobs, s.UPLOAD_RETENTION_SECONDS, s.UPLOAD_COLLECT_INTERVAL_MS, logger),
    downloads: new CasDownloads(cas),
    query,
    settlement,
    waker,
    posts: new JobPostService({ jobs, holds, requests, cas, credits, markets, definitions, query, events, postLimit: perMinute('job-posts', s.JOB_POSTS_PER_MINUTE) }),
    control: new JobControlService({ jobs, holds, credits, settlement, query, events, extendRequests }),
    nodeJobs: new NodeJobsService({
      jobs,
      reports: new ReportRepository(db),
      cas,
      markets,
      waker,
      events,
      settlement,
      lostJobGraceSeconds: s.LOST_JOB_GRACE_SECONDS,
      claimRedeliverSeconds: s.CLAIM_REDELIVER_SECONDS,
      metrics: jobMetrics,
    }),
    sweeper: new Sweeper(
      { presence, jobs, settlement, looseHolds, requests: [requests, extendRequests], events, waker, logger },
      {
        intervalMs: s.SWEEP_INTERVAL_MS,
        nodeSilenceSeconds: s.NODE_SILENCE_SECONDS,
        presenceGraceSeconds: s.PRESENCE_GRACE_SECONDS,
        claimAckSeconds: s.CLAIM_ACK_SECONDS,
        queueTimeoutSeconds: s.QUEUE_TIMEOUT_SECONDS,
        settleLeaseSeconds: s.SETTLE_LEASE_SECONDS,
        idempotencyKeyTtlSeconds: s.IDEMPOTENCY_KEY_TTL_SECONDS,
      },
    ),
  };
}
