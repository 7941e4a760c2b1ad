/** A test's reader of GET /jobs/{job}/events: one Server-Sent Event at a time, with a deadline for each. */
export interface ReadEvent {
  id?: string;
  event: string;
  data: any;
}

export interface EventReader {
  status: number;
  body?: any;
  /** The next event (comments skipped); undefined once the stream ended. */
  next(ms?: number): Promise<ReadEvent | undefined>;
  /** Events until the stream ends. */
  rest(ms?: number): Promise<ReadEvent[]>;
  close(): void;
}

export async function openEvents(base: string, job: string, key: string, opts: { lastEventId?: string; query?: string } = {}): Promise<EventReader> {
  const aborter = new AbortController();
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (opts.lastEventId) headers['last-event-id'] = opts.lastEventId;
  const res = await fetch(`${base}/jobs/${job}/events${opts.query ? `?lastEventId=${opts.query}` : ''}`, { headers, signal: aborter.signal });
  if (!res.ok || !res.body) return { status: res.status, body: await res.json(), next: async () => undefined, rest: async () => [], close: () => aborter.abort() };
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let ended = false;
  const next = async (ms = 10_000): Promise<ReadEvent | undefined> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const cut = buffer.indexOf('\n\n');
      if (cut >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const fields = new Map(
          block
            .split('\n')
            .filter((l) => !l.startsWith(':'))
            .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
        );
        if (!fields.has('event')) continue; // a comment or the retry field
        return { id: fields.get('id'), event: fields.get('event')!, data: JSON.parse(fields.get('data') ?? 'null') };
      }
      if (ended) return undefined;
      const timer = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no event within ${ms} ms`)), Math.max(0, deadline - Date.now())).unref());
      const chunk = await Promise.race([reader.read(), timer]);
      if (chunk.done) ended = true;
      else buffer += decoder.decode(chunk.value, { stream: true });
    }
  };
  return {
    status: res.status,
    next,
    async rest(ms) {
      const all: ReadEvent[] = [];
      for (let e = await next(ms); e; e = await next(ms)) all.push(e);
      return all;
    },
    close: () => aborter.abort(),
  };
}
