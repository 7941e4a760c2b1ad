import { z } from 'zod';
import { resolveMasterKey } from '@ocg/auth';
import { env, parseConfig, serviceConfigShape } from '@ocg/http';

const optionalText = () =>
  z
    .string()
    .min(1)
    .optional()
    .or(z.literal('').transform(() => undefined));
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const fields = z.object({
  ...serviceConfigShape(8083),
  NODE_ENV: z.string().optional(),
  /** This is a development machine: the public development master key is allowed. */
  DEVELOPMENT_MACHINE: env.flag(),
  /** 32 bytes, 64 hex characters or base64: seals definitions and results at rest (the same key as client-manager's). */
  MASTER_KEY: optionalText(),
  /** Uploads a user may keep that no job of theirs uses yet. */
  MAX_UPLOADS_PER_USER: positiveInt(1000),
  /** Bytes of such uploads per user. */
  MAX_UPLOAD_BYTES_PER_USER: positiveInt(256 * 1024 * 1024),
  /** An upload no job used for this long is collected. */
  UPLOAD_RETENTION_SECONDS: positiveInt(7 * 86_400),
  /** How often unused uploads are collected. */
  UPLOAD_COLLECT_INTERVAL_MS: positiveInt(60_000),
  /** Job posts per user and minute (429 beyond; retries under one Idempotency-Key are free); 0: no limit. */
  JOB_POSTS_PER_MINUTE: z.coerce.number().int().min(0).default(60),
  /** Content uploads per user and minute (429 beyond); 0: no limit. */
  UPLOADS_PER_MINUTE: z.coerce.number().int().min(0).default(60),
  /** Validates API keys and keeps the credits ledger (holds, settlements). */
  CLIENT_MANAGER_URL: z.url().default('http://127.0.0.1:8081'),
  /** Resolves markets (GET /internal/markets/{market}). */
  HOST_MANAGER_URL: z.url().default('http://127.0.0.1:8082'),
  /** Service-to-service credential (x-ocg-internal-token); client-manager's hold routes and host-manager's market route need it. */
  INTERNAL_TOKEN: optionalText().refine((t) => t === undefined || t.length >= 16, 'must be at least 16 characters'),
  /** Public domain of the nodes' ingress: a job is served at https://<job>[-<port>].<NODE_DOMAIN>. */
  NODE_DOMAIN: z
    .string()
    .regex(/^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/, 'a domain name such as nodes.example.net')
    .default('nodes.localhost'),
  /** The HTTPS port of job URLs when it is not 443 (the local stack serves 8443). */
  NODE_PUBLIC_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** The gateway's public origin, for the links in job records. */
  PUBLIC_URL: z.url().default('http://127.0.0.1:8080'),
  /** A node whose presence is gone and whose last report is older than this loses its running jobs. */
  NODE_SILENCE_SECONDS: positiveInt(60),
  /** After Redis could not answer, no node is declared silent until it has answered this long again (a silence it could not observe). */
  PRESENCE_GRACE_SECONDS: positiveInt(60),
  /** How often the sweeper runs (expiry, silent nodes, settlement, abandoned holds). */
  SWEEP_INTERVAL_MS: positiveInt(5000),
  /** Largest job definition accepted, in bytes of its JSON text. */
  MAX_DEFINITION_BYTES: positiveInt(256 * 1024),
  /** Largest content stored in the content-addressed store (uploads and results). */
  MAX_CONTENT_BYTES: positiveInt(4 * 1024 * 1024),
  /** Largest request body (base64 uploads and results are a third bigger than their bytes). */
  BODY_LIMIT_BYTES: positiveInt(6 * 1024 * 1024),
  /** How old a node's signed request may be. */
  NODE_SIGNATURE_MAX_AGE_SECONDS: positiveInt(300),
  /** How long an API key's validation is reused (client-manager's invalidations drop it sooner). */
  API_KEY_CACHE_TTL_MS: positiveInt(10_000),
  /** How long a market resolved through host-manager is reused. */
  MARKET_CACHE_TTL_MS: positiveInt(5_000),
  /** Timeout of each call to client-manager or host-manager. */
  SERVICE_TIMEOUT_MS: positiveInt(10_000),
  /** A hold whose request died this long ago without a job to show for it is released by the sweeper. */
  ORPHAN_HOLD_SECONDS: positiveInt(60),
  /** A claim its node has not acknowledged (report, sync or finish naming the job) within this long goes back to the queue. */
  CLAIM_ACK_SECONDS: positiveInt(30),
  /** A claim not acknowledged this long is offered again to its node when it claims (its answer was probably lost). */
  CLAIM_REDELIVER_SECONDS: positiveInt(10),
  /** A RUNNING job its node no longer lists in sync, this long after the claim, has FAILED (the node lost it). */
  LOST_JOB_GRACE_SECONDS: positiveInt(60),
  /** A job no node claimed for this long FAILS (and its hold is released). */
  QUEUE_TIMEOUT_SECONDS: positiveInt(86_400),
  /** How long an Idempotency-Key of a job post is remembered. */
  IDEMPOTENCY_KEY_TTL_SECONDS: positiveInt(86_400),
  /** One settlement attempt of a job is left to one sweeper for this long. */
  SETTLE_LEASE_SECONDS: positiveInt(30),
  /** Events kept per job for GET /jobs/{job}/events to resume from (the oldest are dropped beyond this). */
  JOB_EVENTS_RETAINED: positiveInt(1000),
  /** How long a job's events are kept after it ended; a job with no event for JOB_EVENTS_IDLE_SECONDS loses them too. */
  JOB_EVENTS_KEEP_SECONDS: positiveInt(3600),
  JOB_EVENTS_IDLE_SECONDS: positiveInt(7 * 86_400),
  /** Open event streams allowed at once per job, and per user (all replicas together). */
  JOB_EVENT_STREAMS_PER_JOB: positiveInt(10),
  JOB_EVENT_STREAMS_PER_USER: positiveInt(20),
  /** A comment line this often keeps proxies from closing a quiet event stream. */
  JOB_EVENTS_HEARTBEAT_MS: positiveInt(15_000),
});

const schema = fields.superRefine((c, ctx) => {
  try {
    resolveMasterKey(c.MASTER_KEY, c.DEVELOPMENT_MACHINE && c.NODE_ENV !== 'production');
  } catch (err) {
    ctx.addIssue({ code: 'custom', path: ['MASTER_KEY'], message: (err as Error).message });
  }
});

export type DeploymentManagerConfig = z.infer<typeof schema>;

/** The only place deployment-manager reads process.env. */
export const loadConfig = (vars: NodeJS.ProcessEnv = process.env): DeploymentManagerConfig => parseConfig(schema, vars);

/** The master key as bytes (loadConfig already refused the development key off a development machine). */
export const masterKeyOf = (config: Pick<DeploymentManagerConfig, 'MASTER_KEY' | 'DEVELOPMENT_MACHINE'>): Buffer => resolveMasterKey(config.MASTER_KEY, config.DEVELOPMENT_MACHINE);
