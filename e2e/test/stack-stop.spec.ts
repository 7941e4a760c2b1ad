/**
 * Stopping the local stack stops its jobs: Ctrl-C (SIGINT to every process of
 * the terminal's group, twice, as an impatient user does) drains the node
 * first, so nothing of its jobs is left in Docker, each job is STOPPED and
 * billed, and the next start brings the demo node up again. A launcher
 * killed outright leaves none of its processes running and nothing in Docker.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { fetch as tlsFetch } from 'undici';
import { createApiClient, type ApiClient } from '@ocg/api-client';
import { localHttpsDispatcher, removeNodeObjects, testDatabase, testNodeId, testRedis, waitFor } from '@ocg/testing';
import { ctrlC, lineOf, startStack, type StackProcess } from './support/stack-process';

const docker = new Docker({ socketPath: '/var/run/docker.sock' });

type Stack = StackProcess;

/** Until the stack has posted its example job and printed the summary. */
async function ready(stack: Stack): Promise<void> {
  await lineOf(stack, /Its service:/, 'the stack to post its example job');
}

async function nodeObjects(node: string): Promise<string[]> {
  const filters = JSON.stringify({ label: [`ocg.node=${node}`] });
  const containers = await docker.listContainers({ all: true, filters });
  const networks = await docker.listNetworks({ filters });
  const { Volumes } = await docker.listVolumes({ filters });
  return [...containers.map((c) => `container ${c.Names[0]}`), ...networks.map((n) => `network ${n.Name}`), ...(Volumes ?? []).map((v) => `volume ${v.Name}`)];
}

/** The processes `parent` started from the checkout's apps (its services and node agent). */
function childrenOf(parent: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
        return ppid === parent && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('/apps/');
      } catch {
        return false; // gone meanwhile
      }
    });
}

/** Running: a process that exited but was not reaped (a zombie) is not. */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1][0] !== 'Z';
  } catch {
    return false;
  }
}

describe('stopping the local stack', () => {
  let dataDir: string;
  let dropDb: () => Promise<void>;
  let env: Record<string, string>;
  const stacks: Stack[] = [];
  const nodeId = testNodeId('e2e-stack-stop');

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ocg-e2e-stack-stop-'));
    const db = await testDatabase();
    dropDb = db.drop;
    const redis = await testRedis();
    // The agent's Docker objects carry a node id owned by this process: swept even when the run is killed.
    env = { STACK_DATA_DIR: dataDir, STACK_FREE_PORTS: '1', DATABASE_URL: db.url, REDIS_URL: redis.url, LOG_LEVEL: 'warn', NODE_ID: nodeId };
  });

  afterAll(async () => {
    for (const s of stacks) if (s.child.exitCode === null && s.child.signalCode === null) await ctrlC(s).catch(() => undefined);
    await removeNodeObjects(nodeId);
    await dropDb?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The demo user's client on this stack's gateway, trusting the stack's CA. */
  function demoUser(stack: Stack): ApiClient {
    const gateway = stack.lines.find((l) => l.includes('Gateway:'))!.match(/https:\/\/\S+/)![0];
    const dispatcher = localHttpsDispatcher(join(dataDir, 'tls', 'ca.crt'));
    const clientFetch = async (input: string | URL | Request): Promise<Response> => {
      const req = input instanceof Request ? input : new Request(input);
      return (await tlsFetch(req.url, { method: req.method, headers: [...req.headers], body: req.body ? await req.text() : undefined, dispatcher })) as unknown as Response;
    };
    return createApiClient({ baseUrl: gateway, apiKey: JSON.parse(readFileSync(join(dataDir, 'demo.json'), 'utf8')).userKey, fetch: clientFetch });
  }

  it('drains the node on Ctrl-C: nothing left in Docker, the job STOPPED and billed, the next start brings the node up, and killed outright it leaves nothing running', async () => {
    const first = startStack(env);
    stacks.push(first);
    await ready(first);
    // The console names the node's address; its Docker objects carry NODE_ID.
    const node = first.lines.find((l) => /stack: node \S+ online/.test(l))!.match(/node (\S+) online/)![1];
    let user = demoUser(first);
    const definition = {
      version: '0.1' as const,
      type: 'container' as const,
      ops: [{ type: 'container/run' as const, id: 'work', args: { image: 'ocg/busybox:local', cmd: ['sleep', '3600'] } }],
    };
    const posted = await user.POST('/jobs', { body: { definition, market: 'local-cpu', durationSeconds: 600 } });
    const job = posted.data!.address;
    const status = async () => (await user.GET('/jobs/{job}', { params: { path: { job } } })).data;
    await waitFor(async () => ((await status())?.status === 'RUNNING' ? true : undefined), { timeoutMs: 60_000, what: 'the job to run' });
    await waitFor(async () => (await nodeObjects(nodeId)).some((o) => o.startsWith('container')) || undefined, { timeoutMs: 30_000, what: 'its container' });

    const code = await ctrlC(first);
    if (code !== 0) throw new Error(`the stack exited with ${code}:\n${first.lines.slice(-40).join('\n')}`);
    expect(first.lines.join('\n')).not.toContain('second signal: exiting now');
    expect(await nodeObjects(nodeId)).toEqual([]);

    const second = startStack(env);
    stacks.push(second);
    await ready(second);
    user = demoUser(second); // free ports: the gateway moved
    expect(second.lines.some((l) => l.includes(`node ${node} online`))).toBe(true);
    const ended = (await status())!;
    expect(ended).toMatchObject({ status: 'STOPPED', settlement: 'settled' });
    const ran = Math.ceil((Date.parse(ended.finishedAt!) - Date.parse(ended.startedAt!)) / 1000);
    expect(ended.billedSeconds).toBe(ran);
    expect(ended.cost).toBeGreaterThan(0);

    // Killed outright, the launcher stops nothing itself: each process it started stops itself, the agent draining its jobs.
    const children = childrenOf(second.child.pid!);
    expect(children.length).toBeGreaterThanOrEqual(5); // four services and the node agent
    process.kill(second.child.pid!, 'SIGKILL');
    await waitFor(() => children.every((pid) => !alive(pid)) || undefined, { timeoutMs: 150_000, what: `the killed stack's processes ${children.join(', ')} to exit` });
    expect(await nodeObjects(nodeId)).toEqual([]);
  }, 600_000);
});
