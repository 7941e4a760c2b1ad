/** GET /jobs/{job}/events: a job's events as SSE, served by either of two replicas, resumable, capped. */
import { startDeploymentManager, type TestDeploymentManager } from './support/deployment-manager';
import { sleeper } from './support/definitions';
import { openEvents, type EventReader } from './support/events';
import { runningJob } from './support/jobs';
import { startManagers, type Managers, type TestUser } from './support/managers';
import { SignedNode } from './support/nodes';

const settings = { JOB_EVENTS_RETAINED: 12, JOB_EVENT_STREAMS_PER_JOB: 2, JOB_EVENT_STREAMS_PER_USER: 3, JOB_EVENTS_HEARTBEAT_MS: 1000 };

describe('job events', () => {
  let m: Managers;
  let one: TestDeploymentManager;
  let two: TestDeploymentManager;
  let user: TestUser;
  let node: SignedNode;
  let market: string;
  const open: EventReader[] = [];
  const follow = async (dm: TestDeploymentManager, job: string, opts: { lastEventId?: string; query?: string; as?: TestUser } = {}) => {
    const reader = await openEvents(dm.url, job, (opts.as ?? user).key, opts);
    open.push(reader);
    return reader;
  };
  /** A report of one op (with a log line) through replica `one`. */
  const report = (job: string, status: string, line?: string, endpoints: object[] = []) =>
    node.send(one.url, `/node-jobs/${job}/report`, { ops: [{ id: 'sleep', opIndex: 0, status, ...(line ? { logTail: [{ stream: 'nodeerr', text: line }] } : {}) }], endpoints });

  beforeAll(async () => {
    m = await startManagers();
    [one, two] = await Promise.all([startDeploymentManager(m, settings), startDeploymentManager(m, settings)]);
    const created = await m.createMarket({ pricePerSecond: 1 });
    market = created.name;
    node = new SignedNode();
    await node.register(m, market, created.joinToken);
    user = await m.newUser(10_000_000);
  }, 120_000);

  afterEach(() => {
    for (const reader of open.splice(0)) reader.close();
  });

  afterAll(async () => {
    await one?.close();
    await two?.close();
    await m?.stop();
  });

  it('follows a job from post to end on one replica while another records it', async () => {
    const posted = await one.as(user, 'POST', '/jobs', { definition: sleeper(), market, durationSeconds: 60 });
    const events = await follow(two, posted.body.address);
    const job = posted.body.address as string;
    const snapshot = await events.next();
    expect(snapshot).toMatchObject({ event: 'snapshot', data: { address: job, status: 'QUEUED' } });
    expect(snapshot?.id).toMatch(/^\d+-\d+$/);

    await node.send(one.url, '/node-jobs/claim', { market });
    await report(job, 'pending', 'pulling image busybox');
    await report(job, 'running', undefined, [{ op: 'sleep', port: 8080, host: `${job}-8080`, ready: true, online: true }]);
    await report(job, 'running'); // nothing new: no event
    await node.send(one.url, `/node-jobs/${job}/finish`, { status: 'completed', results: {}, ops: [{ id: 'sleep', opIndex: 0, status: 'completed', exitCode: 0 }] });

    const rest = await events.rest();
    expect(rest.map((e) => [e.event, e.data.status ?? e.data.lines?.[0]?.text])).toEqual([
      ['job', 'RUNNING'],
      ['op', 'pending'],
      ['log', 'pulling image busybox'],
      ['op', 'running'],
      ['endpoint', 'ONLINE'],
      ['op', 'completed'],
      ['job', 'COMPLETED'],
    ]);
    expect(rest.find((e) => e.event === 'endpoint')?.data.url).toMatch(new RegExp(`^https://${job}-8080\\.`));
    expect(new Set(rest.map((e) => e.id)).size).toBe(rest.length);
  });

  it('resumes after Last-Event-ID (header or query) without losing or repeating an event', async () => {
    const job = await runningJob(one, user, node, market);
    const first = await follow(one, job);
    expect((await first.next())?.event).toBe('snapshot');
    await report(job, 'running', 'line 1');
    const seen = [await first.next(), await first.next()];
    expect(seen.map((e) => e?.event)).toEqual(['op', 'log']);
    first.close();
    await report(job, 'running', 'line 2');
    await report(job, 'running', 'line 3');

    const resumed = await follow(two, job, { lastEventId: seen[1]?.id });
    expect([await resumed.next(), await resumed.next()].map((e) => e?.data.lines[0].text)).toEqual(['line 2', 'line 3']);
    resumed.close();
    const byQuery = await follow(two, job, { query: seen[0]?.id });
    expect([await byQuery.next(), await byQuery.next(), await byQuery.next()].map((e) => e?.data.lines[0].text)).toEqual(['line 1', 'line 2', 'line 3']);
  });

  it('ends its streams when its replica shuts down, and the reader goes on at another from its last id', async () => {
    const job = await runningJob(one, user, node, market);
    const reader = await follow(one, job);
    const snapshot = await reader.next();
    one.services.eventStreams.close();
    expect(await reader.rest()).toEqual([]);
    await report(job, 'running', 'after the restart');
    const resumed = await follow(two, job, { lastEventId: snapshot?.id });
    expect([await resumed.next(), await resumed.next()].map((e) => e?.event)).toEqual(['op', 'log']);
  });

  it('ends with the job as Postgres has it when its final event never came (looked at every heartbeat)', async () => {
    const job = await runningJob(one, user, node, market);
    const reader = await follow(two, job);
    await reader.next(); // snapshot
    await one.db.query(`UPDATE jobs SET status = 'STOPPED', end_reason = 'ended behind the events', finished_at = now() WHERE address = $1`, [job]);
    expect(await reader.rest(5000)).toEqual([{ id: undefined, event: 'job', data: expect.objectContaining({ status: 'STOPPED', reason: 'ended behind the events' }) }]);
  });

  it('says when an id is too old to resume from, then sends the job as it is', async () => {
    const job = await runningJob(one, user, node, market);
    const reader = await follow(one, job);
    await reader.next(); // snapshot
    await report(job, 'running', 'line 0');
    const oldest = await reader.next();
    reader.close();
    for (let i = 1; i <= settings.JOB_EVENTS_RETAINED; i++) await report(job, 'running', `line ${i}`);

    const resumed = await follow(two, job, { lastEventId: oldest?.id });
    const reset = await resumed.next();
    expect(reset).toMatchObject({ event: 'reset', data: { lastEventId: oldest?.id, message: expect.stringMatching(/no longer kept/) } });
    expect(await resumed.next()).toMatchObject({ event: 'snapshot', data: { address: job, status: 'RUNNING' } });
    expect((await follow(one, job, { lastEventId: 'not-an-id' })).status).toBe(400);
  });

  it('caps open streams per job across replicas (429) and frees a place when one closes; others get 404', async () => {
    const job = await runningJob(one, user, node, market);
    const a = await follow(one, job);
    await follow(two, job);
    const refused = await follow(two, job);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/already has 2 open event streams/);
    a.close();
    let again = refused;
    for (let i = 0; i < 50 && again.status === 429; i++) again = await follow(one, job);
    expect(again.status).toBe(200);
    const stranger = await m.newUser(1_000_000);
    expect((await follow(one, job, { as: stranger })).status).toBe(404);
  });
});
