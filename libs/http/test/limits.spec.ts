import { echoRoutes, startApp, type TestServer } from './support';

interface Answer {
  status: number;
  body: { name?: string; code?: string; status?: number; message?: string; requestId?: string };
}

async function post(t: TestServer, init: RequestInit): Promise<Answer> {
  const res = await fetch(`${t.url}/echo`, { method: 'POST', ...init });
  return { status: res.status, body: (await res.json()) as Answer['body'] };
}

function expect413(r: Answer, limit: number): void {
  expect(r.status).toBe(413);
  expect(r.body).toMatchObject({ name: 'PayloadTooLargeError', code: 'PAYLOAD_TOO_LARGE', status: 413 });
  expect(r.body.message).toContain(String(limit));
  expect(typeof r.body.requestId).toBe('string');
}

describe('body size limits', () => {
  describe('with the default limit of 1 MiB', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startApp(echoRoutes);
    });
    afterAll(() => t.close());

    it('accepts a JSON body just under 1 MiB', async () => {
      const body = JSON.stringify({ pad: 'x'.repeat(1024 * 1024 - 20) });
      const r = await post(t, { headers: { 'content-type': 'application/json' }, body });
      expect(r.status).toBe(200);
    });

    it('answers 413 for a JSON body over 1 MiB', async () => {
      const body = JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 10) });
      expect413(await post(t, { headers: { 'content-type': 'application/json' }, body }), 1024 * 1024);
    });
  });

  describe('with a 1000-byte limit', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await startApp(echoRoutes, { bodyLimit: 1000 });
    });
    afterAll(() => t.close());

    it('answers 413 for a text/plain body over the limit', async () => {
      const body = JSON.stringify({ pad: 'x'.repeat(2000) });
      expect413(await post(t, { headers: { 'content-type': 'text/plain' }, body }), 1000);
    });

    it('answers 413 for a chunked JSON body that passes the limit without declaring a length', async () => {
      const chunk = new TextEncoder().encode(JSON.stringify({ pad: 'x'.repeat(600) }));
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(chunk);
          controller.enqueue(chunk);
          controller.close();
        },
      });
      const init = { headers: { 'content-type': 'application/json' }, body: stream, duplex: 'half' } as RequestInit;
      expect413(await post(t, init), 1000);
    });

    it('answers 413 for a multipart field over the limit', async () => {
      const form = new FormData();
      form.append('pad', 'x'.repeat(1500));
      expect413(await post(t, { body: form }), 1000);
    });

    it('answers 413 for multipart fields that together pass the limit', async () => {
      const form = new FormData();
      for (let i = 0; i < 8; i++) form.append(`f${i}`, 'x'.repeat(200));
      expect413(await post(t, { body: form }), 1000);
    });

    it('answers 413 for a chunked multipart body over the limit', async () => {
      const form = new FormData();
      form.append('a', 'x'.repeat(700));
      form.append('b', 'y'.repeat(700));
      const encoded = new Response(form);
      const bytes = new Uint8Array(await encoded.arrayBuffer());
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bytes.slice(0, 800));
          controller.enqueue(bytes.slice(800));
          controller.close();
        },
      });
      const headers = { 'content-type': encoded.headers.get('content-type')! };
      expect413(await post(t, { headers, body: stream, duplex: 'half' } as RequestInit), 1000);
    });

    it('answers 413 for a multipart file part over the limit', async () => {
      const form = new FormData();
      form.append('definition', new Blob(['x'.repeat(5000)]), 'job.json');
      expect413(await post(t, { body: form }), 1000);
    });

    it('keeps serving on the same server after a 413', async () => {
      const r = await post(t, { headers: { 'content-type': 'application/json' }, body: '{"ok":true}' });
      expect(r).toMatchObject({ status: 200, body: { body: { ok: true } } });
    });
  });
});
