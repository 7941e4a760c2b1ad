/** `ocg keys` and `ocg sign` against a real client-manager behind the gateway. */
import { freePort } from '@ocg/testing';
import { verifySignature } from '@ocg/auth';
import { ocg } from './support/cli';
import { startStack, type TestStack, type TestUser } from './support/stack';

jest.setTimeout(60_000);

let stack: TestStack;
let user: TestUser;
const as = (key: string) => ['--gateway', stack.gateway, '--api-key', key];
const json = async (...args: string[]) => {
  const run = await ocg(...args, '--json', ...as(user.key));
  expect(run).toMatchObject({ err: '', code: 0 });
  return JSON.parse(run.out);
};

beforeAll(async () => {
  stack = await startStack(['client-manager', 'gateway']);
  user = await stack.newUser();
}, 120_000);
afterAll(() => stack?.stop());

describe('ocg keys', () => {
  it('creates a key with a name, expiry, scopes and models, prints it, and the key works', async () => {
    const run = await ocg('keys', 'create', '--name', 'ci', '--expires-in', '3600', '--scope', 'jobs:read', '--scope', 'api-keys:manage', '--llm-model', 'gemma', ...as(user.key));
    expect(run.code).toBe(0);
    expect(run.out).toMatch(
      /^created API key (\S+)\nid {10}\1\nname {8}ci\nstatus {6}active\nkey {9}ocg_\w+\nscopes {6}jobs:read api-keys:manage\nLLM models {2}gemma\nexpires {5}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\ncreated {5}/,
    );
    const key = /key {9}(ocg_\w+)/.exec(run.out)![1];
    expect((await ocg('keys', 'list', ...as(key))).code).toBe(0);
  });

  it('round-trips a key through create, get, update, list and delete as JSON', async () => {
    const created = await json('keys', 'create', '--name', 'round trip');
    expect(created).toMatchObject({ name: 'round trip', status: 'active', llmModels: null, expiresAt: null });
    expect(await json('keys', 'get', created.id)).toMatchObject({ id: created.id, key: created.key, lastUsedAt: null });

    const updated = await json('keys', 'update', created.id, '--name', 'renamed', '--status', 'disabled', '--llm-models', 'a, b');
    expect(updated).toMatchObject({ name: 'renamed', status: 'disabled', llmModels: ['a', 'b'] });
    expect((await json('keys', 'update', created.id, '--llm-models', '')).llmModels).toEqual([]);
    expect((await json('keys', 'update', created.id, '--no-llm-models')).llmModels).toBeNull();

    const listed = await json('keys', 'list');
    expect(listed.total).toBe(listed.keys.length);
    expect(listed.keys.map((k: { id: string }) => k.id)).toContain(created.id);

    expect(await json('keys', 'delete', created.id)).toEqual({ success: true });
    const gone = await ocg('keys', 'get', created.id, ...as(user.key));
    expect(gone).toMatchObject({ out: '', code: 1 });
    expect(gone.err).toMatch(/^ocg: NotFoundError \(404\): /);
  });

  it('lists keys as a table with the keys shortened', async () => {
    const run = await ocg('keys', 'list', ...as(user.key));
    const lines = run.out.trim().split('\n');
    expect(lines[0]).toMatch(/^ID +NAME +STATUS +KEY +SCOPES +EXPIRES +LAST USED$/);
    expect(run.out).not.toContain(user.key);
    expect(run.out).toContain(`${user.key.slice(0, 10)}…${user.key.slice(-4)}`);
  });

  it('shows one key in full, with local times', async () => {
    const { id } = await json('keys', 'create', '--name', 'shown');
    const run = await ocg('keys', 'get', id, ...as(user.key));
    expect(run.out).toMatch(
      /^id +\S+\nname +shown\nstatus +active\nkey +ocg_\w+\nscopes +.*\nLLM models +any\nexpires +never\ncreated +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\nupdated +.*\nlast used +-\n$/,
    );
  });

  it('names the field the gateway refused, and exits 1', async () => {
    const run = await ocg('keys', 'create', '--name', 'x', '--scope', 'users:manage', ...as(user.key));
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^ocg: the API key may not do this \(403\): /);
    const bad = await ocg('keys', 'create', '--name', 'x', '--scope', 'no-such-scope', ...as(user.key));
    expect(bad.err).toMatch(/\(400\): .*\n {2}\/scopes\/0: /);
  });

  it('refuses an update that changes nothing, and a status that does not exist, before calling the gateway', async () => {
    expect((await ocg('keys', 'update', 'key_x', ...as(user.key))).err).toBe('ocg: nothing to update: give --name, --status, --llm-models or --no-llm-models\n');
    const run = await ocg('keys', 'update', 'key_x', '--status', 'paused', ...as(user.key));
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/argument 'paused' is invalid. Allowed choices are active, disabled/);
  });

  it('says when the gateway cannot be reached', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    const run = await ocg('keys', 'list', '--gateway', closed, '--api-key', user.key);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(new RegExp(`^ocg: cannot reach the gateway at ${closed}: ECONNREFUSED\\n`));
  });
});

describe('ocg sign', () => {
  it('signs one message with the wallet; the signature verifies', async () => {
    const run = await ocg('sign', 'hello node', ...as(user.key));
    const [, signature] = /signature +(\w+)/.exec(run.out)!;
    expect(run.out).toBe(`wallet     ${user.address}\nmessage    hello node\nsignature  ${signature}\nheader     hello node:${signature}\n`);
    expect(verifySignature(user.address, 'hello node', signature)).toBe(true);
  });

  it('signs several messages in one call with the time bound into each signature', async () => {
    const answer = await json('sign', 'job-a', 'job-b', '--time');
    expect(answer.userAddress).toBe(user.address);
    expect(answer.signatures.map((s: { message: string }) => s.message)).toEqual(['job-a', 'job-b']);
    for (const s of answer.signatures) {
      expect(verifySignature(user.address, `${s.message}:${s.timestamp}`, s.signature)).toBe(true);
      expect(verifySignature(user.address, s.message, s.signature)).toBe(false);
    }
  });

  it('prints the timestamp and a header carrying it with --time', async () => {
    const run = await ocg('sign', 'm', '--time', ...as(user.key));
    const [, signature, time] = /signature +(\w+)\ntimestamp +(\d+) \(/.exec(run.out)!;
    expect(run.out).toContain(`header     m:${signature}:${time}\n`);
    expect(verifySignature(user.address, `m:${time}`, signature)).toBe(true);
  });

  it('prints one JSON answer for one message', async () => {
    expect(await json('sign', 'one')).toEqual({ message: 'one', signature: expect.any(String), userAddress: user.address });
  });
});
