/** bigint columns arrive as text (they may exceed 2^53 in general; ours never do, by the limits on price and duration). */
export const num = (v: string | number | null): number | null => (v === null ? null : Number(v));

export const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);
