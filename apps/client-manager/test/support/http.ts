/** The three wire formats the services accept. */
export type MediaType = 'json' | 'text' | 'multipart';

export interface CallOptions {
  body?: unknown;
  /** Sent as `Authorization: Bearer <key>`. */
  key?: string;
  type?: MediaType;
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: Headers;
  /** Parsed JSON (tests index into answers), or the text. */
  body: any;
}

export async function call(base: string, method: string, path: string, opts: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`;
  const init: RequestInit = { method, headers };
  if (opts.body !== undefined) Object.assign(init, encode(opts.body, opts.type ?? 'json', headers));
  const res = await fetch(`${base}${path}`, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body };
}

function encode(body: unknown, type: MediaType, headers: Record<string, string>): { body: string | FormData } {
  if (type === 'json') {
    headers['content-type'] = 'application/json';
    return { body: JSON.stringify(body) };
  }
  if (type === 'text') {
    headers['content-type'] = 'text/plain';
    return { body: JSON.stringify(body) };
  }
  // One field per top-level member; a non-string member's field holds its JSON text.
  const form = new FormData();
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
  return { body: form };
}

export const MEDIA_TYPES: MediaType[] = ['json', 'text', 'multipart'];

/** `n` characters. */
export const chars = (n: number, c = 'a'): string => c.repeat(n);
