/**
 * Issue 11, item 1: a client that sends a WebSocket upgrade and resets the
 * TCP connection, at any moment, ends neither the gateway nor the node
 * agent. Both run as real child processes; the control plane and the node
 * ingress behind the gateway are small servers here, slow on purpose so the
 * resets land during the host lookup and while the upstream has not answered.
 */
import net from 'node:net';
import http from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { listen, type RunningServer } from '@ocg/http';
import {
  BUSYBOX_IMAGE,
  ensureBusyboxImage,
  freePort,
  launchServices,
  removeNodeObjects,
  testNodeId,
  startTsProcess,
  testRedis,
  waitFor,
  type LaunchedStack,
  type ManagedProcess,
  testResourceDir,
} from '@ocg/testing';

const TOKEN = 'internal-token-for-upgrade-reset-tests';
const DOMAIN = 'nodes.reset.test';
const ROUNDS = 500;
const PARALLEL = 25;

/** Sends an upgrade request to `port` with this Host, waits `afterMs`, then resets the connection (RST, not FIN). */
function upgradeThenReset(port: number, host: string, afterMs: number, path = '/ws'): Promise<void> {
  return new Promise((done) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.on('error', () => done());
    socket.on('close', () => done());
    socket.on('connect', () => {
      const key = randomBytes(16).toString('base64');
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`);
      setTimeout(() => socket.resetAndDestroy(), afterMs);
    });
  });
}

/** ROUNDS connections, PARALLEL at a time; delays cycle through 0..maxDelayMs so resets land at every stage. */
async function hammer(port: number, host: string, maxDelayMs: number, path?: string): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < ROUNDS) {
      const i = next++;
      await upgradeThenReset(port, host, i % (maxDelayMs + 1), path);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
}

const alive = (proc: ManagedProcess) => proc.child.exitCode === null && proc.child.signalCode === null;

describe('upgrade requests reset by the client', () => {
  let controlPlane: RunningServer;
  let silentNode: RunningServer;
  let gateway: LaunchedStack;
  let gatewayUrl: string;
  const lines: string[] = [];
  const upstreamSockets = new Set<net.Socket>();

  beforeAll(async () => {
    // A node ingress that accepts and never answers: the upstream "has not answered" for as long as the client waits.
    silentNode = await listen(() => undefined, { host: '127.0.0.1', port: 0 });
    silentNode.server.on('upgrade', (_req, socket: net.Socket) => {
      upstreamSockets.add(socket);
      socket.on('error', () => undefined);
      // As an ingress does: reads, and hangs up when the gateway does.
      socket.resume();
      socket.once('end', () => socket.destroy());
      socket.once('close', () => upstreamSockets.delete(socket));
    });
    // deployment-manager and host-manager's internal routes, answering after 15 ms (the lookup in flight).
    controlPlane = await listen(
      (req, res) => {
        const [, , kind, id] = (req.url ?? '').split('/');
        setTimeout(() => {
          if (kind === 'jobs' && id === 'hangjob')
            return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ job: 'hangjob', status: 'RUNNING', node: 'node1' }));
          if (kind === 'nodes' && id === 'node1')
            return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ address: 'node1', ingressUrl: silentNode.url, status: 'ONLINE' }));
          res.writeHead(404).end();
        }, 15);
      },
      { host: '127.0.0.1', port: 0 },
    );
    gateway = await launchServices({
      only: ['gateway'],
      databaseUrl: 'postgres://unused.invalid/none',
      redisUrl: (await testRedis()).url,
      ports: { gateway: await freePort() },
      logLevel: 'warn',
      serviceEnv: {
        gateway: {
          INTERNAL_TOKEN: TOKEN,
          NODE_DOMAIN: DOMAIN,
          DEPLOYMENT_MANAGER_URL: controlPlane.url,
          HOST_MANAGER_URL: controlPlane.url,
          INGRESS_NEGATIVE_CACHE_MS: '0',
          INGRESS_CACHE_MS: '0',
          INGRESS_LOOKUPS_PER_MINUTE: '0',
        },
      },
      onLine: (line) => lines.push(line),
    });
    gatewayUrl = gateway.urls.gateway;
  }, 90_000);

  afterAll(async () => {
    await gateway?.stop();
    for (const socket of upstreamSockets) socket.destroy();
    await Promise.all([controlPlane?.close(), silentNode?.close()]);
  }, 60_000);

  const gatewayPort = () => Number(new URL(gatewayUrl).port);
  const expectGatewayHealthy = async () => {
    expect(alive(gateway.processes.get('gateway')!)).toBe(true);
    const res = await fetch(`${gatewayUrl}/healthz`);
    expect(res.status).toBe(200);
  };

  it('survives resets on the API host, where the upgrade is refused with 404', async () => {
    await hammer(gatewayPort(), '127.0.0.1', 3);
    await expectGatewayHealthy();
  }, 120_000);

  it('survives resets on a job host during the lookup and while the 404 is written', async () => {
    await hammer(gatewayPort(), `nosuchjob.${DOMAIN}`, 30);
    await expectGatewayHealthy();
  }, 120_000);

  it('survives resets on a job host while the node has not answered, and closes the upstream connections', async () => {
    await hammer(gatewayPort(), `hangjob.${DOMAIN}`, 40);
    await expectGatewayHealthy();
    await waitFor(() => upstreamSockets.size === 0, { timeoutMs: 10_000, intervalMs: 100, what: `the upstream sockets to close (${upstreamSockets.size} open)` });
  }, 120_000);

  it('survives resets on a node host, whose upgrades are refused', async () => {
    await hammer(gatewayPort(), `node1.${DOMAIN}`, 30);
    await expectGatewayHealthy();
  }, 120_000);

  describe('the node agent', () => {
    let agent: ManagedProcess;
    const agentLines: string[] = [];
    let ingressPort: number;
    let apiUrl: string;
    const nodeAddress = 'ResetNodeAddr1';

    beforeAll(async () => {
      agent = startTsProcess(
        'node-agent',
        resolve(__dirname, '../../node-agent/src/main.ts'),
        {
          API_PORT: '0',
          INGRESS_PORT: '0',
          NODE_ID: `t-reset-${randomBytes(3).toString('hex')}`,
          NODE_ADDRESS: nodeAddress,
          NODE_GPUS: 'false',
          RESOURCE_CACHE_DIR: testResourceDir(),
          LOG_LEVEL: 'info',
          NODE_DOMAIN: DOMAIN,
        },
        0,
        (line) => agentLines.push(line),
      );
      const ready = await waitFor(() => agentLines.find((l) => l.includes('node agent ready')), { timeoutMs: 60_000, intervalMs: 100, what: 'the node agent to start' });
      ingressPort = Number(/"ingress":"http:\/\/[^:]+:(\d+)/.exec(ready)![1]);
      apiUrl = /"api":"(http:\/\/[^"]+)"/.exec(ready)![1];
    }, 90_000);

    afterAll(async () => {
      await agent?.stop();
    });

    it('survives resets on its ingress, for unknown jobs and for its own API host', async () => {
      await hammer(ingressPort, `unknownjob.${DOMAIN}`, 3);
      await hammer(ingressPort, `${nodeAddress.toLowerCase()}.${DOMAIN}`, 3);
      expect(alive(agent)).toBe(true);
      expect((await fetch(`${apiUrl}/healthz`)).status).toBe(200);
    }, 120_000);
  });

  describe('the node agent running a job', () => {
    let agent: ChildProcess;
    const agentLines: string[] = [];
    const nodeId = testNodeId('reset');
    const dir = mkdtempSync(join(tmpdir(), 'ocg-upgrade-reset-'));
    let ingressPort: number;
    let apiUrl: string;
    let host: string;

    beforeAll(async () => {
      await ensureBusyboxImage();
      // busybox httpd with a CGI that answers nothing for 20 s: the container "has not answered" while clients reset.
      const script =
        "mkdir -p /www/cgi-bin && echo ok > /www/index.html && printf '#!/bin/sh\\nsleep 20\\n' > /www/cgi-bin/hang && chmod +x /www/cgi-bin/hang && exec httpd -f -p 8080 -h /www";
      const file = join(dir, 'job.json');
      writeFileSync(
        file,
        JSON.stringify({ version: '0.1', type: 'container', ops: [{ type: 'container/run', id: 'web', args: { image: BUSYBOX_IMAGE, cmd: ['sh', '-c', script], expose: 8080 } }] }),
      );
      agent = spawn(process.execPath, ['--import', 'tsx', resolve(__dirname, '../../node-agent/src/main.ts'), '--run', file], {
        env: {
          ...process.env,
          API_PORT: '0',
          INGRESS_PORT: '0',
          NODE_ID: nodeId,
          NODE_GPUS: 'false',
          RESOURCE_CACHE_DIR: testResourceDir(),
          NODE_DOMAIN: DOMAIN,
          CONTAINER_MEMORY_MB: '256',
          STOP_GRACE_SECONDS: '1',
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      for (const stream of [agent.stdout!, agent.stderr!]) createInterface({ input: stream }).on('line', (l) => agentLines.push(l));
      const ready = await waitFor(() => agentLines.find((l) => l.includes('node agent ready')), { timeoutMs: 60_000, intervalMs: 100, what: 'the node agent to start' });
      apiUrl = /"api":"(http:\/\/[^"]+)"/.exec(ready)![1];
      const submitted = await waitFor(() => agentLines.find((l) => l.includes('job submitted')), { timeoutMs: 60_000, intervalMs: 100, what: 'the job to be submitted' });
      const url = new URL(/"url":"([^"]+)"/.exec(submitted)![1]);
      ingressPort = Number(url.port);
      host = url.hostname.toLowerCase();
      await waitFor(async () => (await status(ingressPort, host)) === 200, {
        timeoutMs: 60_000,
        intervalMs: 200,
        what: `the job's endpoint to answer\n${agentLines.slice(-10).join('\n')}`,
      });
    }, 120_000);

    afterAll(async () => {
      if (agent && agent.exitCode === null && agent.signalCode === null) {
        const exited = new Promise((r) => agent.once('exit', r));
        agent.kill('SIGTERM');
        const timer = setTimeout(() => agent.kill('SIGKILL'), 30_000);
        await exited;
        clearTimeout(timer);
      }
      await removeNodeObjects(nodeId);
      rmSync(dir, { recursive: true, force: true });
    }, 60_000);

    it('survives resets on its ingress while the container has not answered', async () => {
      await hammer(ingressPort, host, 40, '/cgi-bin/hang');
      expect(agent.exitCode).toBeNull();
      expect((await fetch(`${apiUrl}/healthz`)).status).toBe(200);
      expect(await status(ingressPort, host)).toBe(200);
    }, 180_000);
  });
});

/** The status of a plain GET / with this Host (0: no answer). */
function status(port: number, host: string): Promise<number> {
  return new Promise((done) => {
    http
      .get({ host: '127.0.0.1', port, path: '/', headers: { host }, timeout: 5000 }, (res) => {
        res.resume();
        done(res.statusCode ?? 0);
      })
      .on('error', () => done(0));
  });
}
