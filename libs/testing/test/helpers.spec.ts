import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { captureLogs, dockerAvailable, ensureDocker, freePort, waitFor } from '../src';

it('waitFor returns the first value that is not undefined or false', async () => {
  let calls = 0;
  expect(await waitFor(async () => (++calls === 3 ? 'ready' : undefined), { intervalMs: 1 })).toBe('ready');
});

it('waitFor names what it waited for and the last error on timeout', async () => {
  const failing = async () => {
    throw new Error('connection refused');
  };
  await expect(waitFor(failing, { timeoutMs: 50, intervalMs: 10, what: 'the gateway' })).rejects.toThrow(
    /timed out after 50 ms waiting for the gateway \(last error: connection refused\)/,
  );
});

it('captureLogs collects pino JSON lines', () => {
  const logs = captureLogs();
  const logger = pino({ base: undefined }, logs.stream);
  logger.info({ requestId: 'r1' }, 'hello');
  expect(logs.lines()).toEqual([expect.objectContaining({ level: 30, requestId: 'r1', msg: 'hello' })]);
  expect(logs.text()).toContain('"msg":"hello"');
});

it('freePort returns a port that can be bound', async () => {
  const port = await freePort();
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await new Promise((resolve) => server.close(resolve));
});

describe('with DOCKER_HOST pointing at a remote daemon that does not answer', () => {
  const saved = process.env.DOCKER_HOST;
  beforeAll(async () => (process.env.DOCKER_HOST = `tcp://127.0.0.1:${await freePort()}`));
  afterAll(() => (saved === undefined ? delete process.env.DOCKER_HOST : (process.env.DOCKER_HOST = saved)));

  it('dockerAvailable answers false instead of throwing', async () => {
    expect(await dockerAvailable()).toBe(false);
  });

  it('ensureDocker explains why Docker is unavailable without starting a daemon', async () => {
    const usersDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocg-docker-users-spec-'));
    const docker = await ensureDocker({ usersDir });
    expect(docker).toMatchObject({ available: false, started: false, reason: expect.stringContaining('DOCKER_HOST') });
    await docker.release();
    expect(fs.readdirSync(usersDir)).toEqual([]);
    fs.rmSync(usersDir, { recursive: true });
  });
});
