/**
 * The job and market pages in a real browser: headless Chromium against a
 * gateway whose pages read real client-manager, host-manager and
 * deployment-manager processes. No node runs, so the job stays QUEUED.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { generateApiKey } from '@ocg/auth';
import { freePorts, launchServices, testDatabase, testRedis, type LaunchedStack, type TestDatabase } from '@ocg/testing';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = resolve(__dirname, '../../..');
const SHOTS = resolve(ROOT, 'tmp/pages');
const SERVICES = ['client-manager', 'host-manager', 'deployment-manager', 'gateway'];

async function call(base: string, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

describe('job and market pages in Chromium', () => {
  let database: TestDatabase;
  let stack: LaunchedStack;
  let browser: Browser;
  let gateway: string;
  let job: { address: string };
  const market = { name: `Browser pool ${process.pid}`, pricePerSecond: 1500 };
  const lines: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install it with \`apt-get install -y chromium\``);
    database = await testDatabase();
    const ports = await freePorts(SERVICES);
    gateway = `http://127.0.0.1:${ports.gateway}`;
    const adminKey = generateApiKey();
    stack = await launchServices({
      databaseUrl: database.url,
      redisUrl: (await testRedis()).url,
      ports,
      logLevel: 'warn',
      env: { INTERNAL_TOKEN: 'internal-token-for-page-tests', MASTER_KEY: 'ef'.repeat(32), ADMIN_API_KEY: adminKey },
      serviceEnv: { 'deployment-manager': { PUBLIC_URL: gateway } },
      onLine: (line) => lines.push(line),
    }).catch((err: Error) => Promise.reject(new Error(`${err.message}\n${lines.slice(-20).join('\n')}`)));
    await call(gateway, adminKey, 'POST', '/markets', market);
    const { user, apiKey } = await call(gateway, adminKey, 'POST', '/users', { email: `pages-${process.pid}@example.com`, name: 'Page Tester' });
    await call(gateway, adminKey, 'POST', '/credits/grant', { userId: user.id, amount: 10_000_000, reason: 'page test' });
    const op = (id: string) => ({ type: 'container/run', id, args: { image: 'busybox', cmd: ['sh', '-c', 'sleep 60'] } });
    job = await call(gateway, apiKey.key, 'POST', '/jobs', {
      definition: { version: '0.1', type: 'container', ops: [op('prepare'), op('serve')] },
      market: market.name,
      durationSeconds: 60,
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
    mkdirSync(SHOTS, { recursive: true });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
    await database?.drop();
  });

  it('shows the queued job with its ops and price, and links to its market page', async () => {
    const page = await browser.newPage();
    const opened = await page.goto(`${gateway}/jobs/${job.address}`);
    expect(opened?.status()).toBe(200);
    expect(await page.locator('h1').innerText()).toBe(`Job ${job.address}`);
    const text = await page.locator('body').innerText();
    expect(text).toContain('QUEUED');
    expect(text).toMatch(/prepare[\s\S]*serve/);
    expect(text).toContain('0.0015 credits/s (1,500 units/s)');
    expect(await page.locator('meta[http-equiv="refresh"]').getAttribute('content')).toBe('5');
    await page.screenshot({ path: resolve(SHOTS, 'job.png'), fullPage: true });

    await page.getByRole('link', { name: market.name }).click();
    await page.waitForURL(/\/markets\//);
    expect(await page.locator('h1').innerText()).toBe(`Market ${market.name}`);
    const marketText = await page.locator('body').innerText();
    expect(marketText).toContain('0.0015 credits/s (1,500 units/s), 5.4 credits/h');
    expect(marketText).toContain('0 nodes, 0 online');
    expect(marketText).toContain('0 running');
    await page.screenshot({ path: resolve(SHOTS, 'market.png'), fullPage: true });
    await page.close();
  });

  it('shows the not-found page for a job nobody posted', async () => {
    const page = await browser.newPage();
    const opened = await page.goto(`${gateway}/jobs/11111111111111111111111111111111`);
    expect(opened?.status()).toBe(404);
    expect(await page.locator('h1').innerText()).toBe('No such job');
    await page.close();
  });

  it('still answers JSON at the same link to an API client', async () => {
    const res = await fetch(`${gateway}/jobs/${job.address}`, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });
});
