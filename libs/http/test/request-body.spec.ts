import { echoRoutes, startApp, type TestServer } from './support';

const sample = {
  name: 'render job',
  count: 3,
  ratio: 0.5,
  enabled: false,
  nothing: null,
  scopes: ['jobs:read', 'jobs:write'],
  limits: { cpu: 2, labels: { team: 'a' } },
  empty: '',
  spaced: ' padded ',
  sentence: 'true love',
};

function formOf(obj: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(obj)) form.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  return form;
}

async function echo(t: TestServer, init: RequestInit): Promise<{ status: number; json: { body?: unknown; code?: string; message?: string; name?: string; requestId?: string } }> {
  const res = await fetch(`${t.url}/echo`, { method: 'POST', ...init });
  return { status: res.status, json: (await res.json()) as { body?: unknown } };
}

describe('request bodies', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startApp(echoRoutes);
  });
  afterAll(() => t.close());

  it('parses application/json to the object', async () => {
    const r = await echo(t, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(sample) });
    expect(r).toEqual({ status: 200, json: { body: sample } });
  });

  it('parses a +json media type like application/json', async () => {
    const r = await echo(t, { headers: { 'content-type': 'application/vnd.ocg.job+json; charset=utf-8' }, body: JSON.stringify(sample) });
    expect(r.json.body).toEqual(sample);
  });

  it('parses text/plain holding the JSON text to the same object', async () => {
    const r = await echo(t, { headers: { 'content-type': 'text/plain; charset=utf-8' }, body: JSON.stringify(sample) });
    expect(r).toEqual({ status: 200, json: { body: sample } });
  });

  it('parses multipart fields (strings raw, other members as JSON text) to the same object', async () => {
    const r = await echo(t, { body: formOf(sample) });
    expect(r).toEqual({ status: 200, json: { body: sample } });
  });

  it('keeps a multipart field that is the JSON of a string as the raw text', async () => {
    const form = new FormData();
    form.append('quoted', '"hello"');
    form.append('almostNumber', '12abc');
    form.append('padded', ' 42');
    const r = await echo(t, { body: form });
    expect(r.json.body).toEqual({ quoted: '"hello"', almostNumber: '12abc', padded: ' 42' });
  });

  it('parses a multipart part labelled application/json strictly, so "123" can be sent as a string', async () => {
    const form = new FormData();
    form.append('code', new Blob(['"123"'], { type: 'application/json' }));
    form.append('count', '123');
    const r = await echo(t, { body: form });
    expect(r.json.body).toEqual({ code: '123', count: 123 });
  });

  it('reads a multipart file part as the field text', async () => {
    const form = new FormData();
    form.append('definition', new Blob([JSON.stringify({ ops: [1] })], { type: 'application/octet-stream' }), 'job.json');
    const r = await echo(t, { body: form });
    expect(r.json.body).toEqual({ definition: { ops: [1] } });
  });

  it('collects repeated multipart fields into an array in order', async () => {
    const form = new FormData();
    form.append('scopes', 'jobs:read');
    form.append('scopes', 'jobs:write');
    form.append('name', 'k');
    const r = await echo(t, { body: form });
    expect(r.json.body).toEqual({ scopes: ['jobs:read', 'jobs:write'], name: 'k' });
  });

  it('gives a multipart field named __proto__ an own member and leaves the prototype alone', async () => {
    const form = new FormData();
    form.append('__proto__', '{"polluted":true}');
    const r = await echo(t, { body: form });
    expect(r.status).toBe(200);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('passes a JSON array through for validation to judge', async () => {
    const r = await echo(t, { headers: { 'content-type': 'application/json' }, body: '[1,2]' });
    expect(r).toEqual({ status: 200, json: { body: [1, 2] } });
  });

  it('treats an empty body with a JSON or text media type as the empty object', async () => {
    const json = await echo(t, { headers: { 'content-type': 'application/json' }, body: '' });
    const text = await echo(t, { headers: { 'content-type': 'text/plain' }, body: '' });
    expect([json.json.body, text.json.body]).toEqual([{}, {}]);
  });

  it('leaves the body undefined for a POST without a body or a GET', async () => {
    const post = await echo(t, {});
    const get = await fetch(`${t.url}/echo`);
    expect(post.json.body).toBe('<undefined>');
    expect(((await get.json()) as { body: unknown }).body).toBe('<undefined>');
  });

  it('answers 415 for application/xml, naming the type and the accepted ones', async () => {
    const r = await echo(t, { headers: { 'content-type': 'application/xml' }, body: '<a/>' });
    expect(r.status).toBe(415);
    expect(r.json).toMatchObject({ name: 'UnsupportedMediaTypeError', code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 });
    expect(r.json.message).toContain('application/xml');
    for (const type of ['application/json', 'text/plain', 'multipart/form-data']) expect(r.json.message).toContain(type);
    expect(typeof r.json.requestId).toBe('string');
  });

  it('answers 415 for a body without a Content-Type', async () => {
    const r = await echo(t, { body: new Blob(['{}']) });
    expect(r.status).toBe(415);
    expect(r.json.message).toMatch(/Missing Content-Type/);
  });

  it('answers 415 for a compressed body', async () => {
    const r = await echo(t, { headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: '{}' });
    expect(r.status).toBe(415);
  });

  it('answers 400 MALFORMED_BODY with the position for malformed JSON', async () => {
    const r = await echo(t, { headers: { 'content-type': 'application/json' }, body: '{"a":1,}' });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ name: 'MalformedBodyError', code: 'MALFORMED_BODY', status: 400 });
    expect(r.json.message).toMatch(/position 7 \(line 1, column 8\)/);
  });

  it('answers 400 MALFORMED_BODY with the position for text/plain that is not JSON', async () => {
    const r = await echo(t, { headers: { 'content-type': 'text/plain' }, body: '{\n  "a": tru\n}' });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('MALFORMED_BODY');
    expect(r.json.message).toBe("Malformed JSON text in text/plain body: Unexpected token '\\n' at position 12 (line 2, column 11)");
  });

  it('answers 400 MALFORMED_BODY naming the field for a malformed application/json part', async () => {
    const form = new FormData();
    form.append('limits', new Blob(['{"cpu":'], { type: 'application/json' }));
    const r = await echo(t, { body: form });
    expect(r.status).toBe(400);
    expect(r.json.message).toMatch(/field "limits".*position 7/);
  });

  it('answers 400 MALFORMED_BODY for a multipart body without a boundary', async () => {
    const r = await echo(t, { headers: { 'content-type': 'multipart/form-data' }, body: 'x' });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('MALFORMED_BODY');
  });
});
