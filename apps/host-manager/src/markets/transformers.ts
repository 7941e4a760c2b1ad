import type { ValueTransformer } from 'typeorm';

/** pg returns bigint as text (it may exceed 2^53); our bigints are bounded below that, so numbers are safe. */
export const bigintAsNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
