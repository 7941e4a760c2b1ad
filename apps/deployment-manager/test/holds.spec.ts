import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { createDataSource } from '@ocg/db';
import { createLogger, ServiceClient } from '@ocg/http';
import { captureLogs } from '@ocg/testing';
import { ContentSeal } from '../src/cas/content-seal';
import { CreditsClient } from '../src/clients/credits.client';
import { HoldRepository } from '../src/jobs/hold.repository';
import { JobRepository } from '../src/jobs/job.repository';
import { LooseHolds } from '../src/jobs/loose-holds';
import { SettlementService } from '../src/jobs/settlement.service';
import { entities } from '../src/entities';
import { migrations } from '../src/migrations';
import { INTERNAL_TOKEN, MASTER_KEY, startClientManager, type ClientManager, type TestUser } from './support/managers';
import { expectBalance } from './support/jobs';

const PRICE = 1000;
const CREDITS = 1_000_000;
const ORPHAN_SECONDS = 60;
const DEFINITION_CID = 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku';

/**
 * The money of a job as this service keeps it: its hold rows, the release of
 * holds that pay for nothing, and settlement, against a real client-manager
 * (and no market or node: jobs are written as they are when they ended).
 * States a running service shows only in a crash or a race are written into
 * the database directly (or made by a trigger at the moment of the race).
 */
describe('credit holds and their settlement', () => {
  let m: ClientManager;
  let db: DataSource;
  let logs: ReturnType<typeof captureLogs>;
  let holds: HoldRepository;
  let credits: CreditsClient;
  let settlement: SettlementService;
  const loose = () => new LooseHolds(holds, credits, settlement, ORPHAN_SECONDS, createLogger({ service: 'test', destination: logs.stream }));

  beforeAll(async () => {
    m = await startClientManager();
    db = await createDataSource({ url: m.databaseUrl, schema: 'deployment_manager', entities, migrations });
    await db.query(`INSERT INTO blobs (cid, bytes, size) VALUES ($1, '\\x', 0)`, [DEFINITION_CID]);
    credits = new CreditsClient(new ServiceClient({ service: 'client-manager', baseUrl: m.clientManagerUrl, internalToken: INTERNAL_TOKEN, timeoutMs: 10_000 }));
    holds = new HoldRepository(db);
  }, 120_000);

  beforeEach(() => {
    logs = captureLogs();
    const logger = createLogger({ service: 'test', destination: logs.stream });
    settlement = new SettlementService(new JobRepository(db, new ContentSeal(Buffer.from(MASTER_KEY, 'hex'))), holds, credits, 30, logger);
  });

  afterAll(async () => {
    await db?.destroy();
    await m?.stop();
  });

  const fakeJob = (prefix = 'Job') => `${prefix}${randomBytes(8).toString('hex')}`;
  const logged = (msg: string) => logs.lines().filter((l) => l.msg === msg);
  const holdRow = (reference: string) => holds.find(reference);
  /** A hold row as a crash or a race leaves it, `ageSeconds` untouched. */
  const writeHold = (h: {
    reference: string;
    job?: string;
    seq?: number;
    user: TestUser;
    amount: number;
    state: string;
    applied?: boolean;
    holdId?: string | null;
    ageSeconds?: number;
  }) =>
    db.query(
      `INSERT INTO job_holds (reference, job_address, seq, user_id, amount, seconds, state, applied, hold_id, updated_at)
       VALUES ($1, $2, $3, $4, $5, 5, $6, $7, $8, now() - make_interval(secs => $9))`,
      [h.reference, h.job ?? h.reference, h.seq ?? 0, h.user.id, h.amount, h.state, h.applied ?? false, h.holdId ?? null, h.ageSeconds ?? 3600],
    );
  const place = async (user: TestUser, amount: number, reference: string) => (await credits.hold({ userId: user.id, amount, reference })).id;
  /**
   * A job that ran `seconds` of its paid 100 and ended, not settled yet (what a crash between the two leaves),
   * with its first hold placed and applied; `running`: still running, started `seconds` ago.
   */
  const endedJob = async (user: TestUser, seconds: number, { running = false } = {}) => {
    const address = fakeJob('Ended');
    await db.query(
      `INSERT INTO jobs (address, address_lower, user_id, poster_address, market_address, node_address, status, end_reason, definition_cid, definition, exposes,
                         price_per_second, duration_seconds, max_duration_seconds, started_at, ends_at, finished_at, last_seen_at, acked_at)
       SELECT $1, lower($1), $2, $3, 'market', 'node', $4, $5, $6, '{}', false, $7, 100, 100, s, s + interval '100 seconds', CASE WHEN $8 THEN NULL ELSE s + make_interval(secs => $9) END, s, s
       FROM (SELECT now() - make_interval(secs => $9) AS s) started`,
      [address, user.id, user.address, running ? 'RUNNING' : 'STOPPED', running ? null : 'stopped by the poster', DEFINITION_CID, PRICE, running, seconds],
    );
    const holdId = await place(user, 100 * PRICE, address);
    await writeHold({ reference: address, user, amount: 100 * PRICE, state: 'open', applied: true, holdId, ageSeconds: 0 });
    return address;
  };
  const jobRow = async (address: string) =>
    (await db.query(`SELECT billed_seconds, cost::int, settled_at, settle_attempt_at FROM jobs WHERE address = $1`, [address]))[0] as {
      billed_seconds: number;
      cost: number;
      settled_at: Date | null;
      settle_attempt_at: Date | null;
    };

  describe('hold rows', () => {
    it('records a hold before it is placed, once per reference', async () => {
      const user = await m.newUser();
      const job = fakeJob();
      await holds.begin({ reference: job, job, seq: 0, userId: user.id, amount: 5000, seconds: 5 });
      await holds.begin({ reference: job, job, seq: 0, userId: user.id, amount: 9000, seconds: 9 });
      expect(await holdRow(job)).toMatchObject({
        reference: job,
        job_address: job,
        seq: 0,
        user_id: user.id,
        amount: '5000',
        seconds: 5,
        state: 'placing',
        applied: false,
        hold_id: null,
      });
    });

    it("numbers an extension's hold after the job's others, also when several are made at once", async () => {
      const user = await m.newUser();
      const job = fakeJob();
      await holds.begin({ reference: job, job, seq: 0, userId: user.id, amount: 5000, seconds: 5 });
      expect(await holds.beginNext(holds.manager, { job, userId: user.id, amount: 3000, seconds: 3 })).toBe(`${job}:1`);
      const racing = await Promise.all([1, 2, 3].map(() => holds.beginNext(holds.manager, { job, userId: user.id, amount: 1000, seconds: 1 })));
      expect(racing.sort()).toEqual([`${job}:2`, `${job}:3`, `${job}:4`]);
      expect((await holds.ofJob(job)).map((h) => [h.reference, h.seq, h.amount, h.seconds, h.state])).toEqual([
        [job, 0, '5000', 5, 'placing'],
        [`${job}:1`, 1, '3000', 3, 'placing'],
        [`${job}:2`, 2, '1000', 1, 'placing'],
        [`${job}:3`, 3, '1000', 1, 'placing'],
        [`${job}:4`, 4, '1000', 1, 'placing'],
      ]);
    });

    describe('numbering conflicts', () => {
      beforeAll(async () => {
        // Counts insert attempts: a sequence is not rolled back with the failed INSERT.
        await db.query(`CREATE SEQUENCE hold_insert_attempts`);
        await db.query(`CREATE FUNCTION count_hold_insert() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM nextval('hold_insert_attempts'); RETURN NEW; END $$`);
        await db.query(`CREATE TRIGGER count_hold_insert BEFORE INSERT ON job_holds FOR EACH ROW WHEN (NEW.job_address LIKE 'Counted%') EXECUTE FUNCTION count_hold_insert()`);
      });

      afterAll(async () => {
        await db.query(`DROP TRIGGER count_hold_insert ON job_holds`);
        await db.query(`DROP FUNCTION count_hold_insert()`);
        await db.query(`DROP SEQUENCE hold_insert_attempts`);
      });

      const attempts = async (work: () => Promise<unknown>) => {
        const [{ before }] = await db.query(`SELECT nextval('hold_insert_attempts')::int AS before`);
        await work();
        const [{ after }] = await db.query(`SELECT nextval('hold_insert_attempts')::int AS after`);
        return after - before - 1;
      };

      it('tries a number that stays taken six times, then gives up with the conflict', async () => {
        const user = await m.newUser();
        const job = fakeJob('Counted');
        await writeHold({ reference: `${job}:1`, job: `other ${job}`, seq: 1, user, amount: 1000, state: 'open' });
        let failure: unknown;
        expect(await attempts(() => holds.beginNext(holds.manager, { job, userId: user.id, amount: 1000, seconds: 1 }).catch((err) => (failure = err)))).toBe(6);
        expect(failure).toMatchObject({ code: '23505' });
      });

      it('does not retry an insert that fails for another reason', async () => {
        const user = await m.newUser();
        const job = fakeJob('Counted');
        let failure: unknown;
        expect(await attempts(() => holds.beginNext(holds.manager, { job, userId: user.id, amount: 1000, seconds: 0 }).catch((err) => (failure = err)))).toBe(1);
        expect(failure).toMatchObject({ code: '23514' });
      });
    });

    it('marks a hold placed once, answering the row, and answers nothing when it was no longer placing', async () => {
      const user = await m.newUser();
      const job = fakeJob();
      await holds.begin({ reference: job, job, seq: 0, userId: user.id, amount: 5000, seconds: 5 });
      expect(await holds.placed(db.manager, job, 'hld_first', true)).toMatchObject({ reference: job, state: 'open', hold_id: 'hld_first', applied: true });
      expect(await holds.placed(db.manager, job, 'hld_second', false)).toBeUndefined();
      expect(await holdRow(job)).toMatchObject({ state: 'open', hold_id: 'hld_first', applied: true });
    });

    it('forgets a hold that was never placed, and only such a hold', async () => {
      const user = await m.newUser();
      const [placing, open] = [fakeJob(), fakeJob()];
      await holds.begin({ reference: placing, job: placing, seq: 0, userId: user.id, amount: 5000, seconds: 5 });
      await writeHold({ reference: open, user, amount: 5000, state: 'open', holdId: 'hld_x' });
      await holds.forget(placing);
      await holds.forget(open);
      expect(await holdRow(placing)).toBeUndefined();
      expect(await holdRow(open)).toMatchObject({ state: 'open' });
    });

    it("fixes a hold's share of the cost once, and records what it settled", async () => {
      const user = await m.newUser();
      const job = fakeJob();
      await writeHold({ reference: job, user, amount: 5000, state: 'open', applied: true, holdId: 'hld_y' });
      await holds.plan(job, 2000);
      await holds.plan(job, 3000);
      expect(await holdRow(job)).toMatchObject({ settle_amount: '2000', settled: null, state: 'open' });
      await holds.closed(job, 2000);
      expect(await holdRow(job)).toMatchObject({ settle_amount: '2000', settled: '2000', state: 'closed' });
    });

    it('finds the loose holds (not closed, not applied, untouched long enough), oldest first, and hands each to one sweeper', async () => {
      const user = await m.newUser();
      const [older, old, young, applied, closed] = [fakeJob('Loose'), fakeJob('Loose'), fakeJob('Loose'), fakeJob('Loose'), fakeJob('Loose')];
      await writeHold({ reference: older, user, amount: 1000, state: 'placing', ageSeconds: 7200 });
      await writeHold({ reference: old, user, amount: 1000, state: 'open', holdId: 'hld_z', ageSeconds: 3600 });
      await writeHold({ reference: young, user, amount: 1000, state: 'placing', ageSeconds: 10 });
      await writeHold({ reference: applied, user, amount: 1000, state: 'open', applied: true, holdId: 'hld_a', ageSeconds: 3600 });
      await writeHold({ reference: closed, user, amount: 1000, state: 'closed', holdId: 'hld_c', ageSeconds: 3600 });
      const mine = (found: { reference: string }[]) => found.map((h) => h.reference).filter((r) => [older, old, young, applied, closed].includes(r));
      expect(mine(await holds.loose(ORPHAN_SECONDS, 1000))).toEqual([older, old]);
      expect(await holds.loose(ORPHAN_SECONDS, 1)).toHaveLength(1);
      expect(await holds.takeLoose(young, ORPHAN_SECONDS)).toBe(false);
      expect(await holds.takeLoose(applied, ORPHAN_SECONDS)).toBe(false);
      expect(await holds.takeLoose(older, ORPHAN_SECONDS)).toBe(true);
      expect(await holds.takeLoose(older, ORPHAN_SECONDS)).toBe(false);
      expect(mine(await holds.loose(ORPHAN_SECONDS, 1000))).toEqual([old]);
      await db.query(`DELETE FROM job_holds WHERE reference = ANY($1)`, [[older, old, young, applied, closed]]);
    });
  });

  describe('loose holds', () => {
    it('releases an open hold that pays for nothing, once even when two sweepers find it', async () => {
      const user = await m.newUser(CREDITS);
      const reference = fakeJob('Loose');
      const holdId = await place(user, 5000, reference);
      await writeHold({ reference, user, amount: 5000, state: 'open', holdId });
      const released = await Promise.all([loose().releaseAll(), loose().releaseAll()]);
      expect(released.sort()).toEqual([0, 1]);
      await expectBalance(m, user, CREDITS, 0);
      expect(await holdRow(reference)).toMatchObject({ state: 'closed', settled: '0' });
      expect(logged('released a hold that paid for nothing')).toEqual([expect.objectContaining({ level: 'info', hold: reference, job: reference })]);
    });

    it('leaves young holds alone: their request may still finish', async () => {
      const user = await m.newUser(CREDITS);
      const reference = fakeJob('Loose');
      await writeHold({ reference, user, amount: 5000, state: 'open', holdId: await place(user, 5000, reference), ageSeconds: 5 });
      expect(await loose().releaseAll()).toBe(0);
      expect(await m.balance(user)).toMatchObject({ held: 5000 });
      await db.query(`DELETE FROM job_holds WHERE reference = $1`, [reference]);
    });

    it('places and releases a hold whose post died before knowing whether it was placed: net zero', async () => {
      const user = await m.newUser(CREDITS);
      const reference = fakeJob('Loose');
      await writeHold({ reference, user, amount: 5000, state: 'placing' });
      expect(await loose().releaseAll()).toBe(1);
      await expectBalance(m, user, CREDITS, 0);
      expect(await holdRow(reference)).toMatchObject({ state: 'closed', settled: '0', hold_id: expect.stringMatching(/./) });
    });

    it('forgets a hold that was never placed and cannot be now (402), quietly', async () => {
      const user = await m.newUser(1000);
      const reference = fakeJob('Loose');
      await writeHold({ reference, user, amount: 5000, state: 'placing' });
      expect(await loose().releaseAll()).toBe(0);
      expect(await holdRow(reference)).toBeUndefined();
      await expectBalance(m, user, 1000, 0);
      expect(logs.lines().filter((l) => l.level !== 'info')).toEqual([]);
    });

    it('keeps a hold it cannot settle for now (client-manager refuses the reference), logs why, and goes on with the others', async () => {
      const user = await m.newUser(CREDITS);
      const [refused, fine] = [fakeJob('Loose'), fakeJob('Loose')];
      await place(user, 7000, refused); // the same reference with another amount: client-manager answers 409
      await writeHold({ reference: refused, user, amount: 5000, state: 'placing', ageSeconds: 7200 });
      await writeHold({ reference: fine, user, amount: 5000, state: 'open', holdId: await place(user, 5000, fine) });
      expect(await loose().releaseAll()).toBe(1);
      expect(await holdRow(refused)).toMatchObject({ state: 'placing' });
      expect(await holdRow(fine)).toMatchObject({ state: 'closed' });
      expect(logged('could not release a loose hold; retried later')).toEqual([
        expect.objectContaining({ level: 'warn', hold: refused, err: expect.stringContaining(`The credit hold ${refused} conflicts`) }),
      ]);
      await db.query(`DELETE FROM job_holds WHERE reference = $1`, [refused]);
    });

    describe('when the request of a placing hold finishes while the sweeper takes it', () => {
      beforeAll(async () => {
        // What the request writes, as it writes it, the moment the sweeper takes the row.
        await db.query(`CREATE TABLE finished_meanwhile (reference text PRIMARY KEY, hold_id text NOT NULL, state text NOT NULL, applied boolean NOT NULL)`);
        await db.query(`CREATE FUNCTION finish_meanwhile() RETURNS trigger LANGUAGE plpgsql AS $$
          DECLARE f finished_meanwhile%ROWTYPE;
          BEGIN
            SELECT * INTO f FROM finished_meanwhile WHERE reference = OLD.reference;
            IF FOUND AND f.state <> 'gone' AND OLD.state = 'placing' AND NEW.state = 'placing' THEN
              NEW.state := f.state; NEW.hold_id := f.hold_id; NEW.applied := f.applied;
            END IF;
            RETURN NEW;
          END $$`);
        await db.query(`CREATE TRIGGER finish_meanwhile BEFORE UPDATE ON job_holds FOR EACH ROW EXECUTE FUNCTION finish_meanwhile()`);
        // A request refused (402) forgets its row: after the sweeper took it, before the sweeper's own call placed the hold.
        await db.query(`CREATE FUNCTION forget_meanwhile() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            DELETE FROM job_holds WHERE reference = NEW.reference AND state = 'placing' AND reference IN (SELECT reference FROM finished_meanwhile WHERE state = 'gone');
            RETURN NULL;
          END $$`);
        await db.query(`CREATE TRIGGER forget_meanwhile AFTER UPDATE ON job_holds FOR EACH ROW EXECUTE FUNCTION forget_meanwhile()`);
      });

      afterAll(async () => {
        await db.query(`DROP TRIGGER forget_meanwhile ON job_holds`);
        await db.query(`DROP FUNCTION forget_meanwhile()`);
        await db.query(`DROP TRIGGER finish_meanwhile ON job_holds`);
        await db.query(`DROP FUNCTION finish_meanwhile()`);
        await db.query(`DROP TABLE finished_meanwhile`);
      });

      const race = async (applied: boolean, state: 'open' | 'closed' | 'gone' = 'open') => {
        const user = await m.newUser(CREDITS);
        const reference = fakeJob('Loose');
        const holdId = state === 'gone' ? 'none yet' : await place(user, 5000, reference);
        if (state === 'closed') await credits.settleFinal(holdId, user.id, 0);
        await writeHold({ reference, user, amount: 5000, state: 'placing' });
        await db.query(`INSERT INTO finished_meanwhile VALUES ($1, $2, $3, $4)`, [reference, holdId, state, applied]);
        return { user, reference, released: await loose().releaseAll() };
      };

      it('keeps the hold when the request applied it: it pays for its job now', async () => {
        const { user, reference, released } = await race(true);
        expect(released).toBe(0);
        expect(await holdRow(reference)).toMatchObject({ state: 'open', applied: true });
        expect(await m.balance(user)).toMatchObject({ held: 5000 });
        expect(logs.lines()).toEqual([]);
      });

      it('releases the hold when the request found its job ended and left it unapplied', async () => {
        const { user, reference, released } = await race(false);
        expect(released).toBe(1);
        expect(await holdRow(reference)).toMatchObject({ state: 'closed', settled: '0' });
        await expectBalance(m, user, CREDITS, 0);
      });

      it('releases the hold its own call placed when the request, refused, forgot the row meanwhile', async () => {
        const { user, reference, released } = await race(false, 'gone');
        expect(released).toBe(1);
        expect(await holdRow(reference)).toBeUndefined();
        await expectBalance(m, user, CREDITS, 0);
        expect(logged('released a hold that paid for nothing')).toEqual([expect.objectContaining({ hold: reference })]);
      });

      it('leaves the hold alone when the request released it itself', async () => {
        const { user, reference, released } = await race(false, 'closed');
        expect(released).toBe(0);
        expect(await holdRow(reference)).toMatchObject({ state: 'closed', settled: null });
        await expectBalance(m, user, CREDITS, 0);
        expect(logs.lines()).toEqual([]);
      });
    });
  });

  describe('settlement', () => {
    it('captures the seconds run, releases the rest, and logs what it charged', async () => {
      const user = await m.newUser(CREDITS);
      const address = await endedJob(user, 2);
      expect(await settlement.settle(address)).toBe(true);
      expect(await jobRow(address)).toMatchObject({ billed_seconds: 2, cost: 2 * PRICE, settled_at: expect.any(Date), settle_attempt_at: null });
      await expectBalance(m, user, CREDITS, 2 * PRICE);
      expect(logged('job settled')).toEqual([expect.objectContaining({ level: 'info', job: address, billedSeconds: 2, cost: 2 * PRICE })]);
      expect(await settlement.settle(address)).toBe(false); // settled: nothing more to do
      expect(logs.lines().filter((l) => l.level !== 'info')).toEqual([]);
    });

    it('keeps the seconds and cost fixed by an earlier attempt', async () => {
      const user = await m.newUser(CREDITS);
      const address = await endedJob(user, 5);
      await db.query(`UPDATE jobs SET billed_seconds = 2, cost = 1500 WHERE address = $1`, [address]);
      expect(await settlement.settle(address)).toBe(true);
      expect(await jobRow(address)).toMatchObject({ billed_seconds: 2, cost: 1500 });
      await expectBalance(m, user, CREDITS, 1500);
    });

    it('leaves alone the hold of an extension still being placed: it pays for nothing yet', async () => {
      const user = await m.newUser(CREDITS);
      const address = await endedJob(user, 2);
      const extension = await holds.beginNext(holds.manager, { job: address, userId: user.id, amount: 5000, seconds: 5 });
      expect(await settlement.settle(address)).toBe(true);
      expect(await holdRow(extension)).toMatchObject({ state: 'placing', settle_amount: null });
      await expectBalance(m, user, CREDITS, 2 * PRICE);
    });

    it('is not settled, and leaves the job to a later sweep, when client-manager refuses the settle of an open hold', async () => {
      const user = await m.newUser(CREDITS);
      const address = await endedJob(user, 2);
      const [hold] = await holds.ofJob(address);
      await db.query(`UPDATE job_holds SET settle_amount = $2 WHERE reference = $1`, [hold.reference, 100 * PRICE + 1]); // more than it holds
      expect(await settlement.settle(address)).toBe(false);
      expect(await jobRow(address)).toMatchObject({ settled_at: null, settle_attempt_at: null });
      expect(await holdRow(hold.reference)).toMatchObject({ state: 'open', settled: null });
      expect(logged('client-manager refused a settle of an open hold')).toEqual([
        expect.objectContaining({ level: 'error', hold: hold.reference, amount: 100 * PRICE + 1, message: expect.stringContaining('holds only') }),
      ]);
      await db.query(`UPDATE job_holds SET settle_amount = NULL WHERE reference = $1`, [hold.reference]);
      expect(await settlement.settle(address)).toBe(true);
      await expectBalance(m, user, CREDITS, 2 * PRICE);
    });

    it('records a settle that went through before a crash lost its record, without complaint', async () => {
      const user = await m.newUser(CREDITS);
      const address = await endedJob(user, 2);
      expect(await settlement.settle(address)).toBe(true);
      await db.query(`UPDATE jobs SET settled_at = NULL WHERE address = $1`, [address]);
      const [hold] = await holds.ofJob(address);
      await db.query(`UPDATE job_holds SET state = 'open', settled = NULL WHERE reference = $1`, [hold.reference]);
      expect(await settlement.settle(address)).toBe(true);
      expect(await holdRow(hold.reference)).toMatchObject({ state: 'closed', settled: String(2 * PRICE) });
      expect(logs.lines().filter((l) => l.level !== 'info')).toEqual([]);
      await expectBalance(m, user, CREDITS, 2 * PRICE);
    });

    it('records what a hold closed earlier really captured, and says so when it is not what was planned', async () => {
      const user = await m.newUser(CREDITS);
      const address = await endedJob(user, 2);
      expect(await settlement.settle(address)).toBe(true);
      // The record of that settle lost, and the planned share with it (a crash, then another plan).
      await db.query(`UPDATE jobs SET settled_at = NULL WHERE address = $1`, [address]);
      const [hold] = await holds.ofJob(address);
      await db.query(`UPDATE job_holds SET state = 'open', settled = NULL, settle_amount = $2 WHERE reference = $1`, [hold.reference, 3 * PRICE]);
      expect(await settlement.settle(address)).toBe(true);
      expect(await holdRow(hold.reference)).toMatchObject({ state: 'closed', settled: String(2 * PRICE) });
      expect(logged('a closed hold captured another amount than planned')).toEqual([
        expect.objectContaining({ level: 'error', hold: hold.reference, planned: 3 * PRICE, settled: 2 * PRICE }),
      ]);
      await expectBalance(m, user, CREDITS, 2 * PRICE);
    });

    it('answers false, logs why and frees the job for the next sweep when a hold cannot be settled', async () => {
      const user = await m.newUser(CREDITS);
      const address = await endedJob(user, 2);
      const [hold] = await holds.ofJob(address);
      await db.query(`UPDATE job_holds SET hold_id = NULL WHERE reference = $1`, [hold.reference]);
      expect(await settlement.settle(address)).toBe(false);
      expect(await jobRow(address)).toMatchObject({ settled_at: null, settle_attempt_at: null });
      expect(logged('settlement failed; the sweeper retries')).toEqual([expect.objectContaining({ level: 'warn', job: address, err: `hold ${hold.reference} is not placed yet` })]);
      await db.query(`UPDATE job_holds SET hold_id = $2 WHERE reference = $1`, [hold.reference, hold.hold_id]);
      expect(await settlement.settle(address)).toBe(true);
    });

    it('does nothing for a job another sweeper is settling, or one that has not ended', async () => {
      const user = await m.newUser(CREDITS);
      const address = await endedJob(user, 2, { running: true });
      expect(await settlement.settle(address)).toBe(false);
      await db.query(`UPDATE jobs SET status = 'STOPPED', finished_at = now() WHERE address = $1`, [address]);
      await db.query(`UPDATE jobs SET settle_attempt_at = now() WHERE address = $1`, [address]);
      expect(await settlement.settle(address)).toBe(false);
      expect(await m.balance(user)).toMatchObject({ held: 100 * PRICE, spent: 0 });
      expect(logs.lines()).toEqual([]);
    });
  });
});
