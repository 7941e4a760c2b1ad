import type { NormalizedResult } from '@ocg/job-definition';
import type { LogStream } from './log-buffer';

/** Per result name; more matches than this are dropped (the first ones are kept). */
export const MAX_VALUES_PER_RESULT = 1000;

interface Extractor {
  name: string;
  regex: RegExp | undefined;
  streams: ReadonlySet<string>;
  found: string[];
}

/**
 * Runs each result's regex over every line of its log streams as lines
 * arrive, so results do not depend on what the bounded log buffer still
 * holds. A match's value is its first capture group, or the whole match when
 * the regex has none. A regex that does not compile captures nothing (the
 * validator only warns about it).
 */
export class ResultExtractor {
  private readonly extractors: Extractor[];

  constructor(results: Record<string, NormalizedResult>) {
    this.extractors = Object.entries(results).map(([name, r]) => ({ name, regex: compile(r.regex), streams: new Set(r.logType), found: [] }));
  }

  feed(stream: LogStream, text: string): void {
    for (const e of this.extractors) {
      if (!e.regex || !e.streams.has(stream)) continue;
      for (const match of text.matchAll(e.regex)) {
        if (e.found.length >= MAX_VALUES_PER_RESULT) break;
        e.found.push(match.length > 1 ? (match[1] ?? '') : match[0]);
        // A regex that can match empty text matches at every position: once per line is enough.
        if (match[0] === '') break;
      }
    }
  }

  /** Result name to values, in the order they appeared. */
  snapshot(): Record<string, string[]> {
    return Object.fromEntries(this.extractors.map((e) => [e.name, [...e.found]]));
  }

  /** Empty results are left out, so `%%ops.x.results.y%%` stays unresolved rather than becoming "". */
  forLiterals(): Record<string, string[]> {
    return Object.fromEntries(this.extractors.filter((e) => e.found.length > 0).map((e) => [e.name, [...e.found]]));
  }
}

function compile(source: string): RegExp | undefined {
  try {
    return new RegExp(source, 'g');
  } catch {
    return undefined;
  }
}
