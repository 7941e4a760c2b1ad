import { z } from 'zod';
import { env, metricsConfigShape, parseConfig, tracingConfigShape } from '@ocg/http';
import { parseCorsOrigins } from './cors';

const rate = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

const schema = z
  .object({
    HOST: env.host(),
    PORT: env.port(8080),
    LOG_LEVEL: env.logLevel(),
    ...tracingConfigShape,
    REDIS_URL: env.url(),
    /** `/metrics` on a listener of its own (METRICS_HOST:METRICS_PORT), never on the public PORT. */
    ...metricsConfigShape(),
    /** Base URL of each service, keyed by the `x-service` value in the document. */
    CLIENT_MANAGER_URL: env.url().default('http://127.0.0.1:8081'),
    HOST_MANAGER_URL: env.url().default('http://127.0.0.1:8082'),
    DEPLOYMENT_MANAGER_URL: env.url().default('http://127.0.0.1:8083'),
    /** An upstream that sends nothing for this long is given up on (504). */
    UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(30000),
    /** Idle keep-alive sockets kept open per upstream service. */
    UPSTREAM_MAX_SOCKETS: z.coerce.number().int().positive().default(256),
    /** Jobs are served at `<job>[-<port>].<NODE_DOMAIN>`, nodes' APIs at `<node>.<NODE_DOMAIN>`. */
    NODE_DOMAIN: z.string().min(1).default('nodes.localhost'),
    /** The service-to-service credential; the ingress and the job and market pages need it to look things up. */
    INTERNAL_TOKEN: z.string().min(16).optional(),
    /** How long a job's route is used before it is looked up again (job ends also arrive at once through Redis). */
    INGRESS_CACHE_MS: z.coerce.number().int().min(0).default(2000),
    /** How long the last known route of a running job is served while deployment-manager, host-manager, Postgres or Redis cannot answer. */
    INGRESS_STALE_MS: z.coerce.number().int().min(0).default(600_000),
    /** How long "no such job or node" and failed lookups are remembered (at most one lookup per host per this). */
    INGRESS_NEGATIVE_CACHE_MS: z.coerce.number().int().min(0).default(1000),
    /** Let node ingress URLs lead to loopback, private, link-local and reserved addresses (the local stack, tests). */
    ALLOW_PRIVATE_INGRESS: env.flag(),
    /** Ranges node ingress URLs may lead to although private (an operator's own node network), e.g. `10.20.0.0/16`. */
    INGRESS_ALLOW_CIDRS: env.cidrs(),
    /** PEM file of CA certificates trusted for https:// node ingress URLs, besides the system's. */
    INGRESS_CA_FILE: z.string().min(1).optional(),
    /** Load balancers and proxies in front of the gateway whose X-Forwarded-For/-Proto/-Host are believed (CIDR list). Default: none. */
    TRUSTED_PROXIES: env.cidrs(),
    /** Per client address and minute: lookups of job and node hosts the gateway does not know yet (0: no limit). */
    INGRESS_LOOKUPS_PER_MINUTE: rate(60),
    /** Per client address and minute: job and market page views (0: no limit). */
    PAGE_VIEWS_PER_MINUTE: rate(120),
    /** A node ingress that sends nothing for this long is given up on. */
    INGRESS_TIMEOUT_MS: z.coerce.number().int().positive().default(300000),
    /** Relay job hosts' connections to the node's ingress as bytes (ADR 0084); off: every request through the HTTP server (as with tracing on). */
    INGRESS_RELAY: env.flag(true),
    /** Relay API requests to their services as bytes (ADR 0086); off: every API request through the HTTP server (as with tracing on). */
    API_RELAY: env.flag(true),
    /** Frontend origins that may call the API from a browser, credentials included (comma list of exact origins; unset: no CORS headers). */
    CORS_ORIGINS: z
      .string()
      .default('')
      .transform((text, ctx) => {
        try {
          return parseCorsOrigins(text);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
          return z.NEVER;
        }
      }),
    /** PEM certificate chain and key: when both are set, PORT serves HTTPS. */
    TLS_CERT_FILE: z.string().min(1).optional(),
    TLS_KEY_FILE: z.string().min(1).optional(),
    /**
     * How often the certificate files (TLS_* and EDGE_TLS_*) are checked for a renewal, which is then served to new
     * connections without a restart (a pair that does not load is logged and the previous one kept). 0: never.
     */
    TLS_RELOAD_INTERVAL_MS: z.coerce
      .number()
      .int()
      .refine((ms) => ms === 0 || ms >= 100, 'either 0 (never) or at least 100 (ms)')
      .default(30_000),
    /** With TLS on, a plain-HTTP port that redirects every request to HTTPS (308). */
    HTTP_REDIRECT_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /** The HTTPS port clients see (redirects name it); default PORT. */
    PUBLIC_HTTPS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
    /**
     * Job and node hosts also served at EDGE_HOST:EDGE_PORT by HAProxy, the gateway's child, with the same certificate
     * (ADR 0093): a label whose endpoint has a forward is sent there by HAProxy itself. Point job URLs here
     * (deployment-manager's NODE_PUBLIC_PORT). Unset or empty: off. Needs a certificate (EDGE_TLS_* or TLS_*) and INTERNAL_TOKEN.
     */
    EDGE_PORT: z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), z.coerce.number().int().min(0).max(65535).optional()),
    /** The edge's certificate chain and key (PEM); default TLS_CERT_FILE and TLS_KEY_FILE. A gateway behind a TLS-ending Ingress serves plain HTTP on PORT and its edge HTTPS. */
    EDGE_TLS_CERT_FILE: z.string().min(1).optional(),
    EDGE_TLS_KEY_FILE: z.string().min(1).optional(),
    /** The edge's address; default HOST. */
    EDGE_HOST: z.string().min(1).optional(),
    /**
     * Load balancers in front of the edge that open each connection with a PROXY protocol header (v1 or v2) naming
     * the client (CIDR list): the edge then states that client, as the gateway does for TRUSTED_PROXIES. Connections
     * from elsewhere are taken as they come. Empty: none.
     */
    EDGE_PROXY_PROTOCOL_FROM: env.cidrs(),
    /** HAProxy's executable (2.6 or later). */
    EDGE_HAPROXY: z.string().min(1).default('haproxy'),
    /** The edge's files (its configuration, certificate, sockets); default `<tmp>/ocg-edge-<EDGE_PORT>`. Made for the gateway's user alone. */
    EDGE_DIR: z.string().min(1).optional(),
    /** HAProxy's threads. */
    EDGE_THREADS: z.coerce.number().int().min(1).max(64).default(1),
    /** Client connections the edge holds at most (HAProxy's maxconn; it needs about twice as many file descriptors). */
    EDGE_MAX_CONNECTIONS: z.coerce.number().int().min(16).default(4096),
    /** How long the edge sends a label to its forward before asking the gateway again (route changes take it back at once). */
    EDGE_ROUTE_TTL_MS: z.coerce.number().int().min(100).default(10_000),
  })
  .superRefine((c, ctx) => {
    if (Boolean(c.TLS_CERT_FILE) !== Boolean(c.TLS_KEY_FILE)) {
      ctx.addIssue({ code: 'custom', path: [c.TLS_CERT_FILE ? 'TLS_KEY_FILE' : 'TLS_CERT_FILE'], message: 'TLS_CERT_FILE and TLS_KEY_FILE go together' });
    }
    if (Boolean(c.EDGE_TLS_CERT_FILE) !== Boolean(c.EDGE_TLS_KEY_FILE)) {
      ctx.addIssue({ code: 'custom', path: [c.EDGE_TLS_CERT_FILE ? 'EDGE_TLS_KEY_FILE' : 'EDGE_TLS_CERT_FILE'], message: 'EDGE_TLS_CERT_FILE and EDGE_TLS_KEY_FILE go together' });
    }
    if (c.EDGE_PORT !== undefined && !c.TLS_CERT_FILE && !c.EDGE_TLS_CERT_FILE) {
      ctx.addIssue({ code: 'custom', path: ['EDGE_PORT'], message: 'the edge serves HTTPS: it needs EDGE_TLS_CERT_FILE and EDGE_TLS_KEY_FILE, or TLS_CERT_FILE and TLS_KEY_FILE' });
    }
    if (c.EDGE_PORT !== undefined && !c.INTERNAL_TOKEN) {
      ctx.addIssue({ code: 'custom', path: ['EDGE_PORT'], message: 'the edge serves job hosts: it needs INTERNAL_TOKEN' });
    }
    if (c.HTTP_REDIRECT_PORT !== undefined && !c.TLS_CERT_FILE) {
      ctx.addIssue({ code: 'custom', path: ['HTTP_REDIRECT_PORT'], message: 'redirects to HTTPS need TLS_CERT_FILE and TLS_KEY_FILE' });
    }
  });

export type GatewayConfig = z.infer<typeof schema>;

export const loadConfig = (e: NodeJS.ProcessEnv = process.env): GatewayConfig => parseConfig(schema, e);

/** x-service name to base URL. */
export const upstreamsOf = (config: GatewayConfig): Record<string, string> => ({
  'client-manager': config.CLIENT_MANAGER_URL,
  'host-manager': config.HOST_MANAGER_URL,
  'deployment-manager': config.DEPLOYMENT_MANAGER_URL,
});
