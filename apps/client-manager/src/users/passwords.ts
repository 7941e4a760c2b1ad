import argon2 from 'argon2';

// OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane): ~20 ms a hash here.
const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const hashPassword = (password: string): Promise<string> => argon2.hash(password, OPTIONS);

let decoy: Promise<string> | undefined;

/**
 * Verifies against the stored hash, or against a decoy when there is none, so
 * an unknown email takes as long as a wrong password (no account probing).
 */
export async function verifyPassword(hash: string | null | undefined, password: string): Promise<boolean> {
  const target = hash ?? (await (decoy ??= hashPassword('decoy password, never matches a real hash')));
  const ok = await argon2.verify(target, password).catch(() => false);
  return ok && Boolean(hash);
}
