import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import pg from 'pg';
import { portOpen, startEphemeralPostgres, startPostgresServer, startRedisServer, waitFor } from '../src';

async function query(url: string, sql: string) {
  const client = new pg.Client(url);
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

const dirs: string[] = [];
const tempDir = () => {
  const dir = path.join(os.tmpdir(), `ocg-servers-spec-${process.pid}-${dirs.length}`);
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

it('keeps Postgres data across a stop and a start on the same data directory', async () => {
  const dataDir = tempDir();
  const first = await startPostgresServer({ dataDir, wipe: true, durable: true });
  await query(first.url, 'CREATE TABLE kept (id int)');
  await first.stop();
  const second = await startPostgresServer({ dataDir });
  try {
    expect(await query(second.url, "SELECT to_regclass('kept') AS t")).toEqual([{ t: 'kept' }]);
  } finally {
    await second.stop();
  }
});

it('starts a fresh cluster when asked to wipe the data directory', async () => {
  const dataDir = tempDir();
  const first = await startPostgresServer({ dataDir, wipe: true });
  await query(first.url, 'CREATE TABLE gone (id int)');
  await first.stop();
  const second = await startPostgresServer({ dataDir, wipe: true });
  try {
    expect(await query(second.url, "SELECT to_regclass('gone') AS t")).toEqual([{ t: null }]);
  } finally {
    await second.stop();
  }
});

it('restarts an ephemeral Postgres on the same port with its data', async () => {
  const server = await startEphemeralPostgres();
  try {
    await query(server.url, 'CREATE TABLE survives (id int)');
    await server.stop();
    expect(await portOpen(server.port)).toBe(false);
    await server.start();
    expect(await query(server.url, "SELECT to_regclass('survives') AS t")).toEqual([{ t: 'survives' }]);
  } finally {
    await server.dispose();
  }
});

it('stops the servers and deletes their data when the owning process is killed', async () => {
  const owner = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fixtures', 'owner.ts')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, TEST_DATABASE_URL: '' }, // so its testDatabase() starts a Postgres of its own
  });
  const line = await new Promise<string>((resolve, reject) => {
    owner.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()));
    owner.once('exit', (code) => reject(new Error(`owner exited early (${code})`)));
  });
  const urls = JSON.parse(line) as Record<'pg' | 'redis' | 'db', string>;
  const ports = Object.values(urls).map((u) => Number(new URL(u).port));
  const scratch = () => fs.readdirSync(os.tmpdir()).filter((e) => e.startsWith(`ocg-testing-${owner.pid}-`));
  expect(scratch().length).toBeGreaterThan(0);
  owner.kill('SIGKILL');
  for (const port of ports) await waitFor(async () => !(await portOpen(port)), { what: `port ${port} to close` });
  await waitFor(() => scratch().length === 0, { what: 'scratch data to be deleted' });
}, 30_000);

it('tells what to install when redis-server is missing', async () => {
  const saved = process.env.PATH;
  process.env.PATH = '/nonexistent';
  try {
    await expect(startRedisServer()).rejects.toThrow('apt-get install -y redis-server');
  } finally {
    process.env.PATH = saved;
  }
});
