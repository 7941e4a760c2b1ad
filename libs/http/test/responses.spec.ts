import { get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { startApp, type TestServer } from './support';

const resource = {
  id: 'key_1',
  name: 'ci key',
  code: '123',
  quote: 'say "hi"\r\n--not-a-boundary',
  count: 2,
  active: true,
  expiresAt: null,
  scopes: ['jobs:read'],
  limits: { cpu: 2 },
};

function routes(app: Express): void {
  app.get('/resource', (_req, res) => {
    res.status(200).json({ ...resource, dropped: undefined });
  });
  app.post('/resource', (_req, res) => {
    res.status(201).json(resource);
  });
  app.get('/list', (_req, res) => {
    res.json([1, 2]);
  });
  app.get('/conflict', (_req, res) => {
    res.status(409).json({ name: 'ConflictError', message: 'taken' });
  });
}

/** Multipart answers label non-string parts application/json; use that to rebuild the object. */
async function fromMultipart(res: Response): Promise<Record<string, unknown>> {
  const raw = await res.clone().text();
  const form = await res.formData();
  const out: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) {
    const head = raw.split(`name="${name}"`)[1]!.split('\r\n\r\n')[0]!;
    out[name] = head.includes('application/json') ? JSON.parse(value as string) : value;
  }
  return out;
}

describe('response negotiation', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startApp(routes);
  });
  afterAll(() => t.close());

  const get = (accept?: string, path = '/resource'): Promise<Response> => fetch(`${t.url}${path}`, { headers: accept ? { accept } : {} });

  it('answers JSON when Accept is absent', async () => {
    const res = await get();
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual(resource);
  });

  it('answers JSON for */*', async () => {
    const res = await get('*/*');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers the JSON text as text/plain for Accept text/plain', async () => {
    const res = await get('text/plain');
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('vary')).toMatch(/Accept/);
    expect(JSON.parse(await res.text())).toEqual(resource);
  });

  it('answers one part per member for Accept multipart/form-data', async () => {
    const res = await get('multipart/form-data');
    expect(res.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=ocg-[0-9a-f]{36}$/);
    expect(await fromMultipart(res)).toEqual(resource);
  });

  it('sends string members raw and others as JSON text in multipart parts', async () => {
    const form = await (await get('multipart/form-data')).formData();
    expect(form.get('code')).toBe('123');
    expect(form.get('count')).toBe('2');
    expect(form.get('expiresAt')).toBe('null');
    expect(form.get('scopes')).toBe('["jobs:read"]');
    expect(form.has('dropped')).toBe(false);
  });

  it('negotiates other 2xx bodies too (201)', async () => {
    const res = await fetch(`${t.url}/resource`, { method: 'POST', headers: { accept: 'text/plain' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('follows q-values: multipart;q=0.9 beats text/plain;q=0.5', async () => {
    const res = await get('text/plain;q=0.5, multipart/form-data;q=0.9');
    expect(res.headers.get('content-type')).toMatch(/^multipart\/form-data/);
  });

  it('follows q-values: application/json;q=0.1 loses to text/*', async () => {
    const res = await get('application/json;q=0.1, text/*');
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('never picks a type the client gave q=0', async () => {
    const res = await get('application/json;q=0, */*;q=0.5');
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  });

  it('answers JSON when Accept names only types it cannot produce (lenient, no 406)', async () => {
    const res = await get('application/xml');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it('answers JSON for a top-level array even when multipart is asked for', async () => {
    const res = await get('multipart/form-data', '/list');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual([1, 2]);
  });

  it('answers errors as JSON whatever Accept says', async () => {
    const res = await get('text/plain', '/conflict');
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const missing = await get('multipart/form-data', '/nope');
    expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

/** The status of a GET through node's client (fetch adds `cache-control: no-cache` beside a condition). */
function statusOf(url: string, headers: Record<string, string>): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    get(url, { headers, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode);
    }).on('error', reject);
  });
}

describe('JSON answers against express on its own', () => {
  let t: TestServer;
  let plain: Server;
  let plainUrl: string;
  const bodies: Record<string, unknown> = { '/object': resource, '/text': 'été ✓', '/empty': {} };
  beforeAll(async () => {
    const add = (app: Express): void => {
      for (const [path, body] of Object.entries(bodies)) {
        app.get(path, (_req, res) => void res.status(200).json(body));
        app.post(path, (_req, res) => void res.status(201).json(body));
      }
      for (const status of [204, 205]) app.get(`/status-${status}`, (_req, res) => void res.status(status).json(resource));
    };
    t = await startApp(add);
    const app = express();
    app.disable('x-powered-by');
    add(app);
    plain = await new Promise<Server>((resolve) => {
      const server = app.listen(0, '127.0.0.1', () => resolve(server));
    });
    plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await t.close();
    await new Promise((resolve) => plain.close(resolve));
  });

  it('sends the same type, length, ETag and bytes, and the same 304 for a matching If-None-Match', async () => {
    for (const path of Object.keys(bodies)) {
      const [ours, theirs] = await Promise.all([fetch(`${t.url}${path}`), fetch(`${plainUrl}${path}`)]);
      for (const header of ['content-type', 'content-length', 'etag']) expect([path, header, ours.headers.get(header)]).toEqual([path, header, theirs.headers.get(header)]);
      expect(Buffer.from(await ours.arrayBuffer())).toEqual(Buffer.from(await theirs.arrayBuffer()));
      expect(await statusOf(`${t.url}${path}`, { 'if-none-match': theirs.headers.get('etag')! })).toBe(304);
    }
  });

  it('answers HEAD with the same headers and no body', async () => {
    for (const path of Object.keys(bodies)) {
      const [ours, theirs] = await Promise.all([fetch(`${t.url}${path}`, { method: 'HEAD' }), fetch(`${plainUrl}${path}`, { method: 'HEAD' })]);
      expect(ours.status).toBe(200);
      for (const header of ['content-type', 'content-length', 'etag']) expect([path, header, ours.headers.get(header)]).toEqual([path, header, theirs.headers.get(header)]);
      expect(ours.headers.get('etag')).not.toBeNull();
      expect(await ours.arrayBuffer()).toEqual(new ArrayBuffer(0));
    }
  });

  it('sends the same answer to a POST, without an ETag (nothing can revalidate it)', async () => {
    for (const path of Object.keys(bodies)) {
      const [ours, theirs] = await Promise.all([fetch(`${t.url}${path}`, { method: 'POST' }), fetch(`${plainUrl}${path}`, { method: 'POST' })]);
      expect(ours.status).toBe(201);
      for (const header of ['content-type', 'content-length']) expect([path, header, ours.headers.get(header)]).toEqual([path, header, theirs.headers.get(header)]);
      expect(ours.headers.get('etag')).toBeNull();
      expect(Buffer.from(await ours.arrayBuffer())).toEqual(Buffer.from(await theirs.arrayBuffer()));
    }
  });

  it('sends no body with a 204 or 205, as express does', async () => {
    for (const path of ['/status-204', '/status-205']) {
      const [ours, theirs] = await Promise.all([fetch(`${t.url}${path}`), fetch(`${plainUrl}${path}`)]);
      expect([path, ours.status]).toEqual([path, theirs.status]);
      for (const header of ['content-type', 'content-length', 'etag', 'transfer-encoding'])
        expect([path, header, ours.headers.get(header)]).toEqual([path, header, theirs.headers.get(header)]);
      expect(await ours.text()).toBe('');
    }
  });
});
