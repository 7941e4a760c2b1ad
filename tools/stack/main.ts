/**
 * The local stack: one command starts Postgres (embedded) and Redis when no
 * URLs are given, every service, waits for each /readyz, prints the gateway
 * URL and shows it answering. Ctrl-C or SIGTERM stops everything it started.
 *
 *   npm run stack    (variables: DATABASE_URL, REDIS_URL, STACK_HOST, GATEWAY_PORT, STACK_PG_PORT, STACK_REDIS_PORT, LOG_LEVEL)
 */
import { join, resolve } from 'node:path';
import { launchServices, startPostgresServer, startRedisServer } from '@ocg/testing';
import { loadOrCreateSecrets } from './secrets';

const dataDir = join(resolve(__dirname, '../..'), '.data');
const stoppers: { name: string; stop(): Promise<void> }[] = [];
let stopping = false;

const step = (text: string): void => console.log(`stack: ${text}`);

async function dependencies(): Promise<{ databaseUrl: string; redisUrl: string }> {
  let databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const t = Date.now();
    const pg = await startPostgresServer({ dataDir: join(dataDir, 'postgres'), port: Number(process.env.STACK_PG_PORT ?? 54320), durable: true, logFile: join(dataDir, 'postgres.log') });
    stoppers.push({ name: 'postgres', stop: pg.stop });
    databaseUrl = pg.url;
    step(`embedded Postgres ready on port ${new URL(pg.url).port}, data in .data/postgres (${Date.now() - t} ms)`);
  }
  let redisUrl = process.env.REDIS_URL;
  if (!redisUrl) {
    const t = Date.now();
    const redis = await startRedisServer({ port: Number(process.env.STACK_REDIS_PORT ?? 63790), dataDir: join(dataDir, 'redis') });
    stoppers.push({ name: 'redis', stop: redis.stop });
    redisUrl = redis.url;
    step(`redis-server ready on port ${new URL(redis.url).port} (${Date.now() - t} ms)`);
  }
  return { databaseUrl, redisUrl };
}

async function main(): Promise<void> {
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  const { databaseUrl, redisUrl } = await dependencies();
  const { secrets, created } = loadOrCreateSecrets(join(dataDir, 'secrets.json'));
  step(`${created ? 'created' : 'using'} the stack's master key, internal token and admin API key in .data/secrets.json`);
  const gatewayPort: Record<string, number> = process.env.GATEWAY_PORT ? { gateway: Number(process.env.GATEWAY_PORT) } : {};
  const stack = await launchServices({
    databaseUrl,
    redisUrl,
    host: process.env.STACK_HOST,
    ports: gatewayPort,
    logLevel: process.env.LOG_LEVEL,
    env: { ...secrets },
    onStep: step,
    onUnexpectedExit: (name, code) => {
      step(`${name} exited unexpectedly (code ${code}); stopping the stack`);
      void shutdown(1);
    },
  });
  stoppers.push({ name: 'services', stop: stack.stop });
  const gateway = stack.urls.gateway;
  const res = await fetch(`${gateway}/auth/scopes`);
  const body = (await res.json()) as { scopes: { scope: string }[] };
  step(`GET ${gateway}/auth/scopes -> ${res.status}, ${body.scopes.length} scopes (${body.scopes.map((s) => s.scope).join(', ')})`);
  console.log(
    [
      '',
      `  Gateway:   ${gateway}`,
      `  API docs:  ${gateway}/docs`,
      `  Try:       curl ${gateway}/auth/scopes`,
      `  Admin key: export OCG_API_KEY=$(node -p "require('./.data/secrets.json').ADMIN_API_KEY")`,
      `  A user:    npm run ocg -- admin user create --email you@example.com --name You`,
      '',
      '  Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  step('stopping');
  for (const item of stoppers.reverse()) {
    await item.stop().catch((err: unknown) => step(`${item.name} did not stop cleanly: ${(err as Error).message}`));
  }
  step('stopped');
  process.exit(code);
}

main().catch(async (err: unknown) => {
  console.error(`stack: ${(err as Error).message}`);
  await shutdown(1);
});
