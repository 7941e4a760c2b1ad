/** Milliseconds since the epoch; tests pass their own to move time without sleeping. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

export const iso = (date: Date | number): string => new Date(date).toISOString();

export const isoOrNull = (date: Date | null): string | null => (date === null ? null : date.toISOString());
