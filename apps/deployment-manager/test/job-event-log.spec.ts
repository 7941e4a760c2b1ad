/** A job event's append: one script, whose text goes to the server once and then only its hash (ADR 0080). */
import { once } from 'node:events';
import { redisKeys } from '@ocg/redis';
import { ownRedis } from './support/own-redis';
import { JobEventLog, START } from '../src/jobs/job-event-log';

describe('JobEventLog.append', () => {
  // A server of its own: the command counts are this test's alone, and SCRIPT FLUSH touches no other test.
  const own = ownRedis();
  const settings = { retained: 10, keepSeconds: 60, idleSeconds: 600 };

  /** Calls of a command so far (INFO commandstats). */
  const calls = async (command: string): Promise<number> => Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(await own.admin.info('commandstats'))?.[1] ?? 0);

  it('sends the script once, then its hash; after the server lost it, its text again; every event and message recorded', async () => {
    const log = new JobEventLog(own.redis, settings);
    const subscriber = own.admin.duplicate();
    await subscriber.subscribe('also', redisKeys.jobEvents('j1'));
    const messages: string[] = [];
    subscriber.on('message', (channel: string, message: string) => messages.push(`${channel} ${message}`));

    await log.append('j1', 'job', { status: 'QUEUED' }, false, [{ channel: 'also', message: 'woken' }]);
    await log.append('j1', 'op', { id: 'a' });
    // Another log on the same connection uses the same command.
    await new JobEventLog(own.redis, settings).append('j1', 'log', { op: 'a', lines: [] });
    expect([await calls('eval'), await calls('evalsha')]).toEqual([1, 2]);

    await own.admin.script('FLUSH');
    await log.append('j1', 'job', { status: 'RUNNING' }, true);
    expect(await calls('eval')).toBe(2);

    const events = await log.after('j1', START, 10);
    expect(events.map((e) => [e.type, JSON.parse(e.data)])).toEqual([
      ['job', { status: 'QUEUED' }],
      ['op', { id: 'a' }],
      ['log', { op: 'a', lines: [] }],
      ['job', { status: 'RUNNING' }],
    ]);
    expect(await own.admin.ttl(redisKeys.jobEventLog('j1'))).toBeLessThanOrEqual(settings.keepSeconds);
    while (messages.length < 5) await once(subscriber, 'message');
    expect(messages).toEqual(['also woken', ...['job', 'op', 'log', 'job'].map((type) => `${redisKeys.jobEvents('j1')} ${JSON.stringify({ job: 'j1', type })}`)]);
    subscriber.disconnect();
  });
});
