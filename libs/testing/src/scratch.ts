import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { processAlive } from './process';

const PREFIX = 'ocg-testing-';
let swept = false;

/**
 * A path under os.tmpdir() owned by this process: `ocg-testing-<pid>-<name>`.
 * Keepers delete these when the process dies; anything they could not (a
 * server stopped by the test and never started again) is swept by the next run.
 */
export function scratchPath(name: string): string {
  if (!swept) sweepStale();
  return path.join(os.tmpdir(), `${PREFIX}${process.pid}-${name}`);
}

function sweepStale(): void {
  swept = true;
  for (const entry of fs.readdirSync(os.tmpdir())) {
    const pid = Number(entry.slice(PREFIX.length).split('-')[0]);
    if (!entry.startsWith(PREFIX) || !Number.isInteger(pid) || processAlive(pid)) continue;
    fs.rmSync(path.join(os.tmpdir(), entry), { recursive: true, force: true });
  }
}

interface SharedState {
  url: string;
  keeperPid: number;
}

/**
 * One server per OS process, shared by every test file the process runs. Jest
 * gives each test file fresh module state, so the server is found again through
 * a state file named after the pid; the keeper deletes it with the server.
 */
export async function sharedPerProcess(kind: string, start: (orphanPaths: string[]) => Promise<{ url: string; pid: number }>): Promise<string> {
  const stateFile = scratchPath(`${kind}.json`);
  const known = readState(stateFile);
  if (known && processAlive(known.keeperPid)) return known.url;
  const server = await start([stateFile]);
  fs.writeFileSync(stateFile, JSON.stringify({ url: server.url, keeperPid: server.pid } satisfies SharedState));
  return server.url;
}

function readState(file: string): SharedState | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as SharedState;
  } catch {
    return undefined;
  }
}
