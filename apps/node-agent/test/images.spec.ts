/**
 * Images a job may run: a private image cached on the node runs only for a
 * poster whose credentials its registry accepts (asked each time; layers stay
 * cached); registries on the node's loopback or networks are refused unless
 * the operator allows them; pull errors name no internal address.
 */
import { hasImage } from '../src/docker/images';
import { markerName } from '../src/docker/private-images';
import { startTestRegistry, type TestRegistry } from './support/images';
import { BUSYBOX_IMAGE, definition, leftovers, newNodeId, prepareEngine, removeEverything, startTestAgent, type TestAgent } from './support/harness';

const node = newNodeId('images');
let t: TestAgent;
let strict: TestAgent;
let registry: TestRegistry;
let privateImage: string;

beforeAll(async () => {
  await prepareEngine();
  registry = await startTestRegistry({ [BUSYBOX_IMAGE]: `ocg-test/private-${node}:latest` });
  privateImage = registry.pushed[BUSYBOX_IMAGE];
  t = await startTestAgent(node);
  strict = await startTestAgent(`${node}-s`, { ALLOW_PRIVATE_REGISTRIES: '' });
});

afterAll(async () => {
  await t?.close();
  await strict?.close();
  await registry?.stop();
  await t.docker
    .getVolume(markerName(privateImage))
    .remove()
    .catch(() => undefined);
  const left = [...(await leftovers(t.docker, node)), ...(await leftovers(t.docker, `${node}-s`))];
  await removeEverything(t.docker, node);
  await removeEverything(t.docker, `${node}-s`);
  expect(left).toEqual([]);
});

async function runToEnd(agent: TestAgent, args: object) {
  const { job } = await agent.submit(definition([{ type: 'container/run', id: 'op', args: { cmd: ['echo', 'ran'], ...args }, results: { out: 'ran' } }]));
  const summary = await agent.waitEnded(job);
  return summary.ops[0];
}

describe('a private image cached on the node', () => {
  const auth = () => ({ docker: { username: registry.username, password: registry.password } });

  it('runs for a poster whose credentials its registry accepts', async () => {
    expect(await runToEnd(t, { image: privateImage, authentication: auth() })).toMatchObject({ state: 'completed' });
    expect(await hasImage(t.docker, privateImage)).toBe(true);
  });

  it('does not run for a poster without credentials, though it is cached', async () => {
    const op = await runToEnd(t, { image: privateImage });
    expect(op.state).toBe('failed');
    expect(op.reason).toContain(`registry ${registry.host} requires credentials for image ${privateImage}`);
    expect(await hasImage(t.docker, privateImage)).toBe(true); // layers stay cached
  });

  it('does not run for a poster whose credentials its registry refuses', async () => {
    const op = await runToEnd(t, { image: privateImage, authentication: { docker: { username: registry.username, password: 'wrong-password' } } });
    expect(op.state).toBe('failed');
    expect(op.reason).toContain(`registry ${registry.host} refused the credentials`);
  });

  it('does not run by its image id, which would skip the registry', async () => {
    const id = (await t.docker.getImage(privateImage).inspect()).Id;
    const op = await runToEnd(t, { image: id });
    expect(op.state).toBe('failed');
    expect(op.reason).toContain('a reference by image id is not allowed');
  });

  it('runs again for the poster with credentials, from the cached layers', async () => {
    expect(await runToEnd(t, { image: privateImage, authentication: auth() })).toMatchObject({ state: 'completed' });
  });

  it('still runs a public image from the local cache without asking any registry', async () => {
    expect(await runToEnd(t, { image: BUSYBOX_IMAGE })).toMatchObject({ state: 'completed' });
  });
});

describe('registries on the node’s own addresses', () => {
  it.each([
    ['a loopback address', () => privateImage],
    ['localhost', () => 'localhost:5000/some/image:1'],
    ['a private address', () => '10.1.2.3:5000/some/image:1'],
    ['a link-local address', () => '169.254.169.254/latest/image:1'],
  ])('refuses %s unless the operator allows it', async (_name, image) => {
    const op = await runToEnd(strict, { image: image() });
    expect(op.state).toBe('failed');
    expect(op.reason).toMatch(/registry \S+ is on a loopback, private or link-local address, which jobs may not pull from/);
    expect(op.startedAt).toBeNull();
  });

  it('names no internal address in a pull error', async () => {
    const image = `localhost:1/ocg-test/nothing-${node}:1`;
    const op = await runToEnd(t, { image, authentication: { docker: { username: 'u', password: 'p' } } });
    expect(op.state).toBe('failed');
    expect(op.reason).toContain(`image ${image}`);
    expect(op.reason).not.toMatch(/127\.0\.0\.1|\[::1\]/);
  });
});
