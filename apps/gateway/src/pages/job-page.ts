import type { JobEndpointRecord, JobPageOpRecord, JobPageRecord, MarketRecord } from '@ocg/contracts';
import { credits, duration, html, layout, link, statusBadge, time, units, type Html } from './html';

/** While a job can still change, its page reloads itself this often. */
export const REFRESH_SECONDS = 5;

/**
 * The job page. Anyone holding the job's link sees the public view: status,
 * money, times, op states and the public endpoints. The poster, signed in,
 * also sees reasons, each op's output, the content ids and private
 * endpoints (deployment-manager leaves them out of the public view).
 */
export function renderJobPage(job: JobPageRecord, market: MarketRecord | undefined): string {
  const moving = job.status === 'QUEUED' || job.status === 'RUNNING';
  const poster = job.view === 'poster';
  const body = html`
<h1>Job <code>${job.address}</code></h1>
<p>${statusBadge(job.status)} ${job.reason ? html`<span class="reason">${job.reason}</span>` : ''}</p>
${summary(job, market)}
<h2>Endpoints</h2>
${job.endpoints.length ? endpoints(job.endpoints) : html`<p class="muted">${job.url ? 'No endpoint is reported yet.' : 'No public endpoint.'}</p>`}
<h2>Ops</h2>
${ops(job.ops, poster)}
${poster ? posterOnly(job) : html`<p class="muted public-view">Output, reasons, results and the definition are shown to the job's poster, signed in.</p>`}
${moving ? html`<p class="muted">This page reloads every ${REFRESH_SECONDS} s while the job is ${job.status.toLowerCase()}.</p>` : ''}`;
  return layout({ title: `Job ${job.address.slice(0, 8)}… ${job.status}`, body, refreshSeconds: moving ? REFRESH_SECONDS : undefined });
}

function summary(job: JobPageRecord, market: MarketRecord | undefined): Html {
  const marketLink = html`<a href="/markets/${encodeURIComponent(job.market)}">${market?.name ?? job.market}</a>`;
  return html`<table class="summary">
<tr><th>Market</th><td>${marketLink}</td></tr>
<tr><th>Node</th><td>${job.node ? html`<code>${job.node}</code>` : html`<span class="muted">not claimed yet</span>`}</td></tr>
<tr><th>URL</th><td>${link(job.url)}</td></tr>
<tr><th>Price</th><td>${credits(job.pricePerSecond)}/s (${units(job.pricePerSecond)}/s)</td></tr>
<tr><th>Duration</th><td>${duration(job.durationSeconds)}</td></tr>
<tr><th>Total price</th><td>${credits(job.totalPrice)} held</td></tr>
${job.cost !== null ? html`<tr><th>Cost</th><td>${credits(job.cost)} for ${duration(job.billedSeconds ?? 0)} (${job.settlement})</td></tr>` : ''}
<tr><th>Created</th><td>${time(job.createdAt)}</td></tr>
<tr><th>Started</th><td>${time(job.startedAt)}</td></tr>
<tr><th>Ends</th><td>${time(job.endsAt)}</td></tr>
<tr><th>Finished</th><td>${time(job.finishedAt)}</td></tr>
</table>`;
}

function endpoints(list: JobEndpointRecord[]): Html {
  return html`<table class="endpoints"><tr><th>Op</th><th>Port</th><th>Status</th><th>URL</th></tr>
${list.map((e) => html`<tr><td>${e.op}</td><td>${e.port}</td><td>${statusBadge(e.status)}</td><td>${link(e.url)}</td></tr>`)}
</table>`;
}

function ops(list: JobPageOpRecord[], poster: boolean): Html {
  return html`<table class="ops"><tr><th>Op</th><th>Stage</th><th>Status</th><th>Exit code</th><th>Restarts</th>${poster ? html`<th>Reason</th>` : ''}<th>Started</th><th>Ended</th></tr>
${list.map(
  (o) =>
    html`<tr><td><code>${o.id}</code></td><td>${o.group}</td><td>${statusBadge(o.status)}${fetching(o)}</td><td>${o.exitCode ?? '—'}</td><td>${o.restarts}</td>${poster ? html`<td>${o.reason ?? ''}</td>` : ''}<td>${time(o.startedAt)}</td><td>${time(o.endedAt)}</td></tr>`,
)}
</table>`;
}

/** While an op's resources download: the activity, and to the poster each resource's bytes and files. */
function fetching(o: JobPageOpRecord): Html | string {
  if (!o.activity && !o.resources?.some((r) => r.state !== 'ready')) return '';
  const mb = (n: number): string => (n / 1e6).toFixed(1);
  const rows = (o.resources ?? []).map(
    (r) =>
      html`<br><span class="muted">${r.resource}: ${r.state}${r.cached ? ' (cached)' : ''}, ${mb(r.bytesDone)}${r.bytesTotal !== null ? ` of ${mb(r.bytesTotal)}` : ''} MB, ${r.filesDone}${r.filesTotal !== null ? ` of ${r.filesTotal}` : ''} files</span>`,
  );
  return html` <span class="muted">${o.activity ?? ''}</span>${rows}`;
}

/** The poster's part: the content ids (read with the poster's key) and each op's output. */
function posterOnly(job: JobPageRecord): Html {
  return html`<h2>Definition and result</h2>
<table class="summary content">
<tr><th>Definition</th><td><code>${job.definitionCid ?? '—'}</code></td></tr>
<tr><th>Result</th><td>${job.resultCid ? html`<code>${job.resultCid}</code>` : html`<span class="muted">not yet</span>`}</td></tr>
</table>
<h2>Logs</h2>
<p class="muted">The last lines of each op's output, as its node last reported them.</p>
${job.ops.map(logs)}`;
}

function logs(op: JobPageOpRecord): Html {
  const lines = op.logTail.map((l) => html`<span class="${l.stream}">${l.text}</span>\n`);
  return html`<h3><code>${op.id}</code></h3>
${lines.length ? html`<pre>${lines}</pre>` : html`<p class="muted">No output yet.</p>`}`;
}
