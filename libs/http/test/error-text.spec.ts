import { ServiceUnavailableError, ValidationError } from '../src';
import { startApp, type TestServer } from './support';

describe('what error bodies never carry', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startApp((app) => {
      // What tsoa does with whatever an auth hook throws: tags it 401.
      app.get('/overflow', (_req, _res, next) => next(Object.assign(new RangeError('Maximum call stack size exceeded'), { status: 401 })));
      app.get('/upstream', (_req, _res, next) =>
        next(new ServiceUnavailableError('host-manager is unavailable; try again shortly', undefined, { detail: 'status 500 resolving market "x"' })),
      );
      app.get('/many', (_req, _res, next) =>
        next(
          new ValidationError(
            'bad',
            Array.from({ length: 5000 }, (_, i) => ({ path: `/items/${i}/${'k'.repeat(2000)}`, message: 'm'.repeat(5000) })),
          ),
        ),
      );
    });
  });
  afterAll(() => t.close());

  const get = async (path: string) => {
    const res = await fetch(`${t.url}${path}`);
    const text = await res.text();
    return { status: res.status, text, body: JSON.parse(text) };
  };

  it('keeps the 4xx status of a runtime fault but not its text', async () => {
    const r = await get('/overflow');
    expect(r.status).toBe(401);
    expect(r.text).not.toContain('call stack');
  });

  it("logs another service's status behind a 503 and sends only the message", async () => {
    const r = await get('/upstream');
    expect(r.body).toMatchObject({ status: 503, message: 'host-manager is unavailable; try again shortly' });
    expect(r.text).not.toContain('status 500');
    const line = await t.logs.waitFor((l) => l.msg === 'host-manager is unavailable; try again shortly');
    expect(JSON.stringify(line)).toContain('status 500 resolving market');
  });

  it('lists 20 field errors, counts the rest and stays under 64 KiB', async () => {
    const r = await get('/many');
    expect(r.body.errors).toHaveLength(20);
    expect(r.body.moreErrors).toBe(4980);
    expect(Buffer.byteLength(r.text)).toBeLessThan(64 * 1024);
  });
});
