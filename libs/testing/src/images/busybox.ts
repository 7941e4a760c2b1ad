/**
 * A tiny test image made offline: Debian's static busybox in an empty rootfs
 * with one symlink per applet, imported with `docker import`. No registry is
 * reachable here, and this image starts in milliseconds.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { run } from './exec';

export const BUSYBOX_IMAGE = 'ocg-test/busybox:latest';
const BUSYBOX_CANDIDATES = ['/bin/busybox', '/usr/bin/busybox'];

/** Builds the image unless the engine already has it; returns its reference. */
export async function ensureBusyboxImage(tag = BUSYBOX_IMAGE): Promise<string> {
  if (await imageExists(tag)) return tag;
  const busybox = findStaticBusybox();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocg-busybox-'));
  try {
    const root = path.join(dir, 'rootfs');
    await makeRootfs(root, busybox);
    const tarball = path.join(dir, 'rootfs.tar');
    await run('tar', ['-C', root, '-cf', tarball, '.']);
    await run('docker', ['import', '--change', 'ENV PATH=/bin', '--change', 'CMD ["/bin/sh"]', tarball, tag]);
    return tag;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export async function imageExists(ref: string): Promise<boolean> {
  try {
    await run('docker', ['image', 'inspect', '--format', '{{.Id}}', ref]);
    return true;
  } catch {
    return false;
  }
}

function findStaticBusybox(): string {
  const found = BUSYBOX_CANDIDATES.find((p) => fs.existsSync(p));
  if (!found) throw new Error('busybox not found: install it with `apt-get install -y busybox-static`');
  return found;
}

async function makeRootfs(root: string, busybox: string): Promise<void> {
  for (const d of ['bin', 'dev', 'proc', 'sys', 'etc', 'root', 'var/www', 'www']) fs.mkdirSync(path.join(root, d), { recursive: true });
  fs.mkdirSync(path.join(root, 'tmp'), { mode: 0o1777 });
  fs.chmodSync(path.join(root, 'tmp'), 0o1777);
  fs.copyFileSync(busybox, path.join(root, 'bin/busybox'));
  fs.chmodSync(path.join(root, 'bin/busybox'), 0o755);
  const applets = (await run(busybox, ['--list'])).split('\n').filter((a) => a && a !== 'busybox');
  for (const applet of applets) fs.symlinkSync('busybox', path.join(root, 'bin', applet));
  // httpd and id look users up; nobody is there for images that drop privileges.
  fs.writeFileSync(path.join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n');
  fs.writeFileSync(path.join(root, 'etc/group'), 'root:x:0:\nnogroup:x:65534:\n');
}
