/** JSON pointer helpers (RFC 6901). */

export function escapeSegment(segment: string | number): string {
  if (typeof segment === 'number') return String(segment);
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function childPath(base: string, ...segments: Array<string | number>): string {
  let path = base;
  for (const segment of segments) path += `/${escapeSegment(segment)}`;
  return path;
}

/** Orders pointers in document order: numeric segments compare as numbers. */
export function comparePaths(a: string, b: string): number {
  const as = a.split('/');
  const bs = b.split('/');
  for (let i = 0; i < Math.min(as.length, bs.length); i++) {
    if (as[i] === bs[i]) continue;
    const an = Number(as[i]);
    const bn = Number(bs[i]);
    if (as[i] !== '' && bs[i] !== '' && Number.isInteger(an) && Number.isInteger(bn)) return an - bn;
    // Stryker disable next-line EqualityOperator: equal segments were skipped above, so < and <= agree
    return as[i] < bs[i] ? -1 : 1;
  }
  return as.length - bs.length;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function hasOwn(object: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(object, key);
}

/** Sets a member as data: a key "__proto__" (legal in JSON) would otherwise replace the prototype. */
export function setMember(target: Record<string, unknown>, key: string, value: unknown): void {
  // Stryker disable next-line ConditionalExpression: for any other key, defineProperty with these flags equals plain assignment
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
