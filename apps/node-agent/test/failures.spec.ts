/** Every way an op cannot run ends as a failed op with a clear reason, never a hung job. */
import { markerName } from '../src/docker/private-images';
import { startTestRegistry, type TestRegistry } from './support/images';
import { BUSYBOX_IMAGE, definition, leftovers, newNodeId, prepareEngine, removeEverything, runOp, startTestAgent, type TestAgent } from './support/harness';

const node = newNodeId('failures');
let t: TestAgent;
let registry: TestRegistry;
let privateImage: string;

beforeAll(async () => {
  await prepareEngine();
  registry = await startTestRegistry({ [BUSYBOX_IMAGE]: `ocg-test/private-${node}:latest` });
  privateImage = registry.pushed[BUSYBOX_IMAGE];
  t = await startTestAgent(node);
});

afterAll(async () => {
  await t?.close();
  await registry?.stop();
  // Pulling the private image with credentials marked its repository private, engine-wide: the test made it.
  await t.docker
    .getVolume(markerName(privateImage))
    .remove()
    .catch(() => undefined);
  const left = await leftovers(t.docker, node);
  await removeEverything(t.docker, node);
  expect(left).toEqual([]);
});

/** Runs a one-op job to its end and returns that op's final status. */
async function runToEnd(op: object) {
  const { job } = await t.submit(definition([op]));
  const summary = await t.waitEnded(job);
  expect(await leftovers(t.docker, node, job)).toEqual([]);
  return { summary, op: summary.ops[0] };
}

it('fails an op whose wrapper script exits right after starting its services', async () => {
  // The service would come up a second later, but the script does not wait for it.
  const { summary, op } = await runToEnd(runOp('early', '(sleep 1; httpd -f -p 8080 -h /www) & echo "services started"', { args: { expose: 8080 } }));
  expect(op).toMatchObject({ state: 'failed', exitCode: 0 });
  expect(op.reason).toContain('exited with code 0 before its exposed ports were ready (a wrapper script must keep running while its services run)');
  expect(op.reason).toContain('services started');
  expect(summary.state).toBe('failed');
});

it('fails an op whose port is already in use, with the error the process printed', async () => {
  const script = 'mkdir -p /a /b; httpd -f -p 8080 -h /a & sleep 0.2; exec httpd -f -p 8080 -h /b';
  const { op } = await runToEnd(runOp('clash', script, { args: { expose: 8080 } }));
  expect(op).toMatchObject({ state: 'failed', exitCode: 1 });
  expect(op.reason).toMatch(/exited with code 1.*Address (already )?in use/);
});

it('fails an op whose image does not exist, naming the image', async () => {
  const image = `${registry.host}/ocg-test/does-not-exist:latest`;
  const auth = { docker: { username: registry.username, password: registry.password, server: registry.host } };
  const { op } = await runToEnd({ type: 'container/run', id: 'missing', args: { image, authentication: auth } });
  expect(op.state).toBe('failed');
  expect(op.reason).toContain(`image ${image} does not exist in ${registry.host}`);
  expect(op.startedAt).toBeNull();
});

it('fails an op whose registry refuses the password', async () => {
  const auth = { docker: { username: registry.username, password: 'wrong-password', server: registry.host } };
  const { op } = await runToEnd({ type: 'container/run', id: 'refused', args: { image: privateImage, authentication: auth } });
  expect(op.state).toBe('failed');
  expect(op.reason).toContain(`registry ${registry.host} refused the credentials in authentication.docker for image ${privateImage}`);
});

it('fails an op that needs registry credentials and has none', async () => {
  const { op } = await runToEnd({ type: 'container/run', id: 'anonymous', args: { image: privateImage, cmd: ['true'] } });
  expect(op.reason).toContain(`registry ${registry.host} requires credentials for image ${privateImage} (set authentication.docker)`);
});

it('pulls a private image with authentication.docker and runs it', async () => {
  const auth = { docker: { username: registry.username, password: registry.password } };
  const { summary, op } = await runToEnd({
    type: 'container/run',
    id: 'private',
    args: { image: privateImage, cmd: ['echo', 'pulled and ran'], authentication: auth },
    results: { out: 'pulled and ran' },
  });
  expect(op).toMatchObject({ state: 'completed', exitCode: 0 });
  expect(summary.results.private.out).toEqual(['pulled and ran']);
});

it('refuses gpu: true on a node without GPUs before starting anything', async () => {
  const { summary, op } = await runToEnd(runOp('needs-gpu', 'nvidia-smi', { args: { gpu: true } }));
  expect(op).toMatchObject({ state: 'failed', startedAt: null });
  expect(op.reason).toContain('gpu: true but this node has no GPU');
  expect(summary.state).toBe('failed');
});

it('fails an op whose command does not exist in the image', async () => {
  const { op } = await runToEnd({ type: 'container/run', id: 'no-such-binary', args: { image: BUSYBOX_IMAGE, cmd: ['/bin/does-not-exist'] } });
  expect(op).toMatchObject({ state: 'failed', exitCode: 127 });
  expect(op.reason).toMatch(/exited with code 127.*does-not-exist.*No such file/);
});

it('fails an op whose resources cannot be fetched before its container exists, instead of running without them', async () => {
  // A loopback address, refused by the node's address policy (no RESOURCE_ALLOW here): nothing leaves the machine.
  const resources = [{ type: 'S3', url: 'http://127.0.0.1:9/bucket/models', target: '/models/' }];
  const { op } = await runToEnd({ type: 'container/run', id: 'with-resources', args: { image: BUSYBOX_IMAGE, cmd: ['true'], resources } });
  expect(op).toMatchObject({ state: 'failed', startedAt: null });
  expect(op.reason).toContain('a resource could not be fetched: s3 127.0.0.1:9/bucket/models');
  expect(op.reason).toContain('loopback');
});
