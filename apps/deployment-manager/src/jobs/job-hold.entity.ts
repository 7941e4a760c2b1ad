import { Check, Column, Entity, Index, PrimaryColumn, Unique } from 'typeorm';

/**
 * A credit hold of a job (hold.repository.ts says what its states mean). No
 * foreign key to jobs: a job's first hold is placed before the job exists.
 */
@Entity({ name: 'job_holds' })
@Unique('job_holds_job_address_seq_key', ['job_address', 'seq'])
@Check('job_holds_amount_check', 'amount > 0')
@Check('job_holds_seconds_check', 'seconds > 0')
@Check('job_holds_state_check', `state IN ('placing', 'open', 'closed')`)
@Index('job_holds_loose_idx', ['updated_at'], { where: `state <> 'closed' AND NOT applied` })
export class JobHoldEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'job_holds_pkey' })
  reference!: string;

  @Column({ type: 'text' })
  job_address!: string;

  @Column({ type: 'integer' })
  seq!: number;

  @Column({ type: 'text' })
  user_id!: string;

  /** bigint as text (node-pg). */
  @Column({ type: 'bigint' })
  amount!: string;

  @Column({ type: 'integer' })
  seconds!: number;

  @Column({ type: 'text' })
  state!: 'placing' | 'open' | 'closed';

  @Column({ type: 'boolean', default: false })
  applied!: boolean;

  @Column({ type: 'text', nullable: true })
  hold_id!: string | null;

  @Column({ type: 'bigint', nullable: true })
  settle_amount!: string | null;

  @Column({ type: 'bigint', nullable: true })
  settled!: string | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created_at!: Date;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  updated_at!: Date;
}
