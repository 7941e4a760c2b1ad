import { z } from 'zod';
import { parseCidrList } from './address-policy';
import { tracingConfigShape } from './tracing';

/** Thrown when the environment does not satisfy a service's config schema. */
export class ConfigError extends Error {
  constructor(readonly problems: { variable: string; message: string }[]) {
    super('Invalid configuration:\n' + problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n'));
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment once, at start, against a schema whose keys are the
 * variable names, so every message names the variable to fix.
 */
export function parseConfig<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => {
      const variable = String(issue.path[0] ?? '(root)');
      const unset = env[variable] === undefined || env[variable] === '';
      // The value is never quoted: a rejected MASTER_KEY or DATABASE_URL is still a secret.
      return { variable, message: unset ? 'is required but not set' : scrubValue(issue.message, env[variable] ?? '') };
    }),
  );
}

/** Schema messages may echo what they rejected (zod quotes enum misses); the value is cut out of them. */
function scrubValue(message: string, value: string): string {
  return value.length >= 3 ? message.split(value).join('[value not shown]') : message;
}

/** Common variable shapes, so services spell them the same way. */
export const env = {
  port: (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback),
  host: () => z.string().min(1).default('127.0.0.1'),
  url: () => z.url(),
  logLevel: () => z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  seconds: (fallback: number) => z.coerce.number().positive().default(fallback),
  /** `true`/`1` or `false`/`0` (unset: false, or `fallback`). */
  flag: (fallback = false) =>
    z
      .enum(['true', 'false', '1', '0', ''])
      .default(fallback ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1'),
  /** A comma-separated list of CIDR ranges (unset: none), refused at start when one does not parse. */
  cidrs: () =>
    z
      .string()
      .default('')
      .superRefine((text, ctx) => {
        try {
          parseCidrList(text);
        } catch (err) {
          ctx.addIssue({ code: 'custom', message: (err as Error).message });
        }
      }),
};

/**
 * Where Prometheus reads `/metrics`: a listener of its own, never the
 * service's own port (the gateway's is public). Unset port: no metrics.
 */
export const metricsConfigShape = () => ({
  METRICS_HOST: env.host(),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
});

/** Variables every back-end service reads. */
export const serviceConfigShape = (defaultPort: number) => ({
  HOST: env.host(),
  PORT: env.port(defaultPort),
  DATABASE_URL: env.url(),
  REDIS_URL: env.url(),
  LOG_LEVEL: env.logLevel(),
  ...tracingConfigShape,
  ...metricsConfigShape(),
});
