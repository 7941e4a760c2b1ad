/** Small text helpers for messages. */

/** `; did you mean "x"?` when one candidate is a plausible typo of `word`, else ''. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  // Distances on long words are meaningless and costly; candidates lists are short.
  if (word.length > 64) return '';
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(word.length / 3)) + 1;
  let budget = 100; // a suggestion is a courtesy: never let it make a huge job slow to check
  for (const candidate of candidates) {
    if (budget-- === 0) break;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut; the distance is at least the length difference, so a skipped candidate could not win
    if (Math.abs(candidate.length - word.length) >= bestDistance) continue;
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best === undefined ? '' : `; did you mean "${best}"?`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length];
}

/** Quotes a value for a message, shortened so a huge string cannot flood the output. */
export function quote(value: string, max = 80): string {
  return JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);
}
