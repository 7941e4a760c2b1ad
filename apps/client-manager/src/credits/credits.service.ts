import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';
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
import type { UserRepository } from '../users/user.repository';
import type { CreditHoldEntity } from './credit-hold.entity';
import type { CreditHoldRepository, PlacedHold } from './credit-hold.repository';
import { formatCredits, insufficientBalanceMessage } from './credit-format';
import type { GrantRequestRepository } from './grant-request.repository';
import type { LedgerRepository } from './ledger.repository';
import { isUniqueViolation } from '../shared/records';
import type { CreditMetrics } from './credit-metrics';

/**
 * The credits ledger: grants by operators; holds, settlements and releases
 * by deployment-manager for a job. Amounts are integer units (1 credit =
 * 1,000,000 units). Each operation is one Postgres transaction under the
 * user's balance row lock.
 */
export class CreditsService {
  constructor(
    private readonly ledger: LedgerRepository,
    private readonly holds: CreditHoldRepository,
    private readonly grants: GrantRequestRepository,
    private readonly users: UserRepository,
    private readonly metrics?: CreditMetrics,
  ) {}

  async balance(caller: Principal): Promise<GetCreditBalanceResponse> {
    const row = await this.ledger.balance(caller.userId);
    return { userId: caller.userId, available: row?.available ?? 0, held: row?.held ?? 0, spent: row?.spent ?? 0 };
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
    const answer = await this.ledger.transaction(async (m) => {
      // A concurrent grant under the same key waits here for the other's commit, then finds its answer.
      if (idempotencyKey !== undefined && !(await this.grants.reserve(m, caller.userId, idempotencyKey, hash))) return undefined;
      const before = await this.ledger.lockBalance(m, userId);
      const transactionId = await this.ledger.post(m, { kind: 'grant', userId, reason: req.reason, moves: { available: req.amount } });
      const response: GrantCreditsResponse = { transactionId, amount: req.amount, balance: { ...before, available: before.available + req.amount } };
      if (idempotencyKey !== undefined) await this.grants.answer(m, caller.userId, idempotencyKey, response);
      return response;
    });
    return answer ?? this.earlierGrant(caller.userId, idempotencyKey ?? '', hash);
  }

  private async earlierGrant(callerId: string, key: string, hash: string): Promise<GrantCreditsResponse> {
    const row = await this.grants.find(callerId, key);
    if (!row || row.requestHash !== hash) throw idempotencyKeyReused(key);
    return row.response as GrantCreditsResponse;
  }

  /** Idempotent by reference: the same request again returns the same hold. One round trip (CreditHoldRepository.place). */
  async hold(req: CreateCreditHoldRequest): Promise<CreditHoldRecord> {
    let placed: PlacedHold;
    try {
      placed = await this.holds.place(req.userId, req.reference, req.amount, randomId('hld'), randomId('ctx'));
    } catch (err) {
      // Another user's hold took this reference between our look and our insert.
      if (isUniqueViolation(err)) throw referenceTaken(req.reference);
      throw err;
    }
    if (placed.outcome === 'no-user') throw new NotFoundError(`No user ${req.userId}`);
    if (placed.outcome === 'insufficient') {
      this.metrics?.hold('insufficient');
      throw new InsufficientBalanceError(insufficientBalanceMessage(placed.available, req.amount), placed.available, req.amount);
    }
    const hold = placed.outcome === 'repeated' ? sameHold(toHold(placed.hold), req) : toHold(placed.hold);
    this.metrics?.hold(placed.outcome);
    return hold;
  }

  /** Captures `amount`; with `final`, gives the rest back and closes the hold. */
  async settle(holdId: string, req: SettleCreditHoldRequest): Promise<CreditHoldRecord> {
    let rest = 0;
    const hold = await this.onOpenHold(holdId, req.userId, async (m, hold) => {
      if (req.amount > hold.held) throw new ConflictError(`Cannot settle ${formatCredits(req.amount)} credits: hold ${hold.id} holds only ${formatCredits(hold.held)}`);
      rest = req.final ? hold.held - req.amount : 0;
      if (req.amount + rest === 0) return { settled: 0, released: 0 }; // settling nothing: nothing to write
      await this.ledger.post(m, { kind: 'settle', userId: req.userId, holdId, moves: { held: -(req.amount + rest), spent: req.amount, available: rest } });
      return { settled: req.amount, released: rest };
    });
    this.metrics?.settled(req.amount, rest, req.final === true);
    return hold;
  }

  /** Gives `amount` (default: all that is still held) back to the user. */
  async release(holdId: string, req: ReleaseCreditHoldRequest): Promise<CreditHoldRecord> {
    let released = 0;
    const hold = await this.onOpenHold(holdId, req.userId, async (m, hold) => {
      const amount = req.amount ?? hold.held;
      if (amount > hold.held) throw new ConflictError(`Cannot release ${formatCredits(amount)} credits: hold ${hold.id} holds only ${formatCredits(hold.held)}`);
      await this.ledger.post(m, { kind: 'release', userId: req.userId, holdId, moves: { held: -amount, available: amount } });
      released = amount;
      return { settled: 0, released: amount };
    });
    this.metrics?.released(released);
    return hold;
  }

  private async onOpenHold(
    holdId: string,
    userId: string,
    change: (m: EntityManager, hold: CreditHoldRecord) => Promise<{ settled: number; released: number }>,
  ): Promise<CreditHoldRecord> {
    return this.ledger.transaction(async (m) => {
      await this.ledger.lockBalance(m, userId);
      const row = await this.holds.findForUser(m, holdId, userId);
      const hold = row && toHold(row);
      if (!hold) throw new NotFoundError(`No credit hold ${holdId} for user ${userId}`);
      if (hold.status === 'closed') throw new ConflictError(`Credit hold ${holdId} is closed`);
      const { settled, released } = await change(m, hold);
      return toHold(await this.holds.apply(m, holdId, settled, released));
    });
  }

  private async recipient(req: GrantCreditsRequest): Promise<string> {
    if ((req.userId === undefined) === (req.email === undefined)) {
      throw new ValidationError('Validation failed: give exactly one of userId and email', [
        { path: req.userId === undefined ? '' : '/email', message: 'give exactly one of userId and email' },
      ]);
    }
    const { userId, email = '' } = req;
    const row = userId !== undefined ? await this.users.findById(userId) : await this.users.findByEmail(email);
    if (!row) throw new NotFoundError(`No user ${req.userId ?? req.email}`);
    return row.id;
  }
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

function toHold(row: CreditHoldEntity): CreditHoldRecord {
  const { amount, settled, released } = row;
  return {
    id: row.id,
    userId: row.userId,
    reference: row.reference,
    amount,
    settled,
    released,
    held: amount - settled - released,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
