import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The credits ledger: double-entry rows (every transaction sums to zero,
 * checked at commit), one balance row per user that money transactions lock,
 * and holds. Amounts are bigint units (1 credit = 1,000,000 units).
 */
export class Credits1760000000001 implements MigrationInterface {
  name = 'Credits1760000000001';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE credit_balances (
        user_id text PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        available bigint NOT NULL DEFAULT 0 CHECK (available >= 0),
        held bigint NOT NULL DEFAULT 0 CHECK (held >= 0),
        spent bigint NOT NULL DEFAULT 0 CHECK (spent >= 0),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE credit_holds (
        id text PRIMARY KEY,
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        reference text NOT NULL UNIQUE,
        amount bigint NOT NULL CHECK (amount > 0),
        settled bigint NOT NULL DEFAULT 0 CHECK (settled >= 0),
        released bigint NOT NULL DEFAULT 0 CHECK (released >= 0),
        status text NOT NULL CHECK (status IN ('open', 'closed')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (settled + released <= amount)
      )`);
    await q.query(`CREATE INDEX credit_holds_user_id_idx ON credit_holds (user_id)`);
    await q.query(`
      CREATE TABLE credit_transactions (
        id text PRIMARY KEY,
        kind text NOT NULL CHECK (kind IN ('grant', 'hold', 'settle', 'release')),
        user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        hold_id text NULL REFERENCES credit_holds(id),
        reason text NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE credit_entries (
        id bigserial PRIMARY KEY,
        transaction_id text NOT NULL REFERENCES credit_transactions(id) ON DELETE CASCADE,
        account text NOT NULL,
        amount bigint NOT NULL CHECK (amount <> 0)
      )`);
    await q.query(`CREATE INDEX credit_entries_transaction_idx ON credit_entries (transaction_id)`);
    await q.query(`CREATE INDEX credit_entries_account_idx ON credit_entries (account)`);
    // Double entry enforced by the database, not by discipline: checked at commit.
    await q.query(`
      CREATE FUNCTION credit_transaction_balances() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT coalesce(sum(amount), 0) FROM credit_entries WHERE transaction_id = NEW.transaction_id) <> 0 THEN
          RAISE EXCEPTION 'credit transaction % does not sum to zero', NEW.transaction_id;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER credit_entries_sum_to_zero
        AFTER INSERT ON credit_entries DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION credit_transaction_balances()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE credit_entries`);
    await q.query(`DROP FUNCTION credit_transaction_balances()`);
    await q.query(`DROP TABLE credit_transactions`);
    await q.query(`DROP TABLE credit_holds`);
    await q.query(`DROP TABLE credit_balances`);
  }
}
