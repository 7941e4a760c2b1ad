import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { JobLogLine, NodeResourceProgress } from '@ocg/contracts';
import { JobEntity } from './job.entity';

/** An op of a job as its node last reported it. */
@Entity({ name: 'job_ops' })
@Check('job_ops_status_check', `status IN ('pending', 'running', 'completed', 'failed', 'stopped')`)
export class JobOpEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'job_ops_pkey' })
  job_address!: string;

  @ManyToOne(() => JobEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'job_address', foreignKeyConstraintName: 'job_ops_job_address_fkey' })
  job?: JobEntity;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'job_ops_pkey' })
  op_id!: string;

  @Column({ type: 'integer' })
  op_index!: number;

  @Column({ type: 'text', nullable: true })
  grp!: string | null;

  @Column({ type: 'text' })
  status!: 'pending' | 'running' | 'completed' | 'failed' | 'stopped';

  @Column({ type: 'integer', nullable: true })
  exit_code!: number | null;

  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  @Column({ type: 'integer', default: 0 })
  restarts!: number;

  @Column({ type: 'timestamptz', nullable: true })
  started_at!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  ended_at!: Date | null;

  /** The last lines of output the node reported; null before any. */
  @Column({ type: 'jsonb', nullable: true })
  log_tail!: JobLogLine[] | null;

  /** `fetching resources` while the op's resources download; null otherwise. */
  @Column({ type: 'text', nullable: true })
  activity!: 'fetching resources' | null;

  /** Its remote resources' fetch progress as the node last reported it; null for an op without resources. */
  @Column({ type: 'jsonb', nullable: true })
  resources!: NodeResourceProgress[] | null;
}
