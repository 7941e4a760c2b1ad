import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An idempotency key of job extensions, with the hold it pays with and whether it took effect. */
@Entity({ name: 'job_extend_requests' })
export class JobExtendRequestEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'job_extend_requests_pkey' })
  user_id!: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'job_extend_requests_pkey' })
  idempotency_key!: string;

  @Column({ type: 'text' })
  request_hash!: string;

  @Column({ type: 'text' })
  job_address!: string;

  @Column({ type: 'text', nullable: true })
  hold_reference!: string | null;

  @Column({ type: 'boolean', default: false })
  completed!: boolean;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created_at!: Date;
}
