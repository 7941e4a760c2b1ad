/**
 * The series starting with `prefix` that the shipped dashboard
 * (deploy/grafana/dashboard.json) and alerting rules (deploy/prometheus/alerts.yml)
 * read. e2e's metrics spec checks the rest against a running stack, whose
 * gateway has no edge and no TLS: the gateway's specs check these.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const root = resolve(__dirname, '../../../..');

export function shippedSeries(prefix: string): string[] {
  const text = ['deploy/grafana/dashboard.json', 'deploy/prometheus/alerts.yml'].map((file) => readFileSync(resolve(root, file), 'utf8')).join('\n');
  const names = [...text.matchAll(/\b(ocg_[a-z_]+?)(?:_bucket|_count|_sum)?\b(?=[{[ )])/g)].map((m) => m[1]).filter((name) => name.startsWith(prefix));
  return [...new Set(names)].sort();
}

/** Of `names`, those `exposition` (Prometheus's text format) has no `# TYPE` line for. */
export function notExported(names: string[], exposition: string): string[] {
  return names.filter((name) => !new RegExp(`^# TYPE ${name} `, 'm').test(exposition));
}
