/**
 * The series a dashboard or a rule file reads, by name (`ocg_…`, `process_…`,
 * `nodejs_…`; a histogram's `_bucket`, `_count` and `_sum` named by the
 * histogram), and which of them an exposition lacks: how the shipped
 * dashboard and alerts are checked against what the processes export.
 */
export function seriesReadBy(text: string): string[] {
  const names = [...text.matchAll(/\b(ocg_[a-z_]+?|process_[a-z_]+?|nodejs_[a-z0-9_]+?)(?:_bucket|_count|_sum)?\b(?=[{[ )])/g)].map((m) => m[1]);
  return [...new Set(names)].sort();
}

/** Of `names`, those `exposition` (Prometheus's text format) has no `# TYPE` line for. */
export function notExported(names: string[], exposition: string): string[] {
  return names.filter((name) => !new RegExp(`^# TYPE ${name} `, 'm').test(exposition));
}
