/**
 * Everything wrong with a set of templates, every offending path at once
 * (BENCHMARK-TEMPLATES.md: duplicate slug, invalid ops, a threshold metric
 * that is not a metric key of the template, unknown market address). tsoa
 * has already checked the shape; these are the rules it cannot express.
 */
import type { BenchmarkTemplate, FieldError } from '@ocg/contracts';
import { validateOps } from '@ocg/job-definition';
import { jsonLogicProblems } from './json-logic';

export function templateProblems(templates: BenchmarkTemplate[], knownMarkets: ReadonlySet<string>): FieldError[] {
  const firstIndexOfSlug = new Map<string, number>();
  return templates.flatMap((template, i) => {
    const path = `/templates/${i}`;
    const problems: FieldError[] = [];
    const first = firstIndexOfSlug.get(template.slug);
    if (first === undefined) firstIndexOfSlug.set(template.slug, i);
    else problems.push({ path: `${path}/slug`, message: `duplicate slug "${template.slug}" (first at /templates/${first})` });
    problems.push(...validateOps(template.operation.ops, { pathPrefix: `${path}/operation/ops` }).errors);
    problems.push(...metricProblems(template, path));
    problems.push(...marketProblems(template.supportedMarkets, `${path}/supportedMarkets`, knownMarkets));
    problems.push(...thresholdProblems(template, `${path}/threshold`));
    return problems;
  });
}

function metricProblems(template: BenchmarkTemplate, path: string): FieldError[] {
  const seen = new Set<string>();
  return template.operation.metrics.flatMap((metric, j) => {
    if (!seen.has(metric.key)) return (seen.add(metric.key), []);
    return [{ path: `${path}/operation/metrics/${j}/key`, message: `duplicate metric key "${metric.key}"` }];
  });
}

function marketProblems(markets: string[], path: string, known: ReadonlySet<string>): FieldError[] {
  const seen = new Set<string>();
  return markets.flatMap((address, j) => {
    if (seen.has(address)) return [{ path: `${path}/${j}`, message: `market ${address} is listed twice` }];
    seen.add(address);
    return known.has(address) ? [] : [{ path: `${path}/${j}`, message: `no market has the address "${address}" (give market addresses, not names)` }];
  });
}

function thresholdProblems(template: BenchmarkTemplate, path: string): FieldError[] {
  const threshold = template.threshold;
  if (threshold === undefined) return [];
  const keys = template.operation.metrics.map((m) => m.key);
  const problems: FieldError[] = [];
  if (keys.length === 0 && threshold.metric === undefined) problems.push({ path, message: 'the template has no metrics for a threshold to gate on' });
  if (threshold.metric !== undefined && !keys.includes(threshold.metric)) {
    const which = keys.length ? `one of ${keys.map((k) => `"${k}"`).join(', ')}` : 'a metric key, and the template has none';
    problems.push({ path: `${path}/metric`, message: `"${threshold.metric}" is not a metric key of this template; use ${which}` });
  }
  if (threshold.jsonLogic !== undefined) problems.push(...jsonLogicProblems(threshold.jsonLogic, `${path}/jsonLogic`));
  return problems;
}
