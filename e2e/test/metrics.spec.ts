/**
 * Prometheus (Debian's package, a config, storage and port of its own,
 * scraping every second) reads the metrics of every service and of a node
 * agent running a job, each on its own METRICS_PORT; the queries go through
 * Prometheus's HTTP API. The shipped scrape config and dashboard are checked
 * against the same processes, and the shipped alerting rules evaluate against
 * them.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ensureBusyboxImage, freePort, notExported, seriesReadBy, waitFor } from '@ocg/testing';
import { FaultStack, webJob } from './support/fault-stack';
import { startPrometheus, type Prometheus } from './support/prometheus';

const root = resolve(__dirname, '../..');
const SCRAPED = ['gateway', 'client-manager', 'host-manager', 'deployment-manager', 'node-agent'];
/** This stack's gateway runs without TLS and an edge: apps/gateway/test/edge.spec.ts and certificates.spec.ts check that their series are exported. */
const checkedElsewhere = (name: string): boolean => name.startsWith('ocg_gateway_edge_') || name.startsWith('ocg_gateway_tls_');

describe('metrics scraped by Prometheus', () => {
  const metricsPorts: Record<string, number> = {};
  let stack: FaultStack;
  let prometheus: Prometheus;
  let userKey: string;
  let job: string;
  const scrapeOf = async (name: string): Promise<string> => (await fetch(`http://127.0.0.1:${metricsPorts[name]}/metrics`)).text();

  beforeAll(async () => {
    await ensureBusyboxImage();
    for (const name of SCRAPED) metricsPorts[name] = await freePort();
    stack = await FaultStack.start(Object.fromEntries(SCRAPED.map((name) => [name, { METRICS_PORT: String(metricsPorts[name]) }])));
    prometheus = await startPrometheus(Object.fromEntries(SCRAPED.map((name) => [name, `127.0.0.1:${metricsPorts[name]}`])), [resolve(root, 'deploy/prometheus/alerts.yml')]);
    ({ userKey, job } = await stack.postJob('metrics', webJob('metered'), { credits: 100_000_000, pricePerSecond: 100 }));
    await waitFor(async () => (await stack.endpoint(job)).body === 'metered\n' || undefined, { timeoutMs: 120_000, intervalMs: 250, what: "the job's endpoint" });
  }, 240_000);

  afterAll(async () => {
    await prometheus?.stop();
    await stack?.stop();
  }, 120_000);

  it('queries a series of each service and of the node agent through the HTTP API', async () => {
    // A market without nodes keeps its job queued: the queue's age has a series.
    const idle = await stack.call('POST', '/markets', stack.adminKey, {
      name: `metrics-idle-${process.pid}`,
      pricePerSecond: 100,
      defaultDurationSeconds: 600,
      maxDurationSeconds: 3600,
    });
    expect((await stack.call('POST', '/jobs', userKey, { definition: webJob('queued'), market: idle.body.name, durationSeconds: 600 })).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${stack.ports['agent-api']}/healthz`)).status).toBe(200);
    const series: [string, string][] = [
      ['gateway', 'ocg_http_request_duration_seconds_count{route="/jobs", method="POST", status="200"}'],
      ['client-manager', 'ocg_credit_holds_total{outcome="placed"}'],
      ['client-manager', 'ocg_credit_units_held'],
      ['host-manager', 'ocg_nodes{status="online"}'],
      ['host-manager', 'ocg_node_heartbeat_age_max_seconds + 1'],
      ['deployment-manager', 'ocg_jobs{state="RUNNING"}'],
      ['deployment-manager', 'ocg_job_claims_total{outcome="assigned"}'],
      ['deployment-manager', `ocg_queue_oldest_age_seconds{market="${idle.body.address}"} + 1`],
      ['node-agent', 'ocg_node_containers{state="running"}'],
      ['node-agent', 'ocg_node_image_pulls_total'],
      ['node-agent', 'ocg_node_health_checks_total{result="pass"}'],
      ['node-agent', 'ocg_http_request_duration_seconds_count{route="/healthz"} + 1'],
    ];
    for (const [name, expr] of series) {
      const scoped = expr.replace(/^(\w+)(\{([^}]*)\})?/, (_all, metric: string, _braces, labels?: string) => `${metric}{job="${name}"${labels ? `, ${labels}` : ''}}`);
      // Gauges read on scrape are cached for 5 s: a scrape from before the job was posted may still be the latest sample.
      let last: string | undefined;
      await waitFor(
        async () => {
          last = (await prometheus.query(`sum(${scoped})`))[0]?.value[1];
          return Number(last) >= 1 || undefined;
        },
        { timeoutMs: 30_000, intervalMs: 500, what: `${scoped} >= 1` },
      ).catch(() => undefined);
      expect([scoped, Number(last) >= 1 ? 'at least 1' : last]).toEqual([scoped, 'at least 1']);
    }
    const up = await prometheus.query('up');
    expect(Object.fromEntries(up.map((r) => [r.metric.job, r.value[1]]))).toEqual(Object.fromEntries(SCRAPED.map((name) => [name, '1'])));
    // The process's own metrics come with every scrape.
    expect(await prometheus.query('process_resident_memory_bytes{job="node-agent"}')).toHaveLength(1);
  });

  it("counts a running job's ingress requests under its address, and drops the series when the job ends", async () => {
    await stack.endpoint(job);
    const expr = `ocg_node_ingress_requests_total{job_address="${job}", code="2xx"}`;
    await waitFor(async () => Number((await prometheus.query(expr))[0]?.value[1] ?? 0) >= 1 || undefined, { timeoutMs: 30_000, intervalMs: 500, what: expr });
    expect(await scrapeOf('node-agent')).toContain(`job_address="${job}"`);
    expect((await stack.call('POST', `/jobs/${job}/stop`, userKey)).status).toBe(200);
    await waitFor(async () => !(await scrapeOf('node-agent')).includes(job) || undefined, { timeoutMs: 60_000, intervalMs: 500, what: "the job's series to go" });
    // Its end is settled: the hold captured what it ran.
    const settled = 'ocg_job_settlements_total{job="deployment-manager", outcome="settled"}';
    await waitFor(async () => Number((await prometheus.query(settled))[0]?.value[1] ?? 0) >= 1 || undefined, { timeoutMs: 30_000, intervalMs: 500, what: settled });
  });

  it('serves nothing on the public ports: /metrics is not an operation of the gateway', async () => {
    expect((await stack.raw('GET', '/metrics', stack.adminKey)).status).toBe(404);
  });

  it('ships a scrape config promtool accepts and a dashboard whose series the processes export', async () => {
    execFileSync('promtool', ['check', 'config', resolve(root, 'deploy/prometheus/prometheus.yml')], { stdio: 'pipe' });
    const dashboard = readFileSync(resolve(root, 'deploy/grafana/dashboard.json'), 'utf8');
    const used = seriesReadBy(dashboard);
    const exported = (await Promise.all(SCRAPED.map(scrapeOf))).join('\n');
    expect(used.filter(checkedElsewhere).length).toBeGreaterThan(0);
    expect(used.length).toBeGreaterThan(15);
    expect(
      notExported(
        used.filter((name) => !checkedElsewhere(name)),
        exported,
      ),
    ).toEqual([]);
  });

  it('ships alerting rules that pass their unit tests and evaluate against the running processes, on series they export, none pending on a healthy stack', async () => {
    // Their unit tests: each alert fires on the series that should fire it, and not on the near misses.
    execFileSync('promtool', ['test', 'rules', resolve(root, 'deploy/prometheus/alerts.test.yml')], { stdio: 'pipe' });
    const rules = readFileSync(resolve(root, 'deploy/prometheus/alerts.yml'), 'utf8');
    const used = seriesReadBy(rules);
    const exported = (await Promise.all(SCRAPED.map(scrapeOf))).join('\n');
    expect(
      notExported(
        used.filter((name) => !checkedElsewhere(name)),
        exported,
      ),
    ).toEqual([]);
    expect(used.length).toBeGreaterThan(5);
    // Every rule evaluated at least once, without error.
    const evaluated = await waitFor(
      async () => {
        const all = await prometheus.rules();
        return all.length > 0 && all.every((r) => r.health !== 'unknown') ? all : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500, what: 'every alerting rule evaluated' },
    );
    expect(evaluated.filter((r) => r.health !== 'ok')).toEqual([]);
    expect(evaluated.length).toBe([...rules.matchAll(/^\s+- alert: /gm)].length);
    // Nothing pending either: a rule that holds on a healthy stack would be.
    expect(await prometheus.query('ALERTS')).toEqual([]);
  });
});
