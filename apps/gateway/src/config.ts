import { z } from 'zod';
import { env, parseConfig } from '@ocg/http';

const schema = z.object({
  HOST: env.host(),
  PORT: env.port(8080),
  LOG_LEVEL: env.logLevel(),
  REDIS_URL: env.url(),
  /** Base URL of each service, keyed by the `x-service` value in the document. */
  CLIENT_MANAGER_URL: env.url().default('http://127.0.0.1:8081'),
  HOST_MANAGER_URL: env.url().default('http://127.0.0.1:8082'),
  DEPLOYMENT_MANAGER_URL: env.url().default('http://127.0.0.1:8083'),
  /** An upstream that sends nothing for this long is given up on (504). */
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().positive().default(30000),
  /** Idle keep-alive sockets kept open per upstream service. */
  UPSTREAM_MAX_SOCKETS: z.coerce.number().int().positive().default(256),
});

export type GatewayConfig = z.infer<typeof schema>;

export const loadConfig = (e: NodeJS.ProcessEnv = process.env): GatewayConfig => parseConfig(schema, e);

/** x-service name to base URL. */
export const upstreamsOf = (config: GatewayConfig): Record<string, string> => ({
  'client-manager': config.CLIENT_MANAGER_URL,
  'host-manager': config.HOST_MANAGER_URL,
  'deployment-manager': config.DEPLOYMENT_MANAGER_URL,
});
