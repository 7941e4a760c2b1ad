/** Long-polling claimers' wake-ups: one pattern subscription per process, none after close (a claim in flight at shutdown made one that nothing closed). */
import pino from 'pino';
import { ownRedis } from './support/own-redis';
import { MarketWaker } from '../src/jobs/market-waker';

describe('MarketWaker', () => {
  // A server of its own: the pattern subscriptions counted are this test's alone.
  const own = ownRedis();

  const patterns = async (): Promise<number> => Number(/^pubsub_patterns:(\d+)/m.exec(await own.admin.info('stats'))?.[1] ?? 0);

  it('wakes a waiting market from another instance, and after close answers at once without subscribing again', async () => {
    const waker = new MarketWaker(own.redis, pino({ level: 'silent' }));
    const other = new MarketWaker(own.redis, pino({ level: 'silent' }));
    const started = Date.now();
    const waiting = waker.wait('m1', 20_000);
    // The subscription is made on the first wait; a wake before it is ready is lost, so wake until it lands.
    let woken = false;
    void waiting.then(() => (woken = true));
    while (!woken) {
      other.wake('m1');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(await patterns()).toBe(1);

    // A claim still looping when the service closes: it may not wait again, nor leave a subscription behind.
    const pending = waker.wait('m1', 20_000);
    waker.close();
    await pending;
    expect(waker.closed).toBe(true);
    const after = Date.now();
    await waker.wait('m1', 20_000);
    expect(Date.now() - after).toBeLessThan(1000);
    for (let i = 0; i < 50 && (await patterns()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await patterns()).toBe(0);
    other.close();
  });
});
