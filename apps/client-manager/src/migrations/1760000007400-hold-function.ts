import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A credit hold in one round trip (CreditsService.hold, ADR 0074): the
 * user's check, the balance row's lock (created at first use), the lookup
 * by reference, the refusal of an overdraw and the four writes of a placed
 * hold, as one function called as one statement. The balance row is locked
 * for that statement only, not across the seven round trips of the
 * transaction it replaces, so one user's concurrent holds queue for less.
 * The outcome: `no-user`, `insufficient` (with `available`), `repeated`
 * (the hold of that reference, whoever's) or `placed` (the new hold).
 */
export class HoldFunction1760000007400 implements MigrationInterface {
  name = 'HoldFunction1760000007400';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION place_credit_hold(p_user text, p_reference text, p_amount bigint, p_hold text, p_transaction text,
        OUT outcome text, OUT available bigint, OUT id text, OUT user_id text, OUT reference text, OUT amount bigint, OUT settled bigint,
        OUT released bigint, OUT status text, OUT created_at timestamptz, OUT updated_at timestamptz)
      LANGUAGE plpgsql VOLATILE AS $$
      #variable_conflict use_column
      DECLARE
        b credit_balances;
        h credit_holds;
      BEGIN
        PERFORM 1 FROM users WHERE users.id = p_user;
        IF NOT FOUND THEN
          outcome := 'no-user';
          RETURN;
        END IF;
        -- Every money transaction of one user queues on this row: two holds racing cannot both spend the same credits.
        SELECT * INTO b FROM credit_balances WHERE credit_balances.user_id = p_user FOR UPDATE;
        IF NOT FOUND THEN
          INSERT INTO credit_balances (user_id) VALUES (p_user) ON CONFLICT DO NOTHING;
          SELECT * INTO b FROM credit_balances WHERE credit_balances.user_id = p_user FOR UPDATE;
        END IF;
        available := b.available;
        SELECT * INTO h FROM credit_holds WHERE credit_holds.reference = p_reference;
        IF FOUND THEN
          outcome := 'repeated';
        ELSIF b.available < p_amount THEN
          outcome := 'insufficient';
          RETURN;
        ELSE
          INSERT INTO credit_holds (id, user_id, reference, amount, status) VALUES (p_hold, p_user, p_reference, p_amount, 'open') RETURNING * INTO h;
          INSERT INTO credit_transactions (id, kind, user_id, hold_id) VALUES (p_transaction, 'hold', p_user, p_hold);
          INSERT INTO credit_entries (transaction_id, account, amount)
            VALUES (p_transaction, 'user:' || p_user || ':available', -p_amount), (p_transaction, 'user:' || p_user || ':held', p_amount);
          UPDATE credit_balances SET available = credit_balances.available - p_amount, held = credit_balances.held + p_amount, updated_at = now()
            WHERE credit_balances.user_id = p_user;
          outcome := 'placed';
        END IF;
        id := h.id;
        user_id := h.user_id;
        reference := h.reference;
        amount := h.amount;
        settled := h.settled;
        released := h.released;
        status := h.status;
        created_at := h.created_at;
        updated_at := h.updated_at;
      END
      $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION place_credit_hold(text, text, bigint, text, text)`);
  }
}
