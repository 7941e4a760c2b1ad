import { CREDIT_UNITS } from '@ocg/contracts';

/**
 * HTML by tagged template: every interpolated value is escaped unless it is
 * already Html (a fragment built the same way), so a page cannot forget to
 * escape a job's reason or a log line.
 */
export class Html {
  constructor(readonly text: string) {}
}

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function render(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0];
  values.forEach((value, i) => (out += render(value) + strings[i + 1]));
  return new Html(out);
}

/** Only http(s) URLs become links: anything else (javascript:, data:) is shown as text. */
export function link(url: string | null | undefined, text: unknown = url): Html {
  if (!url) return html`—`;
  return /^https?:\/\//i.test(url) ? html`<a href="${url}">${text}</a>` : html`${text}`;
}

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;max-width:62rem;margin:2rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.4rem;margin:0 0 .25rem}h2{font-size:1.1rem;margin:1.75rem 0 .5rem}
code,pre{font:13px/1.4 ui-monospace,monospace}code{word-break:break-all}
table{border-collapse:collapse;width:100%}table.summary{width:auto}th,td{text-align:left;padding:.3rem .6rem .3rem 0;border-bottom:1px solid #e5e5e5;vertical-align:top}
th{font-weight:600;color:#555;white-space:nowrap}
.status{display:inline-block;padding:.05rem .5rem;border-radius:.75rem;font-size:.85rem;font-weight:600;background:#eee}
.QUEUED,.pending,.PENDING{background:#fff4d6;color:#7a5a00}.RUNNING,.running,.ONLINE{background:#dcf5e3;color:#11632e}
.COMPLETED,.completed{background:#e0ecff;color:#1a4b9c}.FAILED,.failed,.OFFLINE{background:#fde2e1;color:#9b1c1c}.STOPPED,.stopped{background:#ececec;color:#444}
pre{background:#f6f6f6;padding:.6rem;overflow-x:auto;margin:.25rem 0 1rem;white-space:pre-wrap;word-break:break-all}
.stderr,.nodeerr{color:#9b1c1c}.muted{color:#777}
`;

export interface LayoutOptions {
  title: string;
  body: Html;
  /** Seconds until the browser loads the page again (a job still moving). */
  refreshSeconds?: number;
}

export function layout({ title, body, refreshSeconds }: LayoutOptions): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
${refreshSeconds ? html`<meta http-equiv="refresh" content="${refreshSeconds}">` : ''}
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${new Html(STYLE)}</style>
</head><body>${body}</body></html>
`.text;
}

export const statusBadge = (status: string): Html => html`<span class="status ${status}">${status}</span>`;

/** ISO 8601 as `2025-01-02 03:04:05 UTC`, inside a <time>. */
export function time(iso: string | null | undefined): Html {
  if (!iso) return html`<span class="muted">—</span>`;
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '')} UTC</time>`;
}

/** Integer units as credits: 1,500 units → `0.0015 credits`. */
export function credits(units: number): string {
  const whole = Math.floor(units / CREDIT_UNITS);
  const fraction = String(units % CREDIT_UNITS)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${whole.toLocaleString('en-US')}${fraction ? `.${fraction}` : ''} ${units === CREDIT_UNITS ? 'credit' : 'credits'}`;
}

export const units = (n: number): string => `${n.toLocaleString('en-US')} units`;

/** 7200 → `2 h`, 90 → `1 min 30 s`. */
export function duration(seconds: number): string {
  const parts: string[] = [];
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h) parts.push(`${h} h`);
  if (m) parts.push(`${m} min`);
  if (s || parts.length === 0) parts.push(`${s} s`);
  return parts.join(' ');
}
