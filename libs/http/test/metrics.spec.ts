import type { Express } from 'express';
import { startApp, type TestServer } from './support';
import { listenMetrics, Metrics, type RunningServer } from '../src';

function routes(app: Express): void {
  app.get('/jobs/:job', (req, res) => {
    res.json({ job: req.params.job });
  });
}

describe('metrics', () => {
  let t: TestServer;
  let metrics: Metrics;
  let listener: RunningServer;
  let reads = 0;
  beforeAll(async () => {
    metrics = new Metrics('http-test');
    metrics.sampled(60_000, { depth: { name: 'test_queue_depth', help: 'a sampled gauge', labelNames: ['market'] } }, async () => {
      reads++;
      return { depth: [{ labels: { market: 'm1' }, value: 3 }] };
    });
    t = await startApp(routes, { metrics });
    listener = await listenMetrics(metrics, { host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await Promise.all([t.close(), listener.close()]);
  });

  const scrape = async (): Promise<string> => {
    const res = await fetch(`${listener.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return res.text();
  };

  it('observes request durations by route template and status, never by raw path', async () => {
    await (await fetch(`${t.url}/jobs/abc123`)).text();
    await (await fetch(`${t.url}/jobs/def456`)).text();
    await (await fetch(`${t.url}/nowhere/xyz789`)).text();
    // The close listener runs after the client has the answer.
    let text = '';
    for (let i = 0; i < 50 && !text.includes('status="404"'); i++) text = await scrape();
    expect(text).toMatch(/ocg_http_request_duration_seconds_count\{method="GET",route="\/jobs\/:job",status="200"\} 2/);
    expect(text).toMatch(/ocg_http_request_duration_seconds_count\{method="GET",route="unmatched",status="404"\} 1/);
    expect(text).not.toMatch(/abc123|def456|xyz789/);
  });

  it('serves the process metrics and sampled gauges, reading their source once per cache period', async () => {
    const first = await scrape();
    await scrape();
    expect(first).toContain('process_cpu_seconds_total');
    expect(first).toContain('nodejs_eventloop_lag_seconds');
    expect(first).toContain('test_queue_depth{market="m1"} 3');
    expect(reads).toBe(1);
  });

  it('answers nothing but /metrics on its listener', async () => {
    expect((await fetch(`${listener.url}/healthz`)).status).toBe(404);
    expect((await fetch(`${listener.url}/metrics`, { method: 'POST' })).status).toBe(405);
  });
});
