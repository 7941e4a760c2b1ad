/**
 * One op's log followed through the node API (`follow=true`, NDJSON) until
 * the node says the op ended. A connection cut before that (no end notice)
 * is opened again after the last seq handed on, with backoff, so a network
 * blip neither loses nor repeats a line; lines the node's buffer dropped
 * meanwhile come as a `missed` count. Heartbeats tell a quiet op from a
 * dead connection.
 */
import type { NodeLogLine, NodeLogStreamItem } from '@ocg/contracts';
import { reason } from './gateway';
import { NODE_BACKOFF_MS, NODE_GIVE_UP_MS, nodeAnswerOrWhy, type NodeApi } from './node-api';
import { CliError } from './output';

export interface LogStreamHandlers {
  line(line: NodeLogLine): void;
  missed(count: number): void;
  /** The stream was cut (`why`) and is open again after `downMs`. */
  reconnected(downMs: number, why: string): void;
}

export interface LogStreamQuery {
  /** The last seq already shown. */
  after: number;
  streams?: string;
  since?: string;
}

/** The node sends a heartbeat every 20 s (LOG_FOLLOW_HEARTBEAT_SECONDS): a stream silent this long is dead, however quiet the op. */
const IDLE_MS = 90_000;

/** Resolves when the op ended (or `signal` aborts); throws when the node refuses or stays away. */
export async function followOpLog(api: NodeApi, op: string, query: LogStreamQuery, on: LogStreamHandlers, signal: AbortSignal): Promise<void> {
  let after = query.after;
  let cut: { at: number; why: string } | undefined;
  for (let attempt = 0; !signal.aborted; attempt++) {
    const opened = await open(api, op, { ...query, after }, signal);
    if (typeof opened !== 'string') {
      if (cut) on.reconnected(Date.now() - cut.at, cut.why);
      cut = undefined;
      attempt = 0;
      const outcome = await read(opened, (item) => {
        if ('seq' in item) {
          after = item.seq;
          on.line(item);
        } else if (item.notice === 'missed') on.missed(item.count ?? 0);
      });
      if (outcome === 'ended' || signal.aborted) return;
      cut = { at: Date.now(), why: outcome };
    } else {
      cut ??= { at: Date.now(), why: opened };
      if (Date.now() - cut.at > NODE_GIVE_UP_MS) throw new CliError(`lost op ${op}'s log and could not follow it again for ${NODE_GIVE_UP_MS / 1000} s: ${opened}`);
    }
    await pause(NODE_BACKOFF_MS[Math.min(attempt, NODE_BACKOFF_MS.length - 1)], signal);
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/** The stream, or why it could not be opened this time; a refusal that asking again will not change is thrown. */
async function open(api: NodeApi, op: string, query: LogStreamQuery, signal: AbortSignal): Promise<ReadableStream<Uint8Array> | string> {
  const params = { path: { job: api.job.address, opid: op }, query: { follow: 'true', after: query.after, streams: query.streams, since: query.since } };
  const got = await nodeAnswerOrWhy(() => api.streaming.GET('/job/{job}/ops/{opid}/logs', { params, parseAs: 'stream', signal }));
  return 'why' in got ? got.why : (got.data as ReadableStream<Uint8Array>);
}

/** Hands on each item; 'ended' after the node's end notice, else why the stream stopped (a silent one is given up after IDLE_MS). */
async function read(stream: ReadableStream<Uint8Array>, onItem: (item: NodeLogStreamItem) => void): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      const next = await withinIdle(reader.read());
      if (next === 'idle') {
        void reader.cancel().catch(() => undefined);
        return `nothing from the node for ${IDLE_MS / 1000} s`;
      }
      if (next.done) return 'the connection ended early';
      const parts = (buffered + decoder.decode(next.value, { stream: true })).split('\n');
      buffered = parts.pop() ?? '';
      for (const part of parts) {
        if (!part) continue;
        const item = JSON.parse(part) as NodeLogStreamItem;
        if ('notice' in item && item.notice === 'end') return 'ended';
        onItem(item);
      }
    }
  } catch (err) {
    return reason(err);
  }
}

async function withinIdle<T>(read: Promise<T>): Promise<T | 'idle'> {
  let timer: NodeJS.Timeout | undefined;
  const idle = new Promise<'idle'>((resolve) => (timer = setTimeout(() => resolve('idle'), IDLE_MS)));
  try {
    return await Promise.race([read, idle]);
  } finally {
    clearTimeout(timer);
  }
}
