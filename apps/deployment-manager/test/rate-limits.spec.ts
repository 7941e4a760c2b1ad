/** Per-user limits on the two routes that cost the most to answer: posting a job and uploading content. */
import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { startManagers, type Managers } from './support/managers';
import { sleeper } from './support/definitions';

const POSTS = 3;
const UPLOADS = 2;

describe('per-user rate limits', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let market: { address: string; name: string };

  beforeAll(async () => {
    m = await startManagers();
    dm = await startDeploymentManager(m, { JOB_POSTS_PER_MINUTE: POSTS, UPLOADS_PER_MINUTE: UPLOADS });
    market = await m.createMarket({ pricePerSecond: 1, defaultDurationSeconds: 60 });
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await m?.stop();
  });

  const post = (user: Parameters<TestDeploymentManager['as']>[0], headers?: Record<string, string>) =>
    dm.as(user, 'POST', '/jobs', { definition: sleeper(), market: market.name, durationSeconds: 10 }, headers);

  it('answers 429 with Retry-After once a user has posted the limit within a minute, and only that user', async () => {
    const busy = await m.newUser(10_000_000);
    for (let i = 0; i < POSTS; i++) expect((await post(busy)).status).toBe(200);
    const refused = await post(busy);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ name: 'TooManyRequestsError', code: 'RATE_LIMITED', status: 429 });
    expect(refused.body.message).toMatch(new RegExp(`^Too many job posts from user ${busy.id}: at most ${POSTS} a minute; retry in \\d+ s$`));
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Nothing of the refused post was kept: only the allowed ones are listed.
    expect((await dm.as(busy, 'GET', '/jobs')).body.jobs).toHaveLength(POSTS);
    const other = await m.newUser(10_000_000);
    expect((await post(other)).status).toBe(200);
  });

  it('answers a retry under the same Idempotency-Key without counting it', async () => {
    const user = await m.newUser(10_000_000);
    const first = await post(user, { 'Idempotency-Key': 'retry-me' });
    expect(first.status).toBe(200);
    for (let i = 0; i < POSTS + 2; i++) {
      const again = await post(user, { 'Idempotency-Key': 'retry-me' });
      expect(again.status).toBe(200);
      expect(again.body.address).toBe(first.body.address);
    }
    expect((await post(user)).status).toBe(200);
  });

  it('limits content uploads per user the same way', async () => {
    const user = await m.newUser(0);
    for (let i = 0; i < UPLOADS; i++) expect((await dm.as(user, 'POST', '/cas', { content: `upload ${i}` })).status).toBe(200);
    const refused = await dm.as(user, 'POST', '/cas', { content: 'one too many' });
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(new RegExp(`^Too many uploads from user ${user.id}: at most ${UPLOADS} a minute`));
    const other = await m.newUser(0);
    expect((await dm.as(other, 'POST', '/cas', { content: 'mine' })).status).toBe(200);
  });
});
