/**
 * A local certificate authority and one server certificate for the API host
 * and the wildcard node domain, made with the system `openssl` on first use
 * and reused after. For the local stack and tests only: production brings
 * its own certificate (TLS_CERT_FILE / TLS_KEY_FILE).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findExecutable } from './process';

const exec = promisify(execFile);

export interface LocalTls {
  caCertFile: string;
  certFile: string;
  keyFile: string;
  /** True when this call made them (first start). */
  created: boolean;
}

export interface LocalTlsOptions {
  dir: string;
  /** DNS names, wildcards allowed: e.g. ['localhost', '*.nodes.localhost']. */
  dnsNames: string[];
  ips?: string[];
}

export const OPENSSL_INSTALL_HINT = 'openssl not found on PATH: install it with `apt-get install -y openssl`';

export async function ensureLocalTls(opts: LocalTlsOptions): Promise<LocalTls> {
  const files = { caCertFile: join(opts.dir, 'ca.crt'), certFile: join(opts.dir, 'server.crt'), keyFile: join(opts.dir, 'server.key') };
  if (existsSync(files.caCertFile) && existsSync(files.certFile) && existsSync(files.keyFile)) return { ...files, created: false };
  const openssl = findExecutable('openssl');
  if (!openssl) throw new Error(OPENSSL_INSTALL_HINT);
  mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  const caKey = join(opts.dir, 'ca.key');
  const csr = join(opts.dir, 'server.csr');
  const ext = join(opts.dir, 'server.ext');
  const curve = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  await exec(openssl, [
    'req',
    '-x509',
    ...curve,
    '-keyout',
    caKey,
    '-out',
    files.caCertFile,
    '-days',
    '3650',
    '-subj',
    '/CN=Open Compute Gateway local CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await exec(openssl, ['req', ...curve, '-keyout', files.keyFile, '-out', csr, '-subj', `/CN=${opts.dnsNames[0] ?? 'localhost'}`]);
  const san = [...opts.dnsNames.map((d) => `DNS:${d}`), ...(opts.ips ?? []).map((ip) => `IP:${ip}`)].join(',');
  writeFileSync(ext, `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n`);
  // 825 days: the longest validity browsers accept for a server certificate.
  await exec(openssl, ['x509', '-req', '-in', csr, '-CA', files.caCertFile, '-CAkey', caKey, '-CAcreateserial', '-out', files.certFile, '-days', '825', '-extfile', ext]);
  return { ...files, created: true };
}
