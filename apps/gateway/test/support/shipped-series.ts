/**
 * The series starting with `prefix` that the shipped dashboard
 * (deploy/grafana/dashboard.json) and alerting rules (deploy/prometheus/alerts.yml)
 * read. e2e's metrics spec checks the rest against a running stack, whose
 * gateway has no edge and no TLS: the gateway's specs check these.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { seriesReadBy } from '@ocg/testing';

const root = resolve(__dirname, '../../../..');

export function shippedSeries(prefix: string): string[] {
  const text = ['deploy/grafana/dashboard.json', 'deploy/prometheus/alerts.yml'].map((file) => readFileSync(resolve(root, file), 'utf8')).join('\n');
  return seriesReadBy(text).filter((name) => name.startsWith(prefix));
}
