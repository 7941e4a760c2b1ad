/** The key quota under concurrent creates, and the bootstrap key hidden from get. */
import { startClientManager, type Harness } from './harness';
import { validate } from './support/keys';

describe('the API key quota', () => {
  let cm: Harness;
  beforeAll(async () => (cm = await startClientManager({ env: { MAX_API_KEYS_PER_USER: '3' } })));
  afterAll(() => cm.close());

  it('holds under concurrent creates: the count and the insert do not interleave', async () => {
    const user = await cm.createUser(); // one key of three
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => cm.call('POST', '/api-keys/', { key: user.key, body: { name: `racer ${i}` } })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 409, 409, 409, 409, 409, 409]);
    expect(await cm.db.query('SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1', [user.id])).toEqual([{ n: 3 }]);
  });

  it('answers 404 "No API key <id>" for the bootstrap key, even to the operator', async () => {
    const { apiKeyId } = await validate(cm, cm.adminKey);
    const res = await cm.call('GET', `/api-keys/${apiKeyId}`, { key: cm.adminKey });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe(`No API key ${apiKeyId}`);
  });
});
