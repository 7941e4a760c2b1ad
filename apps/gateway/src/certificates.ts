import { readFileSync, statSync } from 'node:fs';
import { createSecureContext, type SecureContextOptions } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import type { Metrics } from '@ocg/http';

/** A certificate chain and its key, as PEM, with what logs and metrics say of it. */
export interface CertificatePair {
  cert: Buffer;
  key: Buffer;
  /** The leaf certificate's end of validity. */
  notAfter: Date;
  /** The leaf's SHA-256 fingerprint (colon-separated hex), to tell which one is served. */
  fingerprint: string;
}

export interface CertificateFiles {
  certFile: string;
  keyFile: string;
}

/**
 * Reads a pair and checks it as a TLS server would load it: a certificate,
 * a key, and the key the certificate's (OpenSSL's "key values mismatch"
 * otherwise). Throws with the file named.
 */
export function loadCertificatePair(files: CertificateFiles): CertificatePair {
  const cert = readFileSync(files.certFile);
  const key = readFileSync(files.keyFile);
  let leaf: X509Certificate;
  try {
    leaf = new X509Certificate(cert);
  } catch (err) {
    throw new Error(`${files.certFile}: not a PEM certificate (${(err as Error).message})`);
  }
  try {
    createSecureContext({ cert, key } satisfies SecureContextOptions);
  } catch (err) {
    throw new Error(`${files.keyFile} is not the key of ${files.certFile} (${(err as Error).message})`);
  }
  return { cert, key, notAfter: new Date(leaf.validTo), fingerprint: leaf.fingerprint256 };
}

export interface CertificateWatchOptions {
  files: CertificateFiles;
  /** What serves it, for the log lines: `gateway`, `edge`. */
  what: string;
  /** How often the files' metadata is read. */
  intervalMs: number;
  logger: Logger;
  /** A new pair that loads: put it in service. A failure is logged and the same files are tried again at their next change. */
  onChange: (pair: CertificatePair) => void | Promise<void>;
}

export interface CertificateWatch {
  /** Reads the files now if they changed (what the timer does). */
  check(): Promise<void>;
  close(): void;
}

/** What a renewal changes: the file's identity, size or time (a Kubernetes secret volume swaps a symlink, which `stat` follows). */
function signature(path: string): string {
  try {
    const s = statSync(path);
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch (err) {
    return `missing:${(err as NodeJS.ErrnoException).code ?? 'error'}`;
  }
}

/**
 * Watches a certificate pair's files and hands each new pair that loads to
 * `onChange`, so a renewed certificate is served without a restart. The files
 * are polled (`stat`), which sees every way they are replaced (in place, by
 * rename, by a symlink swap) on every file system. A certificate written
 * before its key fails to load as a pair: the one in service stays, a
 * warning says why, and the pair is read again at the next change (the key's).
 */
export function watchCertificatePair(o: CertificateWatchOptions): CertificateWatch {
  const files = [o.files.certFile, o.files.keyFile];
  let seen = files.map(signature).join('|');
  let running: Promise<void> | undefined;

  const check = async (): Promise<void> => {
    const now = files.map(signature).join('|');
    if (now === seen) return;
    seen = now;
    let pair: CertificatePair;
    try {
      pair = loadCertificatePair(o.files);
    } catch (err) {
      o.logger.warn(
        { err: (err as Error).message, certFile: o.files.certFile },
        `the ${o.what}'s certificate files changed but do not load: the previous certificate is still served`,
      );
      return;
    }
    try {
      await o.onChange(pair);
      o.logger.info({ certFile: o.files.certFile, fingerprint: pair.fingerprint, notAfter: pair.notAfter.toISOString() }, `the ${o.what}'s certificate was reloaded`);
    } catch (err) {
      // Tried again at the next tick: the files are what should be served.
      // Stryker disable next-line StringLiteral: any value no signature takes does the same
      seen = '';
      o.logger.error({ err: (err as Error).message, certFile: o.files.certFile }, `the ${o.what}'s new certificate could not be put in service; retrying`);
    }
  };

  // One check at a time: the timer's and a caller's share the one in flight.
  const checkOnce = (): Promise<void> => (running ??= check().finally(() => (running = undefined)));
  const timer = setInterval(() => void checkOnce(), o.intervalMs);
  // Stryker disable next-line CallExpression: it only lets the process exit with a watch still open
  timer.unref();
  return { check: checkOnce, close: () => clearInterval(timer) };
}

/** A listener's certificate: its files, the pair it serves now, and how a new one is put in service. */
export interface ServedCertificate {
  files: CertificateFiles;
  pair: CertificatePair;
  serve: (pair: CertificatePair) => void | Promise<void>;
}

/**
 * The gateway's certificate watches: one per pair of files, so an edge on the
 * gateway's own certificate is handed each renewal with it. Each listener's
 * certificate's end of validity is the gauge
 * `ocg_gateway_tls_certificate_expiry_timestamp_seconds{listener}` (alert on
 * it before it passes).
 */
export function certificateWatches(o: { gateway?: ServedCertificate; edge?: ServedCertificate; intervalMs: number; logger: Logger; metrics?: Metrics }): CertificateWatch[] {
  const expiry = o.metrics?.gauge(
    'ocg_gateway_tls_certificate_expiry_timestamp_seconds',
    "The end of validity of the certificate each listener serves (Unix seconds): the gateway's port or the edge's",
    ['listener'],
  );
  const served = Object.entries({ gateway: o.gateway, edge: o.edge }).filter((e): e is [string, ServedCertificate] => e[1] !== undefined);
  for (const [listener, s] of served) expiry?.set({ listener }, s.pair.notAfter.getTime() / 1000);
  if (o.intervalMs <= 0) return [];
  const same = (a: CertificateFiles, b: CertificateFiles) => a.certFile === b.certFile && a.keyFile === b.keyFile;
  const groups: Array<{ files: CertificateFiles; listeners: Array<[string, ServedCertificate]> }> = [];
  for (const entry of served) {
    const group = groups.find((g) => same(g.files, entry[1].files));
    if (group) group.listeners.push(entry);
    else groups.push({ files: entry[1].files, listeners: [entry] });
  }
  return groups.map((g) =>
    watchCertificatePair({
      files: g.files,
      what: g.listeners.map(([listener]) => listener).join(' and '),
      intervalMs: o.intervalMs,
      logger: o.logger,
      onChange: async (pair) => {
        for (const [listener, s] of g.listeners) {
          await s.serve(pair);
          expiry?.set({ listener }, pair.notAfter.getTime() / 1000);
        }
      },
    }),
  );
}
