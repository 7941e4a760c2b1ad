import { DEFAULT_CONTAINER_POLICY, DEFAULT_JOB_LIMITS, type JobPageRecord, type MarketRecord } from '@ocg/contracts';
import { credits, duration } from '../src/pages/html';
import { renderJobPage } from '../src/pages/job-page';
import { renderMarketPage } from '../src/pages/market-page';
import { renderNotFoundPage } from '../src/pages/status-pages';

const JOB = 'J0bAddr3ssJ0bAddr3ssJ0bAddr3ssJ0bAddr3ss12';

const market: MarketRecord = {
  address: 'MarketAddr3ssMarketAddr3ssMarketAddr3ss1',
  name: 'RTX 4090',
  pricePerSecond: 1500,
  gpuRequired: true,
  defaultDurationSeconds: 7200,
  maxDurationSeconds: 86400,
  jobLimits: DEFAULT_JOB_LIMITS,
  containerPolicy: DEFAULT_CONTAINER_POLICY,
  warmResources: [],
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
};

function job(over: Partial<JobPageRecord> = {}): JobPageRecord {
  return {
    view: 'poster',
    address: JOB,
    status: 'RUNNING',
    reason: null,
    market: market.address,
    node: 'NodeAddr3ss',
    poster: 'PosterWallet',
    pricePerSecond: 1500,
    durationSeconds: 600,
    totalPrice: 900_000,
    billedSeconds: null,
    cost: null,
    settlement: 'open',
    definitionCid: 'bafkreidefinition',
    resultCid: null,
    url: `https://${JOB}.nodes.example.net`,
    createdAt: '2025-01-02T03:04:05.000Z',
    startedAt: '2025-01-02T03:04:06.000Z',
    endsAt: '2025-01-02T03:14:06.000Z',
    finishedAt: null,
    settledAt: null,
    ops: [
      {
        id: 'web',
        group: 'web',
        opIndex: 0,
        status: 'running',
        exitCode: null,
        reason: null,
        restarts: 0,
        startedAt: null,
        endedAt: null,
        logTail: [{ stream: 'stdout', text: 'listening on :8080' }],
      },
      { id: 'worker', group: 'main', opIndex: 1, status: 'pending', exitCode: null, reason: null, restarts: 0, startedAt: null, endedAt: null, logTail: [] },
    ],
    endpoints: [{ op: 'web', port: 8080, url: `https://${JOB}-8080.nodes.example.net`, status: 'ONLINE', updatedAt: '2025-01-02T03:04:07.000Z' }],
    ...over,
  };
}

describe('job page', () => {
  it('renders a reason holding a script tag as text, never as markup', () => {
    const page = renderJobPage(job({ status: 'FAILED', reason: '<script>alert(1)</script>' }), market);
    expect(page).not.toContain('<script>');
    expect(page).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
  });

  it('escapes log lines and op reasons as text', () => {
    const ops = [{ ...job().ops[0], reason: '"><img src=x onerror=alert(1)>', logTail: [{ stream: 'stderr' as const, text: '</pre><script>x()</script>' }] }];
    const page = renderJobPage(job({ ops }), market);
    expect(page).not.toMatch(/<img|<script|<\/pre><script/);
    expect(page).toContain('<span class="stderr">&#60;/pre&#62;&#60;script&#62;x()&#60;/script&#62;</span>');
  });

  it('reloads itself every 5 s while the job is queued or running, and not once it ended', () => {
    const refresh = '<meta http-equiv="refresh" content="5">';
    expect(renderJobPage(job({ status: 'QUEUED' }), market)).toContain(refresh);
    expect(renderJobPage(job(), market)).toContain(refresh);
    expect(renderJobPage(job({ status: 'COMPLETED' }), market)).not.toContain('http-equiv="refresh"');
  });

  it('links the market page by address with its name, and the endpoints by their URLs', () => {
    const page = renderJobPage(job(), market);
    expect(page).toContain(`<a href="/markets/${market.address}">RTX 4090</a>`);
    expect(page).toContain(`<a href="https://${JOB}-8080.nodes.example.net">https://${JOB}-8080.nodes.example.net</a>`);
    expect(page).toContain('<span class="status ONLINE">ONLINE</span>');
  });

  it('shows a URL that is not http(s) as text, not as a link', () => {
    const page = renderJobPage(job({ url: 'javascript:alert(1)' }), market);
    expect(page).not.toContain('href="javascript:');
  });

  it('shows every op with its state, and the price in credits and units', () => {
    const page = renderJobPage(job(), undefined);
    expect(page).toContain('<code>web</code>');
    expect(page).toContain('<span class="status pending">pending</span>');
    expect(page).toContain('0.0015 credits/s (1,500 units/s)');
    expect(page).toContain('0.9 credits held');
    expect(page).toContain(`>${market.address}</a>`); // no market record: its address
  });

  it('shows the public view nothing secret: no poster, no definition id, no output, no reason column', () => {
    const page = renderJobPage(job({ view: 'public', poster: null, definitionCid: null, ops: job().ops.map((o) => ({ ...o, logTail: [] })) }), market);
    expect(page).not.toContain('PosterWallet');
    expect(page).not.toContain('bafkreidefinition');
    expect(page).not.toContain('<h2>Logs</h2>');
    expect(page).not.toContain('<th>Reason</th>');
    expect(page).toContain("shown to the job's poster, signed in");
  });

  it("shows the poster's view the definition id and each op's output", () => {
    const page = renderJobPage(job(), market);
    expect(page).toContain('bafkreidefinition');
    expect(page).toContain('listening on :8080');
  });
});

describe('market page', () => {
  const nodes = {
    nodes: [
      { address: 'NodeOne', status: 'ONLINE' as const, specs: { cpus: 16, memoryBytes: 64 * 2 ** 30, gpus: [{ model: 'RTX 4090', memoryBytes: 24 * 2 ** 30 }] }, lastSeenAt: null },
      { address: 'NodeTwo', status: 'OFFLINE' as const, specs: { cpus: 8, memoryBytes: 32 * 2 ** 30, gpus: [] }, lastSeenAt: '2025-01-02T03:04:05.000Z' },
    ],
    total: 2,
  };
  const running = { jobs: [{ address: JOB, status: 'RUNNING' as const, startedAt: '2025-01-02T03:04:06.000Z', endsAt: null }], total: 1 };

  it('shows the price, the nodes with their status and specs, and how many jobs run', () => {
    const page = renderMarketPage({ market, nodes, running });
    expect(page).toContain('<h1>Market RTX 4090</h1>');
    expect(page).toContain('0.0015 credits/s (1,500 units/s), 5.4 credits/h');
    expect(page).toContain('2 nodes, 1 online');
    expect(page).toContain('RTX 4090 (24 GiB)');
    expect(page).toContain('<span class="status OFFLINE">OFFLINE</span>');
    expect(page).toContain('1 running');
  });

  it('shows running jobs shortened and unlinked, so the page hands out no job links', () => {
    const page = renderMarketPage({ market, nodes, running });
    expect(page).toContain(`<code>${JOB.slice(0, 6)}…</code>`);
    expect(page).not.toContain(JOB);
    expect(page).not.toContain('href="/jobs/');
  });

  it('escapes a market name', () => {
    expect(renderMarketPage({ market: { ...market, name: 'a<b>' }, nodes, running })).toContain('Market a&#60;b&#62;');
  });
});

describe('formatting', () => {
  it('writes units as credits without float noise', () => {
    expect([credits(0), credits(1), credits(1_000_000), credits(12_345_678_900)]).toEqual(['0 credits', '0.000001 credits', '1 credit', '12,345.6789 credits']);
  });

  it('writes durations in hours, minutes and seconds', () => {
    expect([duration(0), duration(90), duration(7200), duration(3661)]).toEqual(['0 s', '1 min 30 s', '2 h', '1 h 1 min 1 s']);
  });

  it('renders the not-found page with the reference escaped', () => {
    expect(renderNotFoundPage('job', '<x>')).toContain('<code>&#60;x&#62;</code>');
  });
});
