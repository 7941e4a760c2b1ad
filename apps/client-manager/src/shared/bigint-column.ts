import type { ValueTransformer } from 'typeorm';

/** Credit amounts are bigint units, read back as text by pg; they stay far below 2^53, so numbers are exact. */
export const bigintAsNumber: ValueTransformer = {
  to: (value: number | undefined) => value,
  from: (value: string) => Number(value),
};
