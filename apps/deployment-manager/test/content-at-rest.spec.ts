import { cidOf } from '../src/cas/cid';
import { sealPlaintextAtRest } from '../src/cas/seal-at-rest';
import { definition, runOp } from './support/definitions';
import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { startManagers, type Managers, type TestUser } from './support/managers';

const MARKER = 'TENANT-SECRET-5d1c';

/** A definition whose env value and registry password carry the marker. */
const secretDefinition = () =>
  definition([
    runOp('app', 'sleep 3600', {
      args: { env: { TOKEN: `${MARKER}-env` }, authentication: { docker: { username: 'u', password: `${MARKER}-registry`, server: 'registry.example' } } },
    }),
  ]);

describe('definitions and results at rest', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let owner: TestUser;
  let stranger: TestUser;
  let market: string;

  beforeAll(async () => {
    m = await startManagers();
    dm = await startDeploymentManager(m, { MAX_UPLOADS_PER_USER: 3, MAX_UPLOAD_BYTES_PER_USER: 1000, UPLOAD_RETENTION_SECONDS: 1 });
    market = (await m.createMarket({ pricePerSecond: 1 })).name;
    owner = await m.newUser(10_000_000);
    stranger = await m.newUser(10_000_000);
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await m?.stop();
  });

  it('stores a posted definition sealed, under the content id of its plaintext, readable by the poster alone', async () => {
    const posted = await dm.as(owner, 'POST', '/jobs', { definition: secretDefinition(), market, durationSeconds: 60 });
    expect(posted.status).toBe(200);
    const [blob] = await dm.db.query(`SELECT bytes, sealed::text AS sealed FROM blobs WHERE cid = $1`, [posted.body.definitionCid]);
    expect(blob.bytes).toBeNull();
    expect(blob.sealed).toMatch(/^v1\./);
    const [job] = await dm.db.query(`SELECT definition::text AS text FROM jobs WHERE address = $1`, [posted.body.address]);
    expect(job.text).not.toContain(MARKER);
    expect(job.text).toMatch(/^"v1\./);

    const read = await dm.as(owner, 'GET', `/cas/${posted.body.definitionCid}`);
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).toContain(`${MARKER}-registry`);
    expect(cidOf(Buffer.from(JSON.stringify(read.body)))).toBe(posted.body.definitionCid);
    expect((await dm.as(stranger, 'GET', `/cas/${posted.body.definitionCid}`)).status).toBe(404);
    const anonymous = await dm.as(null, 'GET', `/cas/${posted.body.definitionCid}`);
    expect(anonymous.status).toBe(404);
    expect(anonymous.body.name).toBe('NotFoundError');
    // The job page still lists the definition's ops: the sealed definition opens for it.
    const page = await dm.services.query.page(posted.body.address);
    expect(page.ops.map((o) => o.id)).toEqual(['app']);
  });

  it('seals rows stored in plaintext before sealing existed, and still reads them', async () => {
    const bytes = Buffer.from(JSON.stringify({ legacy: `${MARKER}-old` }));
    const cid = cidOf(bytes);
    await dm.db.query(`INSERT INTO blobs (cid, bytes, size) VALUES ($1, $2, $3)`, [cid, bytes, bytes.length]);
    await dm.db.query(`INSERT INTO blob_readers (cid, user_id) VALUES ($1, $2)`, [cid, owner.id]);
    const posted = await dm.as(owner, 'POST', '/jobs', { definition: secretDefinition(), market, durationSeconds: 60 });
    const plain = JSON.stringify(
      dm.services.seal.openDefinition(posted.body.address, (await dm.db.query(`SELECT definition FROM jobs WHERE address = $1`, [posted.body.address]))[0].definition),
    );
    await dm.db.query(`UPDATE jobs SET definition = $2::jsonb WHERE address = $1`, [posted.body.address, plain]);

    expect((await dm.as(owner, 'GET', `/cas/${cid}`)).body).toEqual({ legacy: `${MARKER}-old` }); // lazily readable before the pass
    const sealed = await sealPlaintextAtRest(dm.services, dm.services.seal);
    expect(sealed.blobs).toBeGreaterThanOrEqual(1);
    expect(sealed.definitions).toBeGreaterThanOrEqual(1);
    const dump = JSON.stringify(await dm.db.query(`SELECT b.bytes, b.sealed, j.definition FROM blobs b LEFT JOIN jobs j ON j.definition_cid = b.cid`));
    expect(dump).not.toContain(MARKER);
    expect((await dm.as(owner, 'GET', `/cas/${cid}`)).body).toEqual({ legacy: `${MARKER}-old` });
    expect((await dm.services.query.page(posted.body.address)).ops.map((o) => o.id)).toEqual(['app']);
  });
});

describe('upload quotas', () => {
  let m: Managers;
  let dm: TestDeploymentManager;
  let user: TestUser;
  let market: string;

  beforeAll(async () => {
    m = await startManagers();
    dm = await startDeploymentManager(m, { MAX_UPLOADS_PER_USER: 2, MAX_UPLOAD_BYTES_PER_USER: 100_000, UPLOAD_RETENTION_SECONDS: 2 });
    market = (await m.createMarket({ pricePerSecond: 1 })).name;
    user = await m.newUser(10_000_000);
  }, 120_000);

  afterAll(async () => {
    await dm?.close();
    await m?.stop();
  });

  it('bounds the uploads a user keeps, by count and by bytes, naming the limit', async () => {
    expect((await dm.as(user, 'POST', '/cas', { content: 'one' })).status).toBe(200);
    expect((await dm.as(user, 'POST', '/cas', { content: 'one' })).status).toBe(200); // the same bytes again: still one
    expect((await dm.as(user, 'POST', '/cas', { content: 'two' })).status).toBe(200);
    const third = await dm.as(user, 'POST', '/cas', { content: 'three' });
    expect(third.status).toBe(409);
    expect(third.body).toMatchObject({ name: 'QuotaExceededError', code: 'QUOTA_EXCEEDED', errors: [{ path: '/content' }] });
    expect(third.body.message).toContain('MAX_UPLOADS_PER_USER');

    const other = await m.newUser(0);
    const big = await dm.as(other, 'POST', '/cas', { content: 'x'.repeat(100_001) });
    expect(big.status).toBe(409);
    expect(big.body.message).toContain('MAX_UPLOAD_BYTES_PER_USER');
  });

  it('takes an upload a job uses off the quota, and collects the unused ones after the retention period', async () => {
    const def = await dm.as(user, 'POST', '/cas', { content: JSON.stringify(definition([runOp('a', 'true')])) });
    expect(def.status).toBe(409); // still two unused uploads held
    await dm.db.query(`DELETE FROM blob_readers WHERE user_id = $1`, [user.id]);
    const upload = await dm.as(user, 'POST', '/cas', { content: JSON.stringify(definition([runOp('a', 'true')])) });
    const unused = await dm.as(user, 'POST', '/cas', { content: 'unused' });
    expect((await dm.as(user, 'POST', '/jobs', { definitionCid: upload.body.cid, market, durationSeconds: 60 })).status).toBe(200);
    expect((await dm.as(user, 'POST', '/cas', { content: 'fits now' })).status).toBe(200);

    await new Promise((r) => setTimeout(r, 2500));
    await dm.services.uploads.collect();
    expect((await dm.as(user, 'GET', `/cas/${unused.body.cid}`)).status).toBe(404);
    expect((await dm.as(user, 'GET', `/cas/${upload.body.cid}`)).status).toBe(200);
    expect(await dm.db.query(`SELECT cid FROM blobs WHERE cid = $1`, [unused.body.cid])).toEqual([]);
  });
});
