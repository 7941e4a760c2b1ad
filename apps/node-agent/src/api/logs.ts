import type { Request, Response } from 'express';
import type { GetNodeOpLogsResponse } from '@ocg/contracts';
import { ValidationError } from '@ocg/http';
import type { LogBuffer, LogLine, LogStream } from '../executor/log-buffer';
import { followLog, type Followers } from './log-follow';

const STREAMS: ReadonlySet<string> = new Set(['stdout', 'stderr', 'nodeerr']);

/** Which lines a caller wants: `after` a position, at or `since` a time, of some `streams`. */
export interface LogQuery {
  /** The last `seq` the caller has: only later lines. */
  after?: number;
  tail?: number;
  keep: (line: LogLine) => boolean;
}

/**
 * `?tail=N` keeps the last N lines, `?streams=stdout,stderr` filters,
 * `?after=<seq>` resumes after a line the caller has, `?since=<time>` keeps
 * lines at or after a time. Without `follow`: one JSON body. With
 * `?follow=true`: NDJSON (log-follow.ts).
 */
export function sendLogs(req: Request, res: Response, logs: LogBuffer, job: string, followers: Followers): void {
  const query = parseQuery(req.query);
  if (isTrue(req.query.follow)) {
    followers.take(job, res);
    return followLog(res, logs, query, followers.settings.heartbeatMs);
  }
  const lines = logs.lines().filter((l) => l.seq > (query.after ?? 0) && query.keep(l));
  res.json({
    job,
    op: String(req.params.opid),
    lastSeq: logs.lastSeq,
    lines: query.tail === undefined ? lines : lines.slice(Math.max(0, lines.length - query.tail)),
  } satisfies GetNodeOpLogsResponse);
}

function isTrue(value: unknown): boolean {
  return value === 'true' || value === '1';
}

function parseQuery(query: Request['query']): LogQuery {
  const streams = parseStreams(query.streams);
  const since = query.since === undefined ? undefined : Date.parse(String(query.since));
  if (since !== undefined && Number.isNaN(since)) throw new ValidationError('since must be an RFC 3339 time', [{ path: '/since', message: 'must be an RFC 3339 time' }]);
  return {
    after: wholeNumber('after', query.after),
    tail: wholeNumber('tail', query.tail),
    keep: (line) => (!streams || streams.has(line.stream)) && (since === undefined || Date.parse(line.time) >= since),
  };
}

function wholeNumber(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new ValidationError(`${name} must be a whole number ≥ 0`, [{ path: `/${name}`, message: 'must be a whole number ≥ 0' }]);
  return n;
}

function parseStreams(value: unknown): ReadonlySet<LogStream> | undefined {
  if (value === undefined) return undefined;
  const names = String(value).split(',').filter(Boolean);
  const bad = names.filter((n) => !STREAMS.has(n));
  if (bad.length > 0)
    throw new ValidationError(`unknown log streams: ${bad.join(', ')} (known: stdout, stderr, nodeerr)`, [{ path: '/streams', message: 'stdout, stderr or nodeerr' }]);
  return new Set(names as LogStream[]);
}
