/**
 * What the benches of the validation path share: client-manager and the
 * gateway (HTTPS, a local CA trusted by this process) launched as the stack
 * launches them, logs at warn, with a user whose API key they validate.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKey } from '@ocg/auth';
import { ensureLocalTls, freePorts, launchServices, testDatabase, testRedis, trustLocalCa, type LaunchedStack } from '@ocg/testing';

export interface HttpsStack {
  stack: LaunchedStack;
  /** client-manager's own URL. */
  direct: string;
  /** The gateway's HTTPS URL. */
  gateway: string;
  /** The bench user's API key. */
  apiKey: string;
  stop(): Promise<void>;
}

/** `env`: extra variables for both services (profiling, probes). */
export async function startHttpsStack(env: Record<string, string>): Promise<HttpsStack> {
  const services = ['client-manager', 'gateway'];
  const db = await testDatabase();
  const redis = await testRedis();
  const ports = await freePorts(services);
  const adminKey = generateApiKey();
  const tlsDir = mkdtempSync(join(tmpdir(), 'ocg-bench-tls-'));
  const tls = await ensureLocalTls({ dir: tlsDir, dnsNames: ['localhost'], ips: ['127.0.0.1'] });
  trustLocalCa(tls.caCertFile);
  const stack = await launchServices({
    databaseUrl: db.url,
    redisUrl: redis.url,
    ports,
    only: services,
    https: ['gateway'],
    logLevel: 'warn',
    onLine: () => undefined,
    env: { MASTER_KEY: randomBytes(32).toString('hex'), ADMIN_API_KEY: adminKey, INTERNAL_TOKEN: randomBytes(24).toString('hex'), ...env },
    serviceEnv: { gateway: { TLS_CERT_FILE: tls.certFile, TLS_KEY_FILE: tls.keyFile } },
  });
  const stop = async () => {
    await stack.stop();
    await db.drop();
    rmSync(tlsDir, { recursive: true, force: true });
  };
  try {
    const direct = stack.urls['client-manager'];
    const created = await fetch(`${direct}/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', name: 'Bench' }),
    });
    if (created.status !== 200) throw new Error(`POST /users answered ${created.status}: ${await created.text()}`);
    const apiKey = ((await created.json()) as { apiKey: { key: string } }).apiKey.key;
    return { stack, direct, gateway: stack.urls.gateway, apiKey, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
