import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

export interface ServerUser {
  name: string;
  uid: number;
  gid: number;
}

/**
 * Postgres refuses to run as root. When we are root, run it as the named
 * system user, or as `nobody` if that user does not exist (no need to add users
 * to the machine). Not root: run as ourselves (undefined).
 */
export function serverUser(preferred: string): ServerUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const users = readPasswd();
  const found = users.find((u) => u.name === preferred) ?? users.find((u) => u.name === 'nobody');
  if (!found) throw new Error(`running as root, but neither a '${preferred}' nor a 'nobody' user exists to run the server as`);
  return found;
}

function readPasswd(): ServerUser[] {
  return fs
    .readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .filter((f) => f.length >= 4)
    .map(([name, , uid, gid]) => ({ name, uid: Number(uid), gid: Number(gid) }));
}

export async function chownAll(paths: string[], owner: ServerUser): Promise<void> {
  for (const p of paths) await fsp.chown(p, owner.uid, owner.gid);
}

/**
 * The server user must reach the binaries and the data directory through
 * every parent directory; a checkout inside a private directory (`mktemp -d`
 * makes them 0700) would stop it with EACCES. Adds search permission only
 * (o+x: no listing) to the parents that lack it.
 */
export async function grantTraversal(paths: string[], owner: ServerUser): Promise<void> {
  const parents = new Set<string>();
  for (const p of paths) {
    for (let dir = path.dirname(path.resolve(p)); dir !== path.dirname(dir); dir = path.dirname(dir)) parents.add(dir);
  }
  for (const dir of parents) {
    const stat = await fsp.stat(dir).catch(() => undefined);
    if (!stat || stat.uid === owner.uid || stat.mode & 0o001) continue;
    await fsp.chmod(dir, (stat.mode & 0o7777) | 0o001);
  }
}
