import { compileResultRegex, type NormalizedResult, type ResultRegex } from '@ocg/job-definition';
import type { LogStream } from './log-buffer';
import { MAX_LINE_CHARS } from './log-buffer';

/** Per result name; more matches than this are dropped (the first ones are kept). */
export const MAX_VALUES_PER_RESULT = 1000;

interface Extractor {
  name: string;
  regex: ResultRegex | undefined;
  streams: ReadonlySet<string>;
  found: string[];
}

/**
 * Runs each result's regex over every line of its log streams as lines
 * arrive, so results do not depend on what the bounded log buffer still
 * holds. A match's value is its first capture group, or the whole match when
 * the regex has none (a leading lookbehind is not part of the value). Regexes run on RE2, in time linear in the line (cut at
 * the log buffer's line length), so no pattern can stall the node; one that
 * does not compile captures nothing (validation refuses it at posting).
 */
export class ResultExtractor {
  private readonly extractors: Extractor[];

  constructor(results: Record<string, NormalizedResult>) {
    this.extractors = Object.entries(results).map(([name, r]) => ({ name, regex: compile(r.regex), streams: new Set(r.logType), found: [] }));
  }

  feed(stream: LogStream, text: string): void {
    const line = text.length > MAX_LINE_CHARS ? text.slice(0, MAX_LINE_CHARS) : text;
    for (const e of this.extractors) {
      if (!e.regex || !e.streams.has(stream)) continue;
      const matcher = e.regex.regex.matcher(line);
      while (e.found.length < MAX_VALUES_PER_RESULT && matcher.find()) {
        const whole = matcher.group(0) ?? '';
        e.found.push(matcher.group(e.regex.valueGroup) ?? '');
        // A regex that can match empty text matches at every position: once per line is enough.
        if (whole === '') break;
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

function compile(source: string): ResultRegex | undefined {
  try {
    return compileResultRegex(source);
  } catch {
    return undefined;
  }
}
