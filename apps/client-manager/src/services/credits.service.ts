import { createHash } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { canonicalJson, randomId } from '@ocg/auth';
import type {
  CreateCreditHoldRequest,
  CreditHoldRecord,
  GetCreditBalanceResponse,
  GrantCreditsRequest,
  GrantCreditsResponse,
  ReleaseCreditHoldRequest,
  SettleCreditHoldRequest,
} from '@ocg/contracts';
import { ConflictError, HttpError, InsufficientBalanceError, NotFoundError, ValidationError } from '@ocg/http';
import type { Principal } from '../auth/principal';
import { formatCredits, insufficientBalanceMessage } from './credit-format';
import { lockBalance, post } from './credit-ledger';
import { isUniqueViolation } from './records';

/**
 * The credits ledger: grants by operators; holds, settlements and releases
 * by deployment-manager for a job. Amounts are integer units (1 credit =
 * 1,000,000 units). Each operation is one Postgres transaction under the
 * user's balance row lock.
 */
export class CreditsService {
  constructor(private readonly db: DataSource) {}

  async balance(caller: Principal): Promise<GetCreditBalanceResponse> {
    const [row] = (await this.db.query('SELECT available, held, spent FROM credit_balances WHERE user_id = $1', [caller.userId])) as Record<string, string>[];
    return { userId: caller.userId, available: Number(row?.available ?? 0), held: Number(row?.held ?? 0), spent: Number(row?.spent ?? 0) };
  }

  /**
   * With an Idempotency-Key (per caller), the key and the answer are written in the grant's transaction:
   * the same request again answers the same, without a second grant; another request under it is a 422.
   */
  async grant(caller: Principal, req: GrantCreditsRequest, idempotencyKey?: string): Promise<GrantCreditsResponse> {
    const userId = await this.recipient(req);
    if (idempotencyKey !== undefined && (idempotencyKey.length < 1 || idempotencyKey.length > 200)) {
      throw new ValidationError('Validation failed: Idempotency-Key must be 1 to 200 characters', [{ path: '/Idempotency-Key', message: 'must be 1 to 200 characters' }]);
    }
    const hash = createHash('sha256').update(canonicalJson(req)).digest('hex');
    const answer = await this.db.transaction(async (m) => {
      // A concurrent grant under the same key waits here for the other's commit, then finds its answer.
      if (idempotencyKey !== undefined && !(await reserveGrantKey(m, caller.userId, idempotencyKey, hash))) return undefined;
      const before = await lockBalance(m, userId);
      const transactionId = await post(m, { kind: 'grant', userId, reason: req.reason, moves: { available: req.amount } });
      const response: GrantCreditsResponse = { transactionId, amount: req.amount, balance: { ...before, available: before.available + req.amount } };
      if (idempotencyKey !== undefined) await m.query(`UPDATE credit_grant_requests SET response = $3 WHERE caller_id = $1 AND idempotency_key = $2`, [caller.userId, idempotencyKey, response]);
      return response;
    });
    return answer ?? this.earlierGrant(caller.userId, idempotencyKey ?? '', hash);
  }

  private async earlierGrant(callerId: string, key: string, hash: string): Promise<GrantCreditsResponse> {
    const [row] = (await this.db.query(`SELECT request_hash, response FROM credit_grant_requests WHERE caller_id = $1 AND idempotency_key = $2`, [callerId, key])) as {
      request_hash: string;
      response: GrantCreditsResponse;
    }[];
    if (!row || row.request_hash !== hash) throw idempotencyKeyReused(key);
    return row.response;
  }

  /** Idempotent by reference: the same request again returns the same hold. */
  async hold(req: CreateCreditHoldRequest): Promise<CreditHoldRecord> {
    await this.requireUser(req.userId);
    try {
      return await this.db.transaction(async (m) => {
        const balance = await lockBalance(m, req.userId);
        const existing = await findHold(m, 'reference = $1', [req.reference]);
        if (existing) return sameHold(existing, req);
        if (balance.available < req.amount) throw new InsufficientBalanceError(insufficientBalanceMessage(balance.available, req.amount), balance.available, req.amount);
        const id = randomId('hld');
        const [row] = (await m.query(`INSERT INTO credit_holds (id, user_id, reference, amount, status) VALUES ($1, $2, $3, $4, 'open') RETURNING *`, [
          id,
          req.userId,
          req.reference,
          req.amount,
        ])) as RawHold[];
        await post(m, { kind: 'hold', userId: req.userId, holdId: id, moves: { available: -req.amount, held: req.amount } });
        return toHold(row);
      });
    } catch (err) {
      // Another user's hold took this reference between our look and our insert.
      if (isUniqueViolation(err)) throw referenceTaken(req.reference);
      throw err;
    }
  }

  /** Captures `amount`; with `final`, gives the rest back and closes the hold. */
  async settle(holdId: string, req: SettleCreditHoldRequest): Promise<CreditHoldRecord> {
    return this.onOpenHold(holdId, req.userId, async (m, hold) => {
      if (req.amount > hold.held) throw new ConflictError(`Cannot settle ${formatCredits(req.amount)} credits: hold ${hold.id} holds only ${formatCredits(hold.held)}`);
      const rest = req.final ? hold.held - req.amount : 0;
      if (req.amount + rest === 0) return { settled: 0, released: 0 }; // settling nothing: nothing to write
      await post(m, { kind: 'settle', userId: req.userId, holdId, moves: { held: -(req.amount + rest), spent: req.amount, available: rest } });
      return { settled: req.amount, released: rest };
    });
  }

  /** Gives `amount` (default: all that is still held) back to the user. */
  async release(holdId: string, req: ReleaseCreditHoldRequest): Promise<CreditHoldRecord> {
    return this.onOpenHold(holdId, req.userId, async (m, hold) => {
      const amount = req.amount ?? hold.held;
      if (amount > hold.held) throw new ConflictError(`Cannot release ${formatCredits(amount)} credits: hold ${hold.id} holds only ${formatCredits(hold.held)}`);
      await post(m, { kind: 'release', userId: req.userId, holdId, moves: { held: -amount, available: amount } });
      return { settled: 0, released: amount };
    });
  }

  private async onOpenHold(
    holdId: string,
    userId: string,
    change: (m: EntityManager, hold: CreditHoldRecord) => Promise<{ settled: number; released: number }>,
  ): Promise<CreditHoldRecord> {
    return this.db.transaction(async (m) => {
      await lockBalance(m, userId);
      const hold = await findHold(m, 'id = $1 AND user_id = $2', [holdId, userId]);
      if (!hold) throw new NotFoundError(`No credit hold ${holdId} for user ${userId}`);
      if (hold.status === 'closed') throw new ConflictError(`Credit hold ${holdId} is closed`);
      const { settled, released } = await change(m, hold);
      // A node-pg UPDATE answers [rows, count].
      const [[row]] = (await m.query(
        `UPDATE credit_holds SET settled = settled + $2, released = released + $3, updated_at = now(),
           status = CASE WHEN settled + released + $2 + $3 = amount THEN 'closed' ELSE 'open' END
         WHERE id = $1 RETURNING *`,
        [holdId, settled, released],
      )) as [RawHold[], number];
      return toHold(row);
    });
  }

  private async recipient(req: GrantCreditsRequest): Promise<string> {
    if ((req.userId === undefined) === (req.email === undefined)) {
      throw new ValidationError('Validation failed: give exactly one of userId and email', [{ path: req.userId === undefined ? '' : '/email', message: 'give exactly one of userId and email' }]);
    }
    const [row] = (await this.db.query(req.userId !== undefined ? 'SELECT id FROM users WHERE id = $1' : 'SELECT id FROM users WHERE lower(email) = lower($1)', [req.userId ?? req.email])) as { id: string }[];
    if (!row) throw new NotFoundError(`No user ${req.userId ?? req.email}`);
    return row.id;
  }

  private async requireUser(userId: string): Promise<void> {
    const [row] = (await this.db.query('SELECT 1 FROM users WHERE id = $1', [userId])) as unknown[];
    if (!row) throw new NotFoundError(`No user ${userId}`);
  }
}

/** Takes the key for this request; false when an earlier request holds it. */
async function reserveGrantKey(m: EntityManager, callerId: string, key: string, hash: string): Promise<boolean> {
  const taken = (await m.query(
    `INSERT INTO credit_grant_requests (caller_id, idempotency_key, request_hash, response) VALUES ($1, $2, $3, '{}') ON CONFLICT DO NOTHING RETURNING 1`,
    [callerId, key, hash],
  )) as unknown[];
  return taken.length === 1;
}

/** 422: an Idempotency-Key sent again with a different request (IETF httpapi-idempotency-key). */
function idempotencyKeyReused(key: string): HttpError {
  const err = new HttpError(422, 'CONFLICT', `Idempotency-Key "${key}" was already used for a different request; use a new key for a new grant`, [
    { path: '/Idempotency-Key', message: 'already used with another request body' },
  ]);
  err.name = 'IdempotencyKeyReusedError';
  return err;
}

function sameHold(existing: CreditHoldRecord, req: CreateCreditHoldRequest): CreditHoldRecord {
  if (existing.userId !== req.userId || existing.amount !== req.amount) throw referenceTaken(req.reference);
  return existing;
}

const referenceTaken = (reference: string): ConflictError =>
  new ConflictError(`Reference ${reference} already belongs to a different hold`, [{ path: '/reference', message: 'already used by a different hold' }]);

async function findHold(m: EntityManager, where: string, params: unknown[]): Promise<CreditHoldRecord | undefined> {
  const [row] = (await m.query(`SELECT * FROM credit_holds WHERE ${where}`, params)) as RawHold[];
  return row && toHold(row);
}

function toHold(row: RawHold): CreditHoldRecord {
  const [amount, settled, released] = [Number(row.amount), Number(row.settled), Number(row.released)];
  return {
    id: row.id,
    userId: row.user_id,
    reference: row.reference,
    amount,
    settled,
    released,
    held: amount - settled - released,
    status: row.status,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

interface RawHold {
  id: string;
  user_id: string;
  reference: string;
  amount: string;
  settled: string;
  released: string;
  status: 'open' | 'closed';
  created_at: Date;
  updated_at: Date;
}
