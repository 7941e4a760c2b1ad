/**
 * A fast origin for benches, made offline: the host's Debian nginx (package
 * nginx-light) and the shared libraries it links, in an empty rootfs,
 * answering every request on port 8080 with a small static body. One
 * process (no master, so no user switch: it runs under a job's dropped
 * capabilities and read-only root), everything it writes under /tmp.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { imageExists } from './busybox';
import { run } from './exec';

export const NGINX_ORIGIN_IMAGE = 'ocg-test/nginx-origin:local';
/** What the origin answers to every request. */
export const NGINX_ORIGIN_BODY = 'Hello from a fast origin\n';
const NGINX = '/usr/sbin/nginx';

const CONFIG = `daemon off;
master_process off;
user root root;
pid /tmp/nginx.pid;
error_log stderr warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path /tmp/body; proxy_temp_path /tmp/proxy; fastcgi_temp_path /tmp/fastcgi; uwsgi_temp_path /tmp/uwsgi; scgi_temp_path /tmp/scgi;
  keepalive_requests 1000000;
  server {
    listen 8080;
    location / { default_type text/plain; return 200 ${JSON.stringify(NGINX_ORIGIN_BODY)}; }
  }
}
`;

/** Builds the image unless the engine already has it; returns its reference. */
export async function ensureNginxOriginImage(tag = NGINX_ORIGIN_IMAGE): Promise<string> {
  if (await imageExists(tag)) return tag;
  if (!fs.existsSync(NGINX)) throw new Error('nginx not found: install it with `apt-get install -y nginx-light`');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ocg-nginx-origin-'));
  try {
    const root = path.join(dir, 'rootfs');
    for (const d of ['etc/nginx', 'usr/sbin']) fs.mkdirSync(path.join(root, d), { recursive: true });
    fs.mkdirSync(path.join(root, 'tmp'), { mode: 0o1777 });
    fs.chmodSync(path.join(root, 'tmp'), 0o1777);
    fs.copyFileSync(NGINX, path.join(root, NGINX));
    fs.chmodSync(path.join(root, NGINX), 0o755);
    for (const lib of await sharedLibraries(NGINX)) {
      fs.mkdirSync(path.join(root, path.dirname(lib)), { recursive: true });
      fs.copyFileSync(fs.realpathSync(lib), path.join(root, lib));
    }
    fs.writeFileSync(path.join(root, 'etc/nginx/nginx.conf'), CONFIG);
    fs.writeFileSync(path.join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/false\nnobody:x:65534:65534:nobody:/:/bin/false\n');
    fs.writeFileSync(path.join(root, 'etc/group'), 'root:x:0:\nnogroup:x:65534:\n');
    const tarball = path.join(dir, 'rootfs.tar');
    await run('tar', ['-C', root, '-cf', tarball, '.']);
    await run('docker', ['import', '--change', 'CMD ["/usr/sbin/nginx", "-e", "stderr", "-p", "/tmp/", "-c", "/etc/nginx/nginx.conf"]', tarball, tag]);
    return tag;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The absolute paths `ldd` names (the loader included). */
async function sharedLibraries(binary: string): Promise<string[]> {
  const out = await run('ldd', [binary]);
  return [...out.matchAll(/(\/\S+\.so[^\s]*)/g)].map((m) => m[1]);
}
