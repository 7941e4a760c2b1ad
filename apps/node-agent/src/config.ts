import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { env, metricsConfigShape, parseConfig, tracingConfigShape } from '@ocg/http';

const count = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const flag = (fallback: 'true' | 'false') =>
  z
    .enum(['true', 'false'])
    .default(fallback)
    .transform((v) => v === 'true');

/** Docker names allow these; the node id goes into labels and object names. */
const NODE_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

const CIDR = /^\d{1,3}(\.\d{1,3}){3}(\/\d{1,2})?$/;
/** A comma-separated list; empty entries dropped. */
const list = () =>
  z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    );
const optionalText = () =>
  z
    .string()
    .min(1)
    .optional()
    .or(z.literal('').transform(() => undefined));
const defaultKeyFile = (): string => path.join(os.homedir(), '.ocg', 'node-key');
const defaultCacheDir = (): string => path.join(os.homedir(), '.ocg', 'resources');

const schema = z
  .object({
    HOST: env.host(),
    /** The node API (job control, logs, results). */
    API_PORT: env.port(8090),
    /** Port ingress: HTTP and WebSocket for the jobs' exposed ports, routed by Host. */
    INGRESS_PORT: env.port(8091),
    /** `/metrics` on a listener of its own: default 127.0.0.1 (jobs' networks never reach the host's loopback, the ingress never routes there). */
    ...metricsConfigShape(),
    LOG_LEVEL: env.logLevel(),
    ...tracingConfigShape,
    DOCKER_SOCKET: z.string().min(1).default('/var/run/docker.sock'),
    /** Scopes the Docker objects this agent owns (label `ocg.node`); a restarted agent adopts only its own. Unset: the node key's address. */
    NODE_ID: z.string().regex(NODE_ID, 'letters, digits, _ . - (at most 63)').optional(),
    /** The node's wallet address: `%%global.node%%`, and the ingress serves the node API at `<address>.<domain>`. */
    NODE_ADDRESS: z.string().min(1).optional(),
    /** Public domain of this node: `%%global.host%%` is `<job>.<domain>`. */
    NODE_DOMAIN: z.string().min(1).default('nodes.localhost'),
    /** `auto` asks Docker whether the nvidia runtime is installed. */
    NODE_GPUS: z.enum(['auto', 'true', 'false']).default('auto'),
    /** Keep job networks off the host, the LAN, private and link-local addresses (iptables); false: turned off (development only). */
    NETWORK_ISOLATION: flag('true'),
    /** IPv4 ranges (CIDR) job networks may reach despite isolation, e.g. an internal package mirror. */
    NETWORK_ISOLATION_ALLOW: list().refine((l) => l.every((c) => CIDR.test(c)), 'IPv4 ranges such as 10.1.2.0/24, separated by commas'),
    /** The iptables command matching the one dockerd uses (iptables, iptables-legacy, iptables-nft). */
    IPTABLES: z.string().min(1).default('iptables'),
    /**
     * Endpoint forwards (ADR 0092): ports of this range (`first-last`) are forwarded by the kernel, one per ready endpoint,
     * to its container, so the gateway reaches it without the ingress's hop. Unset: off, everything through the ingress.
     */
    FORWARD_PORTS: z
      .string()
      .optional()
      .transform((v, ctx) => {
        if (v === undefined || v.trim() === '') return undefined;
        const m = /^(\d{1,5})-(\d{1,5})$/.exec(v.trim());
        const [first, last] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
        if (m && first >= 1024 && first <= last && last <= 65535) return { first, last };
        ctx.addIssue({ code: 'custom', message: 'a port range such as 20000-20999 (from 1024 to 65535)' });
        return z.NEVER;
      }),
    /** The IPv4 address the gateway connects to for forwards (not loopback). Default: INGRESS_URL's when it is one, else the host's first. */
    FORWARD_ADDRESS: z
      .ipv4()
      .optional()
      .or(z.literal('').transform(() => undefined))
      .refine((a) => a === undefined || !a.startsWith('127.'), 'not a loopback address: the kernel does not forward those to containers'),
    /** IPv4 ranges (CIDR) of other machines admitted to forwards: the gateway's addresses. Processes of this host always are. */
    FORWARD_FROM: list().refine((l) => l.every((c) => CIDR.test(c)), 'IPv4 ranges such as 10.1.2.0/24, separated by commas'),
    /** A port whose forward ended is not given to another endpoint for this long: longer than the gateway serves a stale route (INGRESS_STALE_MS). */
    FORWARD_QUARANTINE_SECONDS: count(900),
    /** Registries on loopback, private or link-local addresses that jobs may pull from: `host`, `host:port` or `*`. */
    ALLOW_PRIVATE_REGISTRIES: list(),
    /** Container creates and starts at once, over all jobs: a large group must not starve the node's API and ingress. */
    START_CONCURRENCY: count(4),
    /** Container stops and removals at once, over all jobs. */
    STOP_CONCURRENCY: count(16),
    /** GPU device ids given to ops one per op, comma-separated (e.g. `0,1`); unset: nvidia-smi's list. */
    GPU_DEVICES: z
      .string()
      .optional()
      .transform((v) =>
        v
          ? v
              .split(',')
              .map((id) => id.trim())
              .filter(Boolean)
          : undefined,
      ),
    /** Apply the market's writable-layer size (StorageOpt): auto = when the storage driver supports it. */
    CONTAINER_DISK_QUOTA: z.enum(['auto', 'true', 'false']).default('auto'),
    /** How often each job's writable layers and volumes are measured against the market's disk limits (a job over one fails); 0: off. */
    DISK_CHECK_INTERVAL_MS: z.coerce.number().int().min(0).default(30_000),
    /** Per container; absent: 90% of this machine's memory. */
    CONTAINER_MEMORY_MB: z.coerce.number().int().positive().optional(),
    CONTAINER_PIDS_LIMIT: count(4096),
    /** SIGTERM, then this long before SIGKILL. */
    STOP_GRACE_SECONDS: z.coerce.number().int().min(0).default(10),
    PULL_TIMEOUT_SECONDS: count(1800),
    /** Startup checks ramp up from 25 ms to this interval. */
    HEALTH_STARTUP_INTERVAL_MS: count(1500),
    HEALTH_CONTINUOUS_INTERVAL_MS: count(5000),
    HEALTH_TIMEOUT_MS: count(3000),
    /** Consecutive continuous-check failures before an endpoint goes OFFLINE. */
    HEALTH_FAILURES_TO_OFFLINE: count(2),
    LOG_MAX_LINES: count(10_000),
    LOG_MAX_BYTES: count(2 * 1024 * 1024),
    /** Open `follow=true` log streams per job (over all its ops); more answer 429. */
    LOG_FOLLOWERS_PER_JOB: count(32),
    /** A followed log sends `{"notice":"heartbeat"}` this often, so proxies keep a quiet stream open and callers can tell a dead connection (the CLI gives up on a stream silent for 90 s). */
    LOG_FOLLOW_HEARTBEAT_SECONDS: z.coerce.number().int().positive().max(60).default(20),
    /** Duration of a job run with `--run` (the control plane sends its own). */
    JOB_DURATION_SECONDS: count(7200),
    /** How long an ended job's final state stays readable through the node API. */
    FINISHED_JOB_RETENTION_SECONDS: count(600),
    /** How long the end-of-job report may take before cleanup goes ahead anyway. */
    REPORT_TIMEOUT_MS: count(10_000),
    AUTH_MAX_AGE_SECONDS: count(300),
    /** Route by X-Forwarded-Host instead of Host (only behind a proxy that sets it). */
    INGRESS_TRUST_FORWARDED_HOST: flag('false'),
    /** Relay connections to a ready endpoint's container as bytes (ADR 0084); off: every request through the HTTP server. */
    INGRESS_RELAY: flag('true'),
    /** On SIGTERM, stop every job and remove what it made (for development nodes) instead of leaving them for the next agent. */
    STOP_JOBS_ON_EXIT: flag('false'),
    /** The gateway. Set: the agent registers, heartbeats, claims jobs of MARKET and reports to it. Unset: local only (`--run`). */
    CONTROL_PLANE_URL: z
      .url()
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** The market to join: its address or name. */
    MARKET: optionalText(),
    /** The market's join token, from the operator. */
    JOIN_TOKEN: optionalText(),
    /** The node key's 32-byte ed25519 seed, as 64 hex characters or base64. Unset: NODE_KEY_FILE. */
    NODE_KEY: optionalText(),
    /** Where the node key's seed is kept (hex); made, mode 0600, on first start when missing. */
    NODE_KEY_FILE: z.string().min(1).default(defaultKeyFile),
    /** Where the gateway reaches this node's ingress. Default: the ingress's own listening URL. */
    INGRESS_URL: z
      .url()
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** The agent claims jobs while it runs fewer than this many; declared to host-manager as its capacity, which claims enforce. */
    MAX_JOBS: count(8),
    /** How long one claim waits for a job (long poll); 0: poll. */
    CLAIM_WAIT_SECONDS: z.coerce.number().int().min(0).max(25).default(20),
    /** How often the agent lists its running jobs to the control plane (and learns what to stop and the deadlines). */
    SYNC_INTERVAL_MS: count(10_000),
    /** Timeout of one control-plane request (a claim adds its wait). */
    CONTROL_PLANE_TIMEOUT_MS: count(10_000),
    /**
     * The remote resource cache (object storage, model hub, model runner files), shared by every job. Bind-mounted into
     * ops: when the agent runs in a container, mount it at the same path inside as on the host.
     */
    RESOURCE_CACHE_DIR: z.string().min(1).default(defaultCacheDir),
    /** Disk budget of the cache; least-recently-used entries no job mounts are evicted beyond it. */
    RESOURCE_CACHE_GB: z.coerce.number().positive().default(100),
    /** Largest resource, and largest sum of one job's resources (GB). */
    RESOURCE_MAX_GB: z.coerce.number().positive().default(100),
    RESOURCE_JOB_MAX_GB: z.coerce.number().positive().default(200),
    /** Resources fetched at once over all jobs, and files of one resource at once. */
    RESOURCE_CONCURRENCY: count(3),
    RESOURCE_FILE_CONCURRENCY: count(4),
    /** Further attempts per file after a timeout or an unavailable source, resuming where it stopped (backoff doubles from 1 s). */
    RESOURCE_RETRIES: z.coerce.number().int().min(0).default(4),
    RESOURCE_RETRY_BACKOFF_MS: count(1000),
    /** A file transfer that sends nothing this long is retried. */
    RESOURCE_IDLE_TIMEOUT_SECONDS: count(60),
    /** Addresses (CIDR), host names or `*` that resource URLs may reach although they are loopback, private or link-local. */
    RESOURCE_ALLOW: list(),
    /** Where `s3://<bucket>/<prefix>` URLs go (an S3 endpoint URL); unset: AWS. */
    RESOURCE_S3_ENDPOINT: z
      .url()
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** The model hub, and the model runner's registry. */
    RESOURCE_HUB_URL: z.url().default('https://huggingface.co'),
    RESOURCE_OLLAMA_REGISTRY_URL: z.url().default('https://registry.ollama.ai'),
    /** Resources to fetch at start and keep in the cache (never evicted): a JSON array of resource objects as in `args.resources`. */
    RESOURCE_KEEP: z
      .string()
      .default('[]')
      .transform((text, ctx) => {
        try {
          const value: unknown = JSON.parse(text);
          if (Array.isArray(value)) return value as object[];
        } catch {
          // reported below
        }
        ctx.addIssue({ code: 'custom', message: 'a JSON array of resource objects' });
        return z.NEVER;
      }),
  })
  .superRefine((c, ctx) => {
    if (c.CONTROL_PLANE_URL === undefined) return;
    for (const name of ['MARKET', 'JOIN_TOKEN'] as const) {
      if (c[name] === undefined) ctx.addIssue({ code: 'custom', path: [name], message: 'is required with CONTROL_PLANE_URL' });
    }
  });

export type AgentConfig = z.infer<typeof schema>;
/** The config once the node's identity is known (`resolveIdentity`). */
export type ResolvedConfig = AgentConfig & { NODE_ID: string };

/** The only place node-agent reads process.env. */
export const loadConfig = (e: NodeJS.ProcessEnv = process.env): AgentConfig => parseConfig(schema, e);

/** The memory limit in bytes: the configured one, else 90% of this machine's memory. */
export const containerMemoryBytes = (config: AgentConfig): number => (config.CONTAINER_MEMORY_MB ? config.CONTAINER_MEMORY_MB * 1024 * 1024 : Math.floor(os.totalmem() * 0.9));
