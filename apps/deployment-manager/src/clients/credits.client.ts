import type { CreditHoldRecord, InsufficientBalanceErrorBody } from '@ocg/contracts';
import { ConflictError, InsufficientBalanceError, type ServiceClient } from '@ocg/http';

export interface HoldRequest {
  userId: string;
  amount: number;
  /** client-manager's idempotency key: the same reference returns the same hold. */
  reference: string;
}

/** A settle that client-manager refused with 409: the hold is closed, or holds less. */
export interface SettleRefused {
  refused: true;
  message: string;
}

/** client-manager's internal credit-hold routes (`/credits/holds`), for a user's job. */
export class CreditsClient {
  constructor(private readonly service: ServiceClient) {}

  /** Places (or, with a known reference, finds) a hold, so a failed attempt is retried. 402 becomes InsufficientBalanceError with both amounts. */
  async hold(req: HoldRequest): Promise<CreditHoldRecord> {
    const res = await this.service.request<CreditHoldRecord | InsufficientBalanceErrorBody>({ method: 'POST', path: '/credits/holds', body: req, idempotent: true });
    if (res.status === 200) return res.body as CreditHoldRecord;
    const error = (res.body ?? {}) as Partial<InsufficientBalanceErrorBody>;
    if (res.status === 402) throw new InsufficientBalanceError(error.message ?? 'Insufficient balance', error.available ?? 0, error.required ?? req.amount);
    if (res.status === 409) throw new ConflictError(`The credit hold ${req.reference} conflicts with an earlier one: ${error.message ?? ''}`.trim());
    throw this.service.unavailable(`status ${res.status} placing a hold: ${error.message ?? ''}`);
  }

  /** Captures `amount` and releases the rest, closing the hold; never retried (a repeat of a settle that went through is refused). 409 (already closed, or holding less) is returned, not thrown. */
  async settleFinal(holdId: string, userId: string, amount: number): Promise<CreditHoldRecord | SettleRefused> {
    const res = await this.service.request<CreditHoldRecord & { message?: string }>({
      method: 'POST',
      path: `/credits/holds/${encodeURIComponent(holdId)}/settle`,
      body: { userId, amount, final: true },
    });
    if (res.status === 200) return res.body;
    if (res.status === 409) return { refused: true, message: res.body?.message ?? 'conflict' };
    throw this.service.unavailable(`status ${res.status} settling hold ${holdId}: ${res.body?.message ?? ''}`);
  }
}

export const isRefused = (r: CreditHoldRecord | SettleRefused): r is SettleRefused => 'refused' in r;
