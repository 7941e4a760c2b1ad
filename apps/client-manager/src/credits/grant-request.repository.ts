import type { EntityManager } from 'typeorm';
import type { GrantCreditsResponse } from '@ocg/contracts';
import { DataSourceRepository } from '../shared/repository';
import { CreditGrantRequestEntity } from './credit-grant-request.entity';

/** Every statement against `credit_grant_requests` (Idempotency-Keys of grants, per caller). */
export class GrantRequestRepository extends DataSourceRepository {
  /** Takes the key for this request; false when an earlier request holds it (a concurrent one: after its commit). */
  async reserve(m: EntityManager, callerId: string, idempotencyKey: string, requestHash: string): Promise<boolean> {
    const taken = await m
      .createQueryBuilder()
      .insert()
      .into(CreditGrantRequestEntity)
      .values({ callerId, idempotencyKey, requestHash, response: {} })
      .orIgnore()
      .returning(['callerId'])
      .updateEntity(false)
      .execute();
    return (taken.raw as unknown[]).length === 1;
  }

  async answer(m: EntityManager, callerId: string, idempotencyKey: string, response: GrantCreditsResponse): Promise<void> {
    await m.update(CreditGrantRequestEntity, { callerId, idempotencyKey }, { response });
  }

  find(callerId: string, idempotencyKey: string): Promise<CreditGrantRequestEntity | null> {
    return this.db.manager.findOneBy(CreditGrantRequestEntity, { callerId, idempotencyKey });
  }
}
