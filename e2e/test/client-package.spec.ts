/**
 * The published client as its users get it: `npm pack` of the built
 * package, installed into a project outside the workspace, then used from
 * Node 24 and, bundled with esbuild, from a page on another origin in
 * headless Chromium, against a real stack whose gateway lists that origin
 * (and only that one) in CORS_ORIGINS.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { generateApiKey } from '@ocg/auth';
import { listen, type RunningServer } from '@ocg/http';
import { freePorts, launchServices, testDatabase, testRedis, type LaunchedStack, type TestDatabase } from '@ocg/testing';

const ROOT = resolve(__dirname, '../..');
const NODE24 = resolve(ROOT, 'node_modules/.bin/node');
const CHROMIUM = '/usr/bin/chromium';
const SERVICES = ['client-manager', 'host-manager', 'deployment-manager', 'gateway'];
const FIXTURES = resolve(__dirname, 'support/client-package');

const op = (id: string) => ({ type: 'container/run', id, args: { image: 'busybox', cmd: ['sh', '-c', 'sleep 60'] } });
const jobBody = (market: string) => ({ definition: { version: '0.1', type: 'container', ops: [op('serve')] }, market, durationSeconds: 60 });

async function call(base: string, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** A frontend's static files, on an origin of its own. */
function site(dir: string): http.RequestListener {
  const files: Record<string, [string, string]> = { '/': ['index.html', 'text/html; charset=utf-8'], '/app.js': ['app.js', 'text/javascript; charset=utf-8'] };
  return (req, res) => {
    const file = files[(req.url ?? '/').split(/[?#]/)[0]];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file[1] }).end(readFileSync(join(dir, file[0])));
  };
}

describe('the @ocg/api-client package, installed outside the workspace', () => {
  let scratch: string;
  let consumer: string;
  let tarball: string;
  let database: TestDatabase;
  let stack: LaunchedStack;
  let gateway: string;
  let apiKey: string;
  let frontend: RunningServer;
  let stranger: RunningServer;
  const market = { name: `Package pool ${process.pid}`, pricePerSecond: 1000 };
  const lines: string[] = [];

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'ocg-client-package-'));
    const built = execFileSync(resolve(ROOT, 'node_modules/.bin/tsx'), ['tools/api-client/build.ts', '--out', join(scratch, 'package'), '--pack', scratch], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    tarball = /packed: (.+)/.exec(built)![1].trim();
    consumer = join(scratch, 'consumer');
    mkdirSync(join(consumer, 'site'), { recursive: true });
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'ocg-client-consumer', private: true, type: 'module' }));
    for (const file of ['tsconfig.json', 'use.mjs', 'check.mts', 'app.js']) writeFileSync(join(consumer, file), readFileSync(join(FIXTURES, file)));
    writeFileSync(join(consumer, 'site/index.html'), readFileSync(join(FIXTURES, 'index.html')));
    // Only the npm registry (or its cache) is needed: the package's one dependency is openapi-fetch.
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: consumer, stdio: 'pipe' });

    frontend = await listen(site(join(consumer, 'site')), { host: '127.0.0.1', port: 0 });
    stranger = await listen(site(join(consumer, 'site')), { host: '127.0.0.1', port: 0 });
    database = await testDatabase();
    const ports = await freePorts(SERVICES);
    gateway = `http://127.0.0.1:${ports.gateway}`;
    const adminKey = generateApiKey();
    stack = await launchServices({
      databaseUrl: database.url,
      redisUrl: (await testRedis()).url,
      ports,
      env: { ADMIN_API_KEY: adminKey, INTERNAL_TOKEN: `internal-token-${process.pid}-package`, MASTER_KEY: 'cd'.repeat(32) },
      serviceEnv: { gateway: { CORS_ORIGINS: frontend.url } },
      onLine: (line) => lines.push(line),
    }).catch((err: Error) => Promise.reject(new Error(`${err.message}\n${lines.slice(-20).join('\n')}`)));
    await call(gateway, adminKey, 'POST', '/markets', market);
    const created = await call(gateway, adminKey, 'POST', '/users', { email: `package-${process.pid}@example.com`, name: 'Package User' });
    await call(gateway, adminKey, 'POST', '/credits/grant', { userId: created.user.id, amount: 10_000_000, reason: 'package test' });
    apiKey = created.apiKey.key;
  }, 240_000);

  afterAll(async () => {
    await stack?.stop();
    await database?.drop();
    await frontend?.close();
    await stranger?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('packs an ESM package with declarations, versioned with the OpenAPI document, and nothing of the workspace', () => {
    const installed = join(consumer, 'node_modules/@ocg/api-client');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    const document = JSON.parse(readFileSync(resolve(ROOT, 'libs/api-spec/openapi.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@ocg/api-client', version: document.info.version, type: 'module', types: './index.d.ts' });
    expect(Object.keys(manifest.dependencies)).toEqual(['openapi-fetch']);
    expect(tarball).toMatch(new RegExp(`ocg-api-client-${document.info.version}\\.tgz$`));
    for (const file of ['index.js', 'index.d.ts', 'schema.d.ts', 'node-schema.d.ts', 'openapi.json', 'node-openapi.json', 'README.md'])
      expect(existsSync(join(installed, file))).toBe(true);
    expect(JSON.parse(readFileSync(join(installed, 'openapi.json'), 'utf8'))).toEqual(document);
    expect(readFileSync(join(installed, 'index.js'), 'utf8')).not.toMatch(/@ocg\//);
  });

  it('type-checks a TypeScript consumer (NodeNext) against the declarations, rejecting unknown paths and wrong bodies', () => {
    // check.ts holds @ts-expect-error lines: were the types `any`, tsc would fail on them.
    execFileSync(NODE24, [resolve(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(consumer, 'tsconfig.json')], { cwd: consumer, encoding: 'utf8' });
  });

  it('lists markets and posts a job from Node 24 with an API key', () => {
    const out = execFileSync(NODE24, ['use.mjs', gateway, apiKey, market.name], { cwd: consumer, encoding: 'utf8' });
    const result = JSON.parse(out);
    expect(result.node).toMatch(/^v24\./);
    expect(result.markets).toContain(market.name);
    expect(result.posted).toMatchObject({ status: 200 });
    expect(result.posted.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(result.job).toMatchObject({ address: result.posted.address, status: 'QUEUED' });
    expect(result.anonymous).toMatchObject({ status: 401, error: { status: 401, name: expect.any(String), requestId: expect.any(String) } });
  });

  describe('in headless Chromium, from a page on another origin', () => {
    let browser: Browser;

    beforeAll(async () => {
      if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install it with \`apt-get install -y chromium\``);
      // The frontend's build: its own code and the installed package, bundled for the browser.
      await build({
        entryPoints: [join(consumer, 'app.js')],
        bundle: true,
        format: 'esm',
        platform: 'browser',
        target: 'chrome120',
        outfile: join(consumer, 'site/app.js'),
        absWorkingDir: consumer,
        logLevel: 'silent',
      });
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
      });
    }, 60_000);

    afterAll(async () => {
      await browser?.close();
    });

    async function runPage(origin: string): Promise<{ result: any; console: string[]; corsHeaders: Record<string, string> }> {
      const page = await browser.newPage();
      const messages: string[] = [];
      let headers: Record<string, string> = {};
      page.on('console', (m) => messages.push(m.text()));
      page.on('response', (r) => {
        if (r.url() === `${gateway}/jobs` && r.request().method() === 'POST') headers = r.headers();
      });
      const hash = new URLSearchParams({ api: gateway, key: apiKey, job: JSON.stringify(jobBody(market.name)) });
      await page.goto(`${origin}/#${hash}`);
      await page.locator('#out[data-done]').waitFor({ timeout: 20_000 });
      const result = JSON.parse(await page.locator('#out').innerText());
      await page.close();
      return { result, console: messages, corsHeaders: Object.fromEntries(Object.entries(headers).filter(([h]) => h.startsWith('access-control-'))) };
    }

    const jobCount = async () => (await call(gateway, apiKey, 'GET', '/jobs')).jobs.length;

    it('lists markets and posts a job through the gateway, allowed by its CORS answer for the listed origin', async () => {
      const before = await jobCount();
      const { result, corsHeaders } = await runPage(frontend.url);
      expect(result.failed).toBeUndefined();
      expect(result.markets).toContain(market.name);
      expect(result.posted).toMatchObject({ status: 200, address: expect.any(String) });
      // Readable from the page only because the gateway exposes it.
      expect(result.posted.requestId).toEqual(expect.any(String));
      expect(corsHeaders).toMatchObject({ 'access-control-allow-origin': frontend.url, 'access-control-allow-credentials': 'true' });
      expect(await jobCount()).toBe(before + 1);
      // The POST with Authorization and a JSON body was preflighted, and the gateway allowed it.
      expect(lines.some((l) => /"method":"OPTIONS"/.test(l) && /"path":"\/jobs"/.test(l) && /"status":204/.test(l))).toBe(true);
    });

    it('is refused by the browser on an origin the gateway does not list, and no job is posted', async () => {
      const before = await jobCount();
      const { result, console: messages, corsHeaders } = await runPage(stranger.url);
      expect(result.failed).toMatch(/Failed to fetch/);
      expect(messages.some((m) => m.includes(stranger.url) && /blocked by CORS policy/.test(m))).toBe(true);
      expect(corsHeaders).toEqual({});
      expect(await jobCount()).toBe(before);
      expect(lines.some((l) => /"method":"OPTIONS"/.test(l) && /"status":403/.test(l))).toBe(true);
    });
  });
});
