import { z } from 'zod';
import { env, parseConfig, serviceConfigShape } from '@ocg/http';

const optionalText = () =>
  z
    .string()
    .min(1)
    .optional()
    .or(z.literal('').transform(() => undefined));
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const schema = z.object({
  ...serviceConfigShape(8082),
  /** Validates API keys (POST /auth/validate-api-key). */
  CLIENT_MANAGER_URL: z.url().default('http://127.0.0.1:8081'),
  /** Where disabling or removing a node stops its jobs (POST /internal/nodes/{node}/stop-jobs). */
  DEPLOYMENT_MANAGER_URL: z.url().default('http://127.0.0.1:8083'),
  /** Timeout of a call to deployment-manager. */
  DEPLOYMENT_MANAGER_TIMEOUT_MS: positiveInt(10_000),
  /** Service-to-service credential (header x-ocg-internal-token). Unset: internal routes refuse every call. */
  INTERNAL_TOKEN: optionalText().refine((t) => t === undefined || t.length >= 16, 'must be at least 16 characters'),
  /** How long an API key's validation is reused; invalidations from client-manager drop it sooner. */
  API_KEY_CACHE_TTL_MS: positiveInt(10_000),
  /** A node without a heartbeat for this long is OFFLINE. */
  NODE_PRESENCE_TTL_SECONDS: positiveInt(30),
  /** lastSeenAt is written to Postgres at most this often per node. */
  NODE_LAST_SEEN_WRITE_SECONDS: positiveInt(60),
  /** How old a node's signed request may be. */
  NODE_SIGNATURE_MAX_AGE_SECONDS: positiveInt(300),
  /** Accept node ingress URLs on loopback, private, link-local and reserved addresses (the local stack, tests). */
  ALLOW_PRIVATE_INGRESS: env.flag(),
  /** Private ranges node ingress URLs may use anyway (an operator's own node network), e.g. `10.20.0.0/16`. */
  INGRESS_ALLOW_CIDRS: env.cidrs(),
  /** How long an apply waits for another apply to finish before answering 409. */
  BENCHMARK_APPLY_LOCK_TIMEOUT_MS: positiveInt(30_000),
});

export type HostManagerConfig = z.infer<typeof schema>;

/** The only place host-manager reads process.env. */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env): HostManagerConfig => parseConfig(schema, env);
