/**
 * Asking a job's service URL whether it answers yet. The URL is HTTPS on
 * the node domain: a local stack's certificate comes from a local CA
 * (--ca or NODE_EXTRA_CA_CERTS), and its `*.localhost` names may not resolve,
 * so --connect-to sends the request to a given address (as curl does).
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import http from 'node:http';
import { rootCertificates } from 'node:tls';
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { CliError } from './output';

export interface ProbeOptions {
  /** PEM file of a CA to trust beside the system's. */
  ca?: string;
  /** `host:port` to connect to instead of the URL's own. */
  connectTo?: string;
}

export type Probe = (url: string) => Promise<{ status: number } | { error: string }>;

/** Certificate failures never heal by waiting: they stop the wait at once. */
const CERTIFICATE_ERRORS = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_TLS_CERT_ALTNAME_INVALID/;
const PROBE_TIMEOUT_MS = 10_000;

/** `*.localhost` is loopback (RFC 6761), as curl and browsers treat it; the system resolver may not know it. */
export const loopbackLookup: LookupFunction = (hostname, options, callback) => {
  if (!hostname.endsWith('.localhost')) return dns.lookup(hostname, options, callback);
  if ((options as dns.LookupOptions).all) (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

export function endpointProbe(options: ProbeOptions): Probe {
  const ca = options.ca ? [...rootCertificates, readCa(options.ca)] : undefined;
  const via = options.connectTo ? hostPort(options.connectTo) : undefined;
  return (url) =>
    new Promise((resolve, reject) => {
      const target = new URL(url);
      const client = target.protocol === 'http:' ? http : https;
      const route = via ? { hostname: via.host, port: via.port, servername: target.hostname, headers: { host: target.host } } : {};
      const req = client.request(target, { method: 'GET', ca, lookup: loopbackLookup, timeout: PROBE_TIMEOUT_MS, ...route }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0 });
      });
      req.on('timeout', () => req.destroy(Object.assign(new Error('no answer'), { code: 'ETIMEDOUT' })));
      req.on('error', (err: NodeJS.ErrnoException) => {
        const code = err.code ?? err.message;
        if (CERTIFICATE_ERRORS.test(code)) reject(new CliError(`cannot verify the certificate of ${url}: ${code}. For a local CA pass --ca <file> or set NODE_EXTRA_CA_CERTS`));
        else resolve({ error: code });
      });
      req.end();
    });
}

export function readCa(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read the CA file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function hostPort(text: string): { host: string; port: number } {
  const match = /^(.+):(\d{1,5})$/.exec(text);
  if (!match) throw new CliError(`--connect-to must be host:port, got "${text}"`);
  return { host: match[1].replace(/^\[|\]$/g, ''), port: Number(match[2]) };
}
