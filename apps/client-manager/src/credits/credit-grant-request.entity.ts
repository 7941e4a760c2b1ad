import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { GrantCreditsResponse } from '@ocg/contracts';

/** An Idempotency-Key of a grant, per caller: the request's hash and the answer. */
@Entity({ name: 'credit_grant_requests' })
export class CreditGrantRequestEntity {
  @PrimaryColumn({ type: 'text', name: 'caller_id', primaryKeyConstraintName: 'credit_grant_requests_pkey' })
  callerId!: string;

  @PrimaryColumn({ type: 'text', name: 'idempotency_key', primaryKeyConstraintName: 'credit_grant_requests_pkey' })
  idempotencyKey!: string;

  @Column({ type: 'text', name: 'request_hash' })
  requestHash!: string;

  /** `{}` while the grant's transaction is open. */
  @Column({ type: 'jsonb' })
  response!: GrantCreditsResponse | Record<string, never>;

  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' })
  createdAt!: Date;
}
