/** No secret of a definition in Docker labels or names on the node; env values reach the container and nothing else. */
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { createSigner } from '@ocg/auth';
import { LABEL, decodeBlob, encodeBlob, sealBlobsWith } from '../src/docker/labels';
import { findJobs } from '../src/executor/restore';
import { definition, leftovers, newNodeId, prepareEngine, removeEverything, runOp, startTestAgent, type TestAgent } from './support/harness';

const MARKER = 'LABEL-MARKER-6b2e';
const MARKET_LIMITS = { cpus: 0.5, memoryBytes: 256 * 1024 * 1024, pids: 128, diskBytes: 1 << 30, user: null, readOnlyRootFilesystem: false };
const node = newNodeId('labels');
let t: TestAgent;

beforeAll(async () => {
  await prepareEngine();
  sealBlobsWith(createSigner(randomBytes(32))); // as the agent does with its node key
  t = await startTestAgent(node);
});

afterAll(async () => {
  sealBlobsWith(undefined);
  await t?.close();
  await removeEverything(t.docker, node);
  expect(await leftovers(t.docker, node)).toEqual([]);
});

it('keeps env values and registry credentials out of every label and name, and still restores the job from them', async () => {
  const { job } = await t.submit(
    definition([
      runOp('app', 'echo "token=$TOKEN"; sleep 600', {
        args: { env: { TOKEN: `${MARKER}-env`, REGISTRY_PASSWORD: `${MARKER}-registry` } },
        results: { token: 'token=(.*)' },
      }),
    ]),
    { containerLimits: MARKET_LIMITS },
  );
  await t.waitOp(job, 'app', 'running');
  const filters = { label: [`${LABEL.job}=${job}`] };
  const networks = await t.docker.listNetworks({ filters });
  const containers = await t.docker.listContainers({ all: true, filters });
  const volumes = (await t.docker.listVolumes({ filters })).Volumes ?? [];
  expect(networks).toHaveLength(1);
  const visible = JSON.stringify([networks.map((n) => [n.Name, n.Labels]), containers.map((c) => [c.Names, c.Labels]), volumes.map((v) => [v.Name, v.Labels])]);
  expect(visible).not.toContain(MARKER);
  // gzip + base64 is no protection: what anyone listing networks can unpack must not hold the secrets either.
  const label = networks[0].Labels?.[LABEL.definition] ?? '';
  const unpacked = (() => {
    try {
      return gunzipSync(Buffer.from(label, 'base64')).toString('utf8');
    } catch {
      return '';
    }
  })();
  expect(unpacked).not.toContain(MARKER);
  expect(label).toMatch(/^v1\./);

  // The env value reached the container (its output), and a restarted agent reads the sealed definition back.
  const inspect = await t.docker.getContainer(containers[0].Id).inspect();
  expect(inspect.Config.Env).toContain(`TOKEN=${MARKER}-env`);
  const restored = (await findJobs(t.docker, node)).jobs.find((j) => j.assignment.job === job);
  expect(JSON.stringify(restored?.assignment.definition)).toContain(`${MARKER}-registry`);
  // ...and the market's limits: ops it restarts stay within them, not the node's own.
  expect(restored?.assignment.containerLimits).toEqual(MARKET_LIMITS);
  await t.agent.executor.stopAndWait(job, 'test done');
});

it('seals registry credentials in the definition blob too, and opens it again', () => {
  const def = { ops: [{ id: 'a', args: { authentication: { docker: { username: 'u', password: `${MARKER}-pw` } } } }] };
  const blob = encodeBlob(def);
  expect(Buffer.from(blob.slice(3), 'base64url').toString('latin1') + blob).not.toContain(MARKER);
  expect(decodeBlob(blob)).toEqual(def);
});
