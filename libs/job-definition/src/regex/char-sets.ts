/**
 * Sets of code points as sorted, disjoint, inclusive ranges: enough to tell
 * whether two regex alternatives can start with the same character.
 */
export type Ranges = ReadonlyArray<readonly [number, number]>;

const MAX = 0x10ffff;
export const NONE: Ranges = [];
export const ANY: Ranges = [[0, MAX]];

export function single(codePoint: number): Ranges {
  return [[codePoint, codePoint]];
}

export function union(...sets: Ranges[]): Ranges {
  const all = sets.flat().slice().sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [lo, hi] of all) {
    const last = merged[merged.length - 1];
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else merged.push([lo, hi]);
  }
  return merged;
}

export function complement(set: Ranges): Ranges {
  const out: Array<[number, number]> = [];
  let next = 0;
  for (const [lo, hi] of union(set)) {
    if (lo > next) out.push([next, lo - 1]);
    next = hi + 1;
  }
  if (next <= MAX) out.push([next, MAX]);
  return out;
}

const DIGIT: Ranges = [[0x30, 0x39]];
const WORD: Ranges = union(DIGIT, [[0x41, 0x5a]], [[0x5f, 0x5f]], [[0x61, 0x7a]]);
const SPACE: Ranges = union(
  [[0x09, 0x0d]],
  [[0x20, 0x20]],
  [[0xa0, 0xa0]],
  [[0x1680, 0x1680]],
  [[0x2000, 0x200a]],
  [[0x2028, 0x2029]],
  [[0x202f, 0x202f]],
  [[0x205f, 0x205f]],
  [[0x3000, 0x3000]],
  [[0xfeff, 0xfeff]],
);
/** What `.` matches without the s flag: everything but line terminators. */
export const DOT: Ranges = complement([[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]]);

export const ESCAPES: Readonly<Record<string, Ranges>> = {
  d: DIGIT,
  D: complement(DIGIT),
  w: WORD,
  W: complement(WORD),
  s: SPACE,
  S: complement(SPACE),
};

/**
 * Index pair of two sets that share a code point, or undefined. One sweep over
 * all ranges: each set is merged first, so any overlap is between two sets.
 */
export function findOverlap(sets: readonly Ranges[]): [number, number] | undefined {
  const tagged = sets
    .flatMap((set, owner) => union(set).map(([lo, hi]) => ({ lo, hi, owner })))
    .sort((a, b) => a.lo - b.lo);
  let reach = { hi: -1, owner: -1 };
  for (const range of tagged) {
    if (range.lo <= reach.hi) return [reach.owner, range.owner];
    if (range.hi > reach.hi) reach = range;
  }
  return undefined;
}
