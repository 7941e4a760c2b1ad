/**
 * Benchmark files as pipeline templates ship them (e.g. Gemma4's
 * `benchmarks.json`) turned into apply templates, for `ocg admin benchmarks
 * apply --file`. A file is an array (or one object) of entries:
 *
 *   { variants: ["26b"], timeoutSeconds?, metrics: [{key, ...}], support_ops: [op...], ops_overrides?: {...} }
 *
 * Each variant of each entry becomes one template:
 *   slug              `<name>-<variant>` (lowercased; `<name>` alone for an entry without variants)
 *   operation         { name: "<name> <variant> benchmark", source, ops: support_ops, metrics }
 *   requirements      [{ variant, timeoutSeconds, opsOverrides }] (members that are absent are left out)
 *   supportedMarkets  the markets given, the same for every template
 *   threshold         the threshold given, if any
 * Pure and dependency-free, like the rest of contracts.
 */
import type { BenchmarkTemplate, BenchmarkTemplateThreshold } from './benchmarks';

export interface BenchmarkFileOptions {
  /** Slug prefix and display name, e.g. `gemma4`. */
  name: string;
  supportedMarkets: string[];
  /** Where the file came from (operation.source). */
  source?: string;
  threshold?: BenchmarkTemplateThreshold;
}

type Entry = Record<string, unknown>;

/** True for what looks like a benchmark file rather than an apply request body. */
export function isBenchmarkFile(json: unknown): boolean {
  const entries = Array.isArray(json) ? json : [json];
  return entries.length > 0 && entries.every((e) => isObject(e) && Array.isArray(e.support_ops) && Array.isArray(e.metrics));
}

/** Throws an Error naming the offending entry when the file is not a benchmark file. */
export function benchmarkFileToTemplates(json: unknown, opts: BenchmarkFileOptions): BenchmarkTemplate[] {
  const entries = Array.isArray(json) ? json : [json];
  return entries.flatMap((entry, i) => {
    if (!isObject(entry) || !Array.isArray(entry.support_ops) || !Array.isArray(entry.metrics)) {
      throw new Error(`entry ${i} of the benchmark file needs "support_ops" and "metrics" arrays`);
    }
    const variants = Array.isArray(entry.variants) && entry.variants.length > 0 ? entry.variants.map(String) : [undefined];
    return variants.map((variant) => toTemplate(entry, variant, opts));
  });
}

function toTemplate(entry: Entry, variant: string | undefined, opts: BenchmarkFileOptions): BenchmarkTemplate {
  const label = variant === undefined ? opts.name : `${opts.name} ${variant}`;
  const requirement: Record<string, unknown> = {};
  if (variant !== undefined) requirement.variant = variant;
  if (entry.timeoutSeconds !== undefined) requirement.timeoutSeconds = entry.timeoutSeconds;
  if (entry.ops_overrides !== undefined) requirement.opsOverrides = entry.ops_overrides;
  const template: BenchmarkTemplate = {
    slug: slugOf(variant === undefined ? opts.name : `${opts.name}-${variant}`),
    operation: {
      name: `${label} benchmark`,
      ...(opts.source === undefined ? {} : { source: opts.source }),
      ops: entry.support_ops as Record<string, unknown>[],
      metrics: entry.metrics as BenchmarkTemplate['operation']['metrics'],
    },
    requirements: Object.keys(requirement).length > 0 ? [requirement] : [],
    supportedMarkets: opts.supportedMarkets,
  };
  return opts.threshold === undefined ? template : { ...template, threshold: opts.threshold };
}

/** Lowercase letters, digits, `.`, `_`, `-`; anything else becomes `-`. */
function slugOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '');
}

function isObject(value: unknown): value is Entry {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
