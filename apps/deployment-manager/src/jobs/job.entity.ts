import { Check, Column, Entity, Generated, Index, JoinColumn, ManyToOne, PrimaryColumn, Unique } from 'typeorm';
import { BlobEntity } from '../cas/blob.entity';
import type { JobState } from './state';

/**
 * A row of `jobs`. Properties carry the column names: the claims and guarded
 * updates written in SQL (job.repository.ts) answer `RETURNING *` rows, and
 * those and the entities read through TypeORM are one shape (JobRow).
 */
@Entity({ name: 'jobs' })
@Unique('jobs_seq_key', ['seq'])
@Unique('jobs_address_lower_key', ['address_lower'])
@Check('jobs_status_check', `status IN ('QUEUED', 'RUNNING', 'COMPLETED', 'FAILED', 'STOPPED')`)
@Check('jobs_price_per_second_check', 'price_per_second >= 0')
@Check('jobs_duration_seconds_check', 'duration_seconds > 0')
@Check('jobs_check', 'duration_seconds <= max_duration_seconds')
@Check('jobs_check1', `(status IN ('QUEUED', 'RUNNING')) = (finished_at IS NULL)`)
@Index('jobs_queue_idx', ['market_address', 'seq'], { where: `status = 'QUEUED'` })
// (user_id, seq DESC): TypeORM cannot declare a column's order, the migration owns the index.
@Index('jobs_user_idx', { synchronize: false })
@Index('jobs_node_idx', ['node_address'], { where: `status = 'RUNNING'` })
@Index('jobs_ends_idx', ['ends_at'], { where: `status = 'RUNNING'` })
@Index('jobs_unsettled_idx', ['finished_at'], { where: 'settled_at IS NULL AND finished_at IS NOT NULL' })
@Index('jobs_market_status_idx', ['market_address', 'status', 'seq'])
@Index('jobs_unacked_idx', ['started_at'], { where: `status = 'RUNNING' AND acked_at IS NULL` })
export class JobEntity {
  /** bigint as text (node-pg). */
  @Column({ type: 'bigint' })
  @Generated('increment')
  seq!: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'jobs_pkey' })
  address!: string;

  @Column({ type: 'text' })
  address_lower!: string;

  @Column({ type: 'text' })
  user_id!: string;

  @Column({ type: 'text' })
  poster_address!: string;

  @Column({ type: 'text' })
  market_address!: string;

  @Column({ type: 'text', nullable: true })
  node_address!: string | null;

  @Column({ type: 'text' })
  status!: JobState;

  @Column({ type: 'text', nullable: true })
  end_reason!: string | null;

  @Column({ type: 'text' })
  definition_cid!: string;

  @ManyToOne(() => BlobEntity, { onDelete: 'NO ACTION', nullable: false })
  @JoinColumn({ name: 'definition_cid', foreignKeyConstraintName: 'jobs_definition_cid_fkey' })
  definition_blob?: BlobEntity;

  /** Sealed (a string; ContentSeal); an object only in rows from before sealing. */
  @Column({ type: 'jsonb' })
  definition!: Record<string, unknown> | string;

  @Column({ type: 'boolean' })
  exposes!: boolean;

  @Column({ type: 'text', nullable: true })
  result_cid!: string | null;

  @ManyToOne(() => BlobEntity, { onDelete: 'NO ACTION' })
  @JoinColumn({ name: 'result_cid', foreignKeyConstraintName: 'jobs_result_cid_fkey' })
  result_blob?: BlobEntity | null;

  @Column({ type: 'bigint' })
  price_per_second!: string;

  @Column({ type: 'integer' })
  duration_seconds!: number;

  @Column({ type: 'integer' })
  max_duration_seconds!: number;

  @Column({ type: 'integer', nullable: true })
  billed_seconds!: number | null;

  @Column({ type: 'bigint', nullable: true })
  cost!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  settled_at!: Date | null;

  /** A sweeper's lease on the settlement. */
  @Column({ type: 'timestamptz', nullable: true })
  settle_attempt_at!: Date | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created_at!: Date;

  @Column({ type: 'timestamptz', nullable: true })
  started_at!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  ends_at!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  finished_at!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  last_seen_at!: Date | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  updated_at!: Date;

  /** When its node first named it after the claim (report, sync, finish); null: the claim is provisional. */
  @Column({ type: 'timestamptz', nullable: true })
  acked_at!: Date | null;
}
