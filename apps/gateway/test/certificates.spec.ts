/**
 * A renewed certificate is served without a restart: the gateway polls its
 * certificate files and hands a new pair that loads to its own HTTPS port and
 * to its edge (HAProxy's runtime API); a pair that does not load (a
 * certificate written before its key) leaves the one in service. The
 * gateway is the real process (main.ts) with a real HAProxy, the
 * certificates real ones from openssl.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import tls from 'node:tls';
import { ensureLocalTls, freePorts, type ManagedProcess, notExported, startTsProcess, testRedis, waitFor } from '@ocg/testing';
import { Metrics } from '@ocg/http';
import { certificateWatches, loadCertificatePair, watchCertificatePair, type CertificatePair } from '../src/certificates';
import { loadConfig } from '../src/config';
import { loggerInto } from './support/ingress-fixtures';
import { shippedSeries } from './support/shipped-series';

const DOMAIN = 'nodes.certs.test';

/** The SHA-256 fingerprint of the certificate `port` serves to a new connection. */
function served(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername: `localhost`, rejectUnauthorized: false }, () => {
      const fingerprint = socket.getPeerX509Certificate()?.fingerprint256 ?? '';
      socket.end();
      resolve(fingerprint);
    });
    socket.on('error', reject);
  });
}

const fingerprintOf = (file: string) => new X509Certificate(readFileSync(file)).fingerprint256;

type Pair = { certFile: string; keyFile: string };

describe('certificate renewal', () => {
  let dir: string;
  let first: Pair;
  let second: Pair;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ocg-certs-spec-'));
    first = await ensureLocalTls({ dir: join(dir, 'one'), dnsNames: ['localhost', `*.${DOMAIN}`], ips: ['127.0.0.1'] });
    // The renewal: another key, and another end of validity.
    second = { certFile: join(dir, 'two.crt'), keyFile: join(dir, 'two.key') };
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        second.keyFile,
        '-out',
        second.certFile,
        '-days',
        '20',
        '-subj',
        '/CN=localhost',
      ],
      {
        stdio: 'ignore',
      },
    );
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A fresh pair of files holding `from`'s certificate and key. */
  const filesLike = (from: Pair, name: string) => {
    const files = { certFile: join(dir, `${name}.crt`), keyFile: join(dir, `${name}.key`) };
    copyFileSync(from.certFile, files.certFile);
    copyFileSync(from.keyFile, files.keyFile);
    return files;
  };

  it('loads a pair, and names the files of one that does not load', () => {
    const pair = loadCertificatePair({ certFile: first.certFile, keyFile: first.keyFile });
    expect(pair.fingerprint).toBe(fingerprintOf(first.certFile));
    expect(pair.notAfter.getTime()).toBeGreaterThan(Date.now());
    expect(() => loadCertificatePair({ certFile: first.certFile, keyFile: second.keyFile })).toThrow(`${second.keyFile} is not the key of ${first.certFile}`);
    expect(() => loadCertificatePair({ certFile: first.keyFile, keyFile: first.keyFile })).toThrow(`${first.keyFile}: not a PEM certificate`);
  });

  it('hands on each new pair that loads, keeps the old one while the files do not make a pair, and sees a symlink swapped', async () => {
    const files = filesLike(first, 'watched');
    const records: Array<Record<string, unknown>> = [];
    const changes: CertificatePair[] = [];
    const watch = watchCertificatePair({ files, what: 'gateway', intervalMs: 60_000, logger: loggerInto(records), onChange: (pair) => void changes.push(pair) });
    try {
      await watch.check();
      expect(changes).toEqual([]); // nothing changed

      // A renewal written certificate first: no pair yet, then the key makes one.
      copyFileSync(second.certFile, files.certFile);
      await watch.check();
      expect(changes).toEqual([]);
      expect(records.at(-1)).toMatchObject({ level: 'warn', msg: "the gateway's certificate files changed but do not load: the previous certificate is still served" });
      expect(String(records.at(-1)?.err)).toContain('is not the key of');
      copyFileSync(second.keyFile, files.keyFile);
      await watch.check();
      expect(changes.map((c) => c.fingerprint)).toEqual([fingerprintOf(second.certFile)]);
      expect(records.at(-1)).toMatchObject({ level: 'info', msg: "the gateway's certificate was reloaded", fingerprint: fingerprintOf(second.certFile) });

      // As a Kubernetes secret volume updates: the files are symlinks, their target directory is swapped.
      const links = { certFile: join(dir, 'linked.crt'), keyFile: join(dir, 'linked.key') };
      const data = (from: Pair, name: string) => {
        const d = join(dir, name);
        mkdirSync(d);
        copyFileSync(from.certFile, join(d, 'tls.crt'));
        copyFileSync(from.keyFile, join(d, 'tls.key'));
        return d;
      };
      symlinkSync(data(first, 'data-1'), join(dir, '..data'));
      symlinkSync(join(dir, '..data', 'tls.crt'), links.certFile);
      symlinkSync(join(dir, '..data', 'tls.key'), links.keyFile);
      const linked: CertificatePair[] = [];
      const linkedWatch = watchCertificatePair({ files: links, what: 'edge', intervalMs: 60_000, logger: loggerInto(records), onChange: (pair) => void linked.push(pair) });
      try {
        symlinkSync(data(second, 'data-2'), join(dir, '..data-new'));
        renameSync(join(dir, '..data-new'), join(dir, '..data'));
        await linkedWatch.check();
        expect(linked.map((c) => c.fingerprint)).toEqual([fingerprintOf(second.certFile)]);
      } finally {
        linkedWatch.close();
      }
    } finally {
      watch.close();
    }
  });

  it('keeps the pair in service while a file is missing, and checks on its own every interval until closed', async () => {
    const files = filesLike(first, 'timed');
    const records: Array<Record<string, unknown>> = [];
    const changes: string[] = [];
    const watch = watchCertificatePair({ files, what: 'gateway', intervalMs: 50, logger: loggerInto(records), onChange: (pair) => void changes.push(pair.fingerprint) });
    try {
      rmSync(files.keyFile);
      await waitFor(() => records.some((r) => r.level === 'warn' && String(r.err).includes('ENOENT')) || undefined, { timeoutMs: 5000, what: 'the missing key noticed' });
      expect(changes).toEqual([]);
      copyFileSync(second.certFile, files.certFile);
      copyFileSync(second.keyFile, files.keyFile);
      await waitFor(() => changes.length === 1 || undefined, { timeoutMs: 5000, what: 'the renewal noticed by the timer' });
      expect(changes).toEqual([fingerprintOf(second.certFile)]);
    } finally {
      watch.close();
    }
    // Closed: a change is no longer seen.
    copyFileSync(first.certFile, files.certFile);
    copyFileSync(first.keyFile, files.keyFile);
    await new Promise((r) => setTimeout(r, 300));
    expect(changes).toHaveLength(1);
  });

  it('tries a pair again when putting it in service failed', async () => {
    const files = filesLike(first, 'retried');
    const records: Array<Record<string, unknown>> = [];
    let fail = true;
    const changes: string[] = [];
    const watch = watchCertificatePair({
      files,
      what: 'edge',
      intervalMs: 60_000,
      logger: loggerInto(records),
      onChange: (pair) => {
        if (fail) throw new Error('the runtime API is away');
        changes.push(pair.fingerprint);
      },
    });
    try {
      copyFileSync(second.certFile, files.certFile);
      copyFileSync(second.keyFile, files.keyFile);
      await watch.check();
      expect(records.at(-1)).toMatchObject({ level: 'error', err: 'the runtime API is away', msg: "the edge's new certificate could not be put in service; retrying" });
      fail = false;
      await watch.check();
      expect(changes).toEqual([fingerprintOf(second.certFile)]);
    } finally {
      watch.close();
    }
  });

  it("hands a renewal to every listener on the same files, and says when each listener's certificate expires", async () => {
    const shared = filesLike(first, 'shared');
    const own = filesLike(first, 'own');
    const start = loadCertificatePair(shared);
    const got: string[] = [];
    const listener = (name: string, files: typeof shared) => ({ files, pair: start, serve: (pair: CertificatePair) => void got.push(`${name} ${pair.fingerprint}`) });
    const expiry = async (metrics: Metrics) =>
      Object.fromEntries(
        ((await metrics.registry.getSingleMetricAsString('ocg_gateway_tls_certificate_expiry_timestamp_seconds')).match(/listener="\w+"\} \d+/g) ?? []).map((m) => [
          /"(\w+)"/.exec(m)![1],
          Number(m.split(' ')[1]),
        ]),
      );
    const seconds = (pair: CertificatePair) => pair.notAfter.getTime() / 1000;

    // Off: no watch, the gauges still say what is served.
    const off = new Metrics('gateway');
    expect(certificateWatches({ gateway: listener('gateway', shared), edge: listener('edge', shared), intervalMs: 0, logger: loggerInto([]), metrics: off })).toEqual([]);
    expect(await expiry(off)).toEqual({ gateway: seconds(start), edge: seconds(start) });

    const metrics = new Metrics('gateway');
    const togetherLog: Array<Record<string, unknown>> = [];
    const together = certificateWatches({ gateway: listener('gateway', shared), edge: listener('edge', shared), intervalMs: 60_000, logger: loggerInto(togetherLog), metrics });
    const apartLog: Array<Record<string, unknown>> = [];
    const apart = certificateWatches({ gateway: listener('gateway', shared), edge: listener('edge', own), intervalMs: 60_000, logger: loggerInto(apartLog) });
    // The same certificate file with another key file is another pair, and the other way round.
    const sameCert = [
      ...certificateWatches({
        gateway: listener('gateway', shared),
        edge: listener('edge', { certFile: shared.certFile, keyFile: own.keyFile }),
        intervalMs: 60_000,
        logger: loggerInto([]),
      }),
      ...certificateWatches({
        gateway: listener('gateway', shared),
        edge: listener('edge', { certFile: own.certFile, keyFile: shared.keyFile }),
        intervalMs: 60_000,
        logger: loggerInto([]),
      }),
    ];
    const alone = new Metrics('gateway');
    const gatewayOnly = certificateWatches({ gateway: listener('gateway', shared), intervalMs: 60_000, logger: loggerInto([]), metrics: alone });
    try {
      expect(together).toHaveLength(1);
      expect(apart).toHaveLength(2);
      expect(sameCert).toHaveLength(4);
      expect(gatewayOnly).toHaveLength(1);
      expect(await expiry(alone)).toEqual({ gateway: seconds(start) });
      copyFileSync(second.certFile, shared.certFile);
      copyFileSync(second.keyFile, shared.keyFile);
      await together[0].check();
      const renewed = loadCertificatePair(shared);
      expect(got).toEqual([`gateway ${renewed.fingerprint}`, `edge ${renewed.fingerprint}`]);
      expect(seconds(renewed)).not.toBe(seconds(start));
      expect(await expiry(metrics)).toEqual({ gateway: seconds(renewed), edge: seconds(renewed) });
      // What the shipped dashboard and alerts read of it.
      expect(shippedSeries('ocg_gateway_tls_')).toEqual(['ocg_gateway_tls_certificate_expiry_timestamp_seconds']);
      expect(notExported(shippedSeries('ocg_gateway_tls_'), await metrics.registry.metrics())).toEqual([]);
      expect(togetherLog.at(-1)).toMatchObject({ level: 'info', msg: "the gateway and edge's certificate was reloaded" });
      got.length = 0;
      await Promise.all(apart.map((w) => w.check()));
      expect(got).toEqual([`gateway ${renewed.fingerprint}`]); // the edge's own files did not change
      expect(apartLog.map((r) => r.level)).toEqual(['info']); // no metrics: nothing to set, nothing failing
    } finally {
      for (const w of [...together, ...apart, ...sameCert, ...gatewayOnly]) w.close();
    }
  });

  it('takes a check interval of 0 (never) or at least 100 ms', () => {
    const base = { REDIS_URL: 'redis://127.0.0.1:1' };
    expect(loadConfig(base).TLS_RELOAD_INTERVAL_MS).toBe(30_000);
    expect(loadConfig({ ...base, TLS_RELOAD_INTERVAL_MS: '0' }).TLS_RELOAD_INTERVAL_MS).toBe(0);
    expect(loadConfig({ ...base, TLS_RELOAD_INTERVAL_MS: '100' }).TLS_RELOAD_INTERVAL_MS).toBe(100);
    expect(() => loadConfig({ ...base, TLS_RELOAD_INTERVAL_MS: '5' })).toThrow(/TLS_RELOAD_INTERVAL_MS.*at least 100/s);
    expect(() => loadConfig({ ...base, TLS_RELOAD_INTERVAL_MS: '-1' })).toThrow(/TLS_RELOAD_INTERVAL_MS/);
  });

  describe('in the gateway', () => {
    let gateway: ManagedProcess;
    let ports: Record<string, number>;
    const lines: string[] = [];
    let files: { certFile: string; keyFile: string };

    beforeAll(async () => {
      files = filesLike(first, 'gateway');
      ports = await freePorts(['gateway', 'edge', 'metrics']);
      gateway = startTsProcess(
        'gateway',
        resolve(__dirname, '../src/main.ts'),
        {
          HOST: '127.0.0.1',
          PORT: String(ports.gateway),
          REDIS_URL: (await testRedis()).url,
          LOG_LEVEL: 'info',
          INTERNAL_TOKEN: 'internal-token-for-certificate-tests',
          NODE_DOMAIN: DOMAIN,
          TLS_CERT_FILE: files.certFile,
          TLS_KEY_FILE: files.keyFile,
          TLS_RELOAD_INTERVAL_MS: '200',
          EDGE_PORT: String(ports.edge),
          EDGE_DIR: join(dir, 'edge'),
          METRICS_PORT: String(ports.metrics),
        },
        0,
        (line) => lines.push(line),
      );
      await waitFor(() => lines.some((l) => l.includes('metrics listening')) || undefined, { timeoutMs: 60_000, what: `the gateway\n${lines.join('\n')}` });
    }, 120_000);

    afterAll(async () => {
      await gateway?.stop();
    });

    const expiry = async () => {
      const text = await (await fetch(`http://127.0.0.1:${ports.metrics}/metrics`)).text();
      return Object.fromEntries([...text.matchAll(/ocg_gateway_tls_certificate_expiry_timestamp_seconds\{listener="(\w+)"\} (\d+)/g)].map((m) => [m[1], Number(m[2])]));
    };
    const notAfter = (file: string) => Math.floor(new Date(new X509Certificate(readFileSync(file)).validTo).getTime() / 1000);

    it('serves a renewed certificate on its own port and its edge, without a restart, and keeps serving while the files do not load', async () => {
      expect(await served(ports.gateway)).toBe(fingerprintOf(first.certFile));
      expect(await served(ports.edge)).toBe(fingerprintOf(first.certFile));
      expect(await expiry()).toEqual({ gateway: notAfter(first.certFile), edge: notAfter(first.certFile) });

      // Half a renewal: the old certificate stays, with a warning.
      copyFileSync(second.certFile, files.certFile);
      await waitFor(() => lines.some((l) => l.includes('certificate files changed but do not load')), { timeoutMs: 10_000, what: 'the warning' });
      expect(await served(ports.gateway)).toBe(fingerprintOf(first.certFile));
      expect(await served(ports.edge)).toBe(fingerprintOf(first.certFile));

      writeFileSync(files.keyFile, readFileSync(second.keyFile));
      await waitFor(async () => (await served(ports.gateway)) === fingerprintOf(second.certFile) && (await served(ports.edge)) === fingerprintOf(second.certFile), {
        timeoutMs: 10_000,
        what: `the renewed certificate on both ports\n${lines.slice(-10).join('\n')}`,
      });
      expect(await expiry()).toEqual({ gateway: notAfter(second.certFile), edge: notAfter(second.certFile) });
      expect(lines.some((l) => l.includes("the gateway and edge's certificate was reloaded"))).toBe(true);
      expect(gateway.child.exitCode).toBeNull(); // the same process throughout
    });
  });
});
