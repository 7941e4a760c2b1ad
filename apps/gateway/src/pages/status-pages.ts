import { html, layout } from './html';

/** An unknown job or market: the same words for both, whether it never existed or the link is mistyped. */
export function renderNotFoundPage(kind: 'job' | 'market', ref: string): string {
  const body = html`<h1>No such ${kind}</h1>
<p>No ${kind} has the ${kind === 'job' ? 'address' : 'address or name'} <code>${ref}</code>.</p>
<p class="muted">Check the link: ${kind === 'job' ? 'job addresses' : 'market addresses'} are case-sensitive.</p>`;
  return layout({ title: `No such ${kind}`, body });
}

/** A service behind the page did not answer: the page comes back by itself. */
export function renderUnavailablePage(): string {
  const body = html`<h1>Temporarily unavailable</h1>
<p>This page cannot be shown right now; it reloads itself in a few seconds.</p>`;
  return layout({ title: 'Unavailable', body, refreshSeconds: 10 });
}

/** A fault of ours: no details, only the request id to quote. */
export function renderErrorPage(requestId: string): string {
  const body = html`<h1>Something went wrong</h1>
<p>The page could not be shown. If this keeps happening, quote request <code>${requestId}</code>.</p>`;
  return layout({ title: 'Error', body });
}
