import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * Ports for processes that bind later (a launched service, a server a test
 * starts after handing its URL around). Two things could take such a port in
 * the meantime, and both happened on a busy machine (a test's host-manager URL
 * answered by another test's service): the kernel handing it to someone's
 * listen(0) or outgoing connection, and another test process picking the same
 * one. So ports come from below the kernel's ephemeral range, which it never
 * hands out by itself, and each is reserved by a file in a directory every test
 * process on the machine shares; a reservation lapses after RESERVATION_MS, by
 * when its process has bound the port or gone.
 */
export const RESERVATION_MS = 5 * 60_000;
export const RESERVATIONS_DIR = path.join(os.tmpdir(), 'ocg-test-ports');

/** Ports below the kernel's ephemeral range (Linux's ip_local_port_range; 32768 elsewhere). */
export function reservablePorts(): { low: number; high: number } {
  let ephemeralLow = 32768;
  try {
    ephemeralLow = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || ephemeralLow;
  } catch {
    // not Linux: the IANA ephemeral range starts higher still
  }
  const high = Math.min(ephemeralLow, 49152) - 1;
  return { low: Math.max(1024, high - 12000), high };
}

/** Reserves a port for this process; false when another reservation of it is still fresh. */
export function reservePort(port: number, now = Date.now()): boolean {
  fs.mkdirSync(RESERVATIONS_DIR, { recursive: true, mode: 0o777 });
  const file = path.join(RESERVATIONS_DIR, String(port));
  const create = (): boolean => {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o666 });
      fs.utimesSync(file, new Date(now), new Date(now));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw err;
    }
  };
  if (create()) return true;
  let since: number;
  try {
    since = fs.statSync(file).mtimeMs;
  } catch {
    return create(); // lapsed and taken away a moment ago
  }
  if (now - since < RESERVATION_MS) return false;
  // Lapsed: of several processes taking it over at once, only one renames it away.
  const moved = `${file}.${process.pid}`;
  try {
    fs.renameSync(file, moved);
  } catch {
    return false;
  }
  fs.rmSync(moved, { force: true });
  return create();
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A TCP port on 127.0.0.1, free now and reserved for this process for RESERVATION_MS (see above). */
export async function freePort(): Promise<number> {
  const { low, high } = reservablePorts();
  for (let attempt = 0; attempt < 500; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (reservePort(port) && (await bindable(port))) return port;
  }
  throw new Error(`no free port between ${low} and ${high} after 500 tries (reservations in ${RESERVATIONS_DIR})`);
}

/** One free port per name, e.g. for every service of a launched stack. */
export async function freePorts(names: readonly string[]): Promise<Record<string, number>> {
  return Object.fromEntries(await Promise.all(names.map(async (name) => [name, await freePort()] as const)));
}

/** Whether something accepts TCP connections on host:port. */
export async function portOpen(port: number, host = '127.0.0.1', timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
