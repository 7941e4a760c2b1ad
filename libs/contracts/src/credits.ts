import type { ErrorBody } from './errors';

/** Amounts are integers in the smallest unit: 1 credit = 1,000,000 units. */
export const UNITS_PER_CREDIT = 1_000_000;

/**
 * An amount in units (1 credit = 1,000,000 units).
 * @isLong
 * @minimum 1
 * @maximum 9007199254740991
 */
export type CreditAmount = number;

export interface GetCreditBalanceResponse {
  userId: string;
  /** Units free to spend or hold. */
  available: number;
  /** Units reserved by open holds. */
  held: number;
  /** Units settled from holds, all time. */
  spent: number;
}

/** Give exactly one of `userId` and `email`. */
export interface GrantCreditsRequest {
  /** @maxLength 100 */
  userId?: string;
  /**
   * @minLength 3
   * @maxLength 254
   */
  email?: string;
  amount: CreditAmount;
  /**
   * Why, for the ledger.
   * @minLength 1
   * @maxLength 500
   */
  reason: string;
}

export interface GrantCreditsResponse {
  transactionId: string;
  amount: number;
  balance: GetCreditBalanceResponse;
}

export interface CreateCreditHoldRequest {
  userId: string;
  amount: CreditAmount;
  /**
   * Idempotency key, e.g. the job id: the same reference returns the same hold.
   * @minLength 1
   * @maxLength 200
   */
  reference: string;
}

export interface SettleCreditHoldRequest {
  userId: string;
  /**
   * Units to capture, at most what the hold still holds.
   * @isLong
   * @minimum 0
   * @maximum 9007199254740991
   */
  amount: number;
  /** Release whatever remains held after this capture and close the hold. */
  final?: boolean;
}

export interface ReleaseCreditHoldRequest {
  userId: string;
  /**
   * Units to release; default everything still held.
   * @isLong
   * @minimum 1
   * @maximum 9007199254740991
   */
  amount?: number;
}

export type CreditHoldStatus = 'open' | 'closed';

export interface CreditHoldRecord {
  id: string;
  userId: string;
  reference: string;
  /** Units held when the hold was placed. */
  amount: number;
  /** Units captured so far. */
  settled: number;
  /** Units given back so far. */
  released: number;
  /** Units still held: amount - settled - released. */
  held: number;
  status: CreditHoldStatus;
  createdAt: string;
  updatedAt: string;
}

/** 402 INSUFFICIENT_BALANCE: the body names both amounts, in units. */
export interface InsufficientBalanceErrorBody extends ErrorBody {
  available: number;
  required: number;
}
