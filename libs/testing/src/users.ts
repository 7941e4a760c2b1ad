import fs from 'node:fs';
import fsp from 'node:fs/promises';

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
