/** The Postgres SQLSTATE of a failed query (TypeORM copies the driver's fields onto its error). */
export function pgCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; driverError?: { code?: unknown } } | null;
  const code = e?.code ?? e?.driverError?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The constraint a unique or foreign key violation names. */
export function pgConstraint(err: unknown): string | undefined {
  const e = err as { constraint?: unknown; driverError?: { constraint?: unknown } } | null;
  const name = e?.constraint ?? e?.driverError?.constraint;
  return typeof name === 'string' ? name : undefined;
}

export const UNIQUE_VIOLATION = '23505';
export const LOCK_NOT_AVAILABLE = '55P03';
