/**
 * Two agents on one engine: each has its own identity by default (its key's
 * address, not the host name) and never touches the other's objects, when it
 * restarts, adopts, stops or cleans up.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../src/config';
import { LABEL } from '../src/docker/labels';
import { lockNodeId, resolveIdentity, type NodeIdentity } from '../src/identity';
import { TEST_ENV, definition, leftovers, prepareEngine, removeEverything, runOp, startTestAgent, type TestAgent } from './support/harness';

const exec = promisify(execFile);
const jobRules = async (job: string) => (await exec('iptables', ['-S'])).stdout.split('\n').filter((l) => l.includes(`ocg-job-${job} `));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocg-two-agents-'));
const keyFile = (name: string) => path.join(dir, `${name}.key`);
const agents: TestAgent[] = [];
const identities: NodeIdentity[] = [];

/** An agent as main.ts makes it: no NODE_ID, so the identity comes from its key file. */
async function agentOf(name: string): Promise<TestAgent> {
  const identity = await resolveIdentity(loadConfig({ ...TEST_ENV, NODE_KEY_FILE: keyFile(name) }), dir);
  identities.push(identity);
  const t = await startTestAgent(identity.nodeId);
  agents.push(t);
  return t;
}

beforeAll(prepareEngine);

afterAll(async () => {
  for (const t of agents) await t.close();
  const docker = agents[0].docker;
  const nodes = [...new Set(identities.map((i) => i.nodeId))];
  const left = (await Promise.all(nodes.map((n) => leftovers(docker, n)))).flat();
  for (const n of nodes) await removeEverything(docker, n);
  for (const i of identities) i.release();
  fs.rmSync(dir, { recursive: true, force: true });
  expect(left).toEqual([]);
});

it('gives each agent its own identity by default, the address of its own key', async () => {
  const a = await resolveIdentity(loadConfig({ ...TEST_ENV, NODE_KEY_FILE: keyFile('x') }), dir);
  const b = await resolveIdentity(loadConfig({ ...TEST_ENV, NODE_KEY_FILE: keyFile('y') }), dir);
  identities.push(a, b);
  expect(a.nodeId).toBe(a.signer.address);
  expect(b.nodeId).toBe(b.signer.address);
  expect(a.nodeId).not.toBe(b.nodeId);
  expect(a.nodeId).not.toBe(os.hostname());
});

it('refuses a second live agent with the same identity on this machine', () => {
  const nodeId = 'lock-test';
  fs.writeFileSync(path.join(dir, `ocg-node-${nodeId}.pid`), String(process.ppid)); // a live process that is not us
  expect(() => lockNodeId(nodeId, dir)).toThrow(/another node agent \(pid \d+\) runs as node lock-test/);
  fs.writeFileSync(path.join(dir, `ocg-node-${nodeId}.pid`), '999999999'); // a dead one: its lock is taken over
  const release = lockNodeId(nodeId, dir);
  release();
  expect(fs.existsSync(path.join(dir, `ocg-node-${nodeId}.pid`))).toBe(false);
});

it("restarting, adopting and cleaning up one agent never touches the other's job", async () => {
  const first = await agentOf('first');
  const second = await agentOf('second');
  const a = await first.submit(definition([runOp('work', 'sleep 600')]));
  const b = await second.submit(definition([runOp('work', 'sleep 600')]));
  await first.waitOp(a.job, 'work', 'running');
  await second.waitOp(b.job, 'work', 'running');
  const before = await second.docker.listContainers({ filters: { label: [`${LABEL.job}=${b.job}`] } });

  await first.close(); // as if killed; the next agent with the same key adopts
  const again = await agentOf('first');
  expect(again.config.NODE_ID).toBe(first.config.NODE_ID);
  expect(again.agent.adopted).toEqual([a.job]);
  await again.agent.executor.stopAndWait(a.job, 'test done');
  expect(await leftovers(again.docker, again.config.NODE_ID, a.job)).toEqual([]);

  // The same job handed to the other agent too (a redelivered claim): refused, the first one's objects untouched.
  const rulesBefore = await jobRules(b.job);
  expect(rulesBefore.length).toBeGreaterThan(0);
  await expect(again.source.submit({ ...second.agent.executor.find(b.job)!.assignment })).rejects.toThrow(/belongs to another node agent on this engine/);
  expect(await jobRules(b.job)).toEqual(rulesBefore);

  const after = await second.docker.listContainers({ filters: { label: [`${LABEL.job}=${b.job}`] } });
  expect(after.map((c) => [c.Id, c.State])).toEqual(before.map((c) => [c.Id, 'running']));
  expect(second.status(b.job)).toMatchObject({ state: 'running' });
  expect(second.reporter.ended).toEqual([]);
  await second.agent.executor.stopAndWait(b.job, 'test done');
});
