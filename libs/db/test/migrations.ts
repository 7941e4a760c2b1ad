import type { MigrationInterface, QueryRunner } from 'typeorm';

let next = 1_700_000_000_000;

/** A migration class running the given statements; TypeORM wants a timestamp at the end of its name. */
export function migration(label: string, ...statements: string[]) {
  const name = `${label}${next++}`;
  return class implements MigrationInterface {
    name = name;
    async up(q: QueryRunner): Promise<void> {
      for (const sql of statements) await q.query(sql);
    }
    async down(): Promise<void> {
      // tests never revert
    }
  };
}
