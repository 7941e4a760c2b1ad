import type { ListMarketJobsResponse, ListMarketNodesResponse, MarketNodeRecord, MarketRecord } from '@ocg/contracts';
import { credits, duration, html, layout, statusBadge, time, units, type Html } from './html';

export interface MarketPageData {
  market: MarketRecord;
  nodes: ListMarketNodesResponse;
  running: ListMarketJobsResponse;
}

/**
 * The market page: its price, its nodes and its running jobs. A job's
 * address is the key to its page and names its endpoints, so running jobs
 * are shown shortened and not linked: the market page hands out no jobs.
 */
export function renderMarketPage({ market, nodes, running }: MarketPageData): string {
  const online = nodes.nodes.filter((n) => n.status === 'ONLINE').length;
  const body = html`
<h1>Market ${market.name}</h1>
<p><code>${market.address}</code></p>
<table class="summary">
<tr><th>Price</th><td>${credits(market.pricePerSecond)}/s (${units(market.pricePerSecond)}/s), ${credits(market.pricePerSecond * 3600)}/h</td></tr>
<tr><th>GPUs</th><td>${market.gpuRequired ? 'required: every node has at least one' : 'not required'}</td></tr>
<tr><th>Default duration</th><td>${duration(market.defaultDurationSeconds)}</td></tr>
<tr><th>Longest duration</th><td>${duration(market.maxDurationSeconds)}</td></tr>
</table>
<h2>Nodes</h2>
<p>${nodes.total} ${nodes.total === 1 ? 'node' : 'nodes'}, ${online} online${nodes.total > nodes.nodes.length ? html` (the first ${nodes.nodes.length} shown)` : ''}.</p>
${nodes.nodes.length ? nodeTable(nodes.nodes) : ''}
<h2>Running jobs</h2>
<p>${running.total} running${running.total > running.jobs.length ? html` (the first ${running.jobs.length} shown)` : ''}.</p>
${running.jobs.length ? jobTable(running) : ''}`;
  return layout({ title: `Market ${market.name}`, body });
}

const gib = (bytes: number): string => `${Math.round((bytes / 2 ** 30) * 10) / 10} GiB`;

function nodeTable(list: MarketNodeRecord[]): Html {
  return html`<table class="nodes"><tr><th>Node</th><th>Status</th><th>CPUs</th><th>Memory</th><th>GPUs</th><th>Last seen</th></tr>
${list.map(
  (n) => html`<tr><td><code>${n.address}</code></td><td>${statusBadge(n.status)}</td><td>${n.specs.cpus}</td><td>${gib(n.specs.memoryBytes)}</td>
<td>${n.specs.gpus.length ? n.specs.gpus.map((g) => `${g.model} (${gib(g.memoryBytes)})`).join(', ') : 'none'}</td><td>${time(n.lastSeenAt)}</td></tr>`,
)}
</table>`;
}

function jobTable(running: ListMarketJobsResponse): Html {
  return html`<table class="jobs"><tr><th>Job</th><th>Started</th><th>Ends</th></tr>
${running.jobs.map((j) => html`<tr><td><code>${j.address.slice(0, 6)}…</code></td><td>${time(j.startedAt)}</td><td>${time(j.endsAt)}</td></tr>`)}
</table>`;
}
