import type { Request, Response } from 'express';
import type { GetNodeOpLogsResponse } from '@ocg/contracts';
import { ValidationError } from '@ocg/http';
import type { LogBuffer, LogLine, LogStream } from '../executor/log-buffer';

const STREAMS: ReadonlySet<string> = new Set(['stdout', 'stderr', 'nodeerr']);

/**
 * `?tail=N` keeps the last N retained lines, `?streams=stdout,stderr` filters.
 * Without `follow`: one JSON body. With `?follow=true`: NDJSON, one line
 * object per line, the retained ones first, then live until the op ends or
 * the client hangs up.
 */
export function sendLogs(req: Request, res: Response, logs: LogBuffer, job: string): void {
  const streams = parseStreams(req.query.streams);
  const tail = parseTail(req.query.tail);
  const lines = logs.lines({ tail, streams });
  if (!isTrue(req.query.follow)) {
    res.json({ job, op: String(req.params.opid), lines } satisfies GetNodeOpLogsResponse);
    return;
  }
  res.writeHead(200, { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  const write = (line: LogLine) => res.write(`${JSON.stringify(line)}\n`);
  lines.forEach(write);
  const unsubscribe = logs.follow(
    (line) => (!streams || streams.has(line.stream)) && write(line),
    () => res.end(),
  );
  res.on('close', unsubscribe);
}

function isTrue(value: unknown): boolean {
  return value === 'true' || value === '1';
}

function parseTail(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new ValidationError('tail must be a whole number ≥ 0', [{ path: '/tail', message: 'must be a whole number ≥ 0' }]);
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
