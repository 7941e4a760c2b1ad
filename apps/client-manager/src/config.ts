import { z } from 'zod';
import { isWellFormedApiKey, resolveMasterKey } from '@ocg/auth';
import { env, parseConfig, serviceConfigShape } from '@ocg/http';

const optionalText = () =>
  z
    .string()
    .min(1)
    .optional()
    .or(z.literal('').transform(() => undefined));
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const schema = z
  .object({
    ...serviceConfigShape(8081),
    NODE_ENV: z.string().optional(),
    /** This is a development machine: the public development master key is allowed. */
    DEVELOPMENT_MACHINE: env.flag(),
    /** 32 bytes, 64 hex characters or base64: seals wallet seeds and API key text (AES-256-GCM). */
    MASTER_KEY: optionalText(),
    /** An API key (`ocg_…`) ensured at start for the operator user, holding every scope. */
    ADMIN_API_KEY: optionalText().refine((key) => key === undefined || isWellFormedApiKey(key), 'is not a well-formed API key (ocg_ + 50 base58 characters with a valid checksum)'),
    ADMIN_EMAIL: z.string().min(3).default('admin@localhost'),
    /** Service-to-service credential, header x-ocg-internal-token (the gateway never forwards it). */
    INTERNAL_TOKEN: optionalText().refine((t) => t === undefined || t.length >= 16, 'must be at least 16 characters'),
    OAUTH_ISSUER: optionalText(),
    OAUTH_AUDIENCE: optionalText(),
    OAUTH_JWKS_URL: z
      .url()
      .optional()
      .or(z.literal('').transform(() => undefined)),
    /** Inline JWKS JSON, instead of OAUTH_JWKS_URL. */
    OAUTH_JWKS: optionalText(),
    SESSION_TTL_SECONDS: positiveInt(7 * 24 * 3600),
    RATE_LIMIT_VALIDATE_PER_MINUTE: positiveInt(600),
    RATE_LIMIT_LOGIN_PER_MINUTE: positiveInt(10),
    API_KEY_CACHE_TTL_SECONDS: positiveInt(60),
    /** How long an instance answers an active key from memory, without Redis; invalidations drop it at once. */
    API_KEY_MEMORY_TTL_SECONDS: positiveInt(10),
    /** API keys a user may hold (their system key aside). */
    MAX_API_KEYS_PER_USER: positiveInt(100),
  })
  .superRefine((c, ctx) => {
    try {
      resolveMasterKey(c.MASTER_KEY, c.DEVELOPMENT_MACHINE && c.NODE_ENV !== 'production');
    } catch (err) {
      ctx.addIssue({ code: 'custom', path: ['MASTER_KEY'], message: (err as Error).message });
    }
    const oauth = [c.OAUTH_ISSUER, c.OAUTH_AUDIENCE, c.OAUTH_JWKS_URL ?? c.OAUTH_JWKS];
    if (oauth.some((v) => v !== undefined) && oauth.some((v) => v === undefined)) {
      const missing = c.OAUTH_ISSUER === undefined ? 'OAUTH_ISSUER' : c.OAUTH_AUDIENCE === undefined ? 'OAUTH_AUDIENCE' : 'OAUTH_JWKS_URL';
      ctx.addIssue({ code: 'custom', path: [missing], message: 'OAUTH_ISSUER, OAUTH_AUDIENCE and OAUTH_JWKS_URL (or OAUTH_JWKS) go together' });
    }
    if (c.OAUTH_JWKS !== undefined && !isJwks(c.OAUTH_JWKS)) ctx.addIssue({ code: 'custom', path: ['OAUTH_JWKS'], message: 'is not a JWKS ({"keys":[...]})' });
  });

function isJwks(text: string): boolean {
  try {
    return Array.isArray((JSON.parse(text) as { keys?: unknown }).keys);
  } catch {
    return false;
  }
}

export type ClientManagerConfig = z.infer<typeof schema>;

/** The only place client-manager reads process.env. */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env): ClientManagerConfig => parseConfig(schema, env);

/** The master key as bytes; the development key only on a development machine (loadConfig refuses it elsewhere). */
export function masterKeyOf(config: Pick<ClientManagerConfig, 'MASTER_KEY' | 'DEVELOPMENT_MACHINE'>): Buffer {
  return resolveMasterKey(config.MASTER_KEY, config.DEVELOPMENT_MACHINE);
}
