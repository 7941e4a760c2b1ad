import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { JobEntity } from './job.entity';

/** A port a job's op exposes, as its node last reported it. */
@Entity({ name: 'job_endpoints' })
@Check('job_endpoints_status_check', `status IN ('PENDING', 'ONLINE', 'OFFLINE')`)
export class JobEndpointEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'job_endpoints_pkey' })
  job_address!: string;

  @ManyToOne(() => JobEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'job_address', foreignKeyConstraintName: 'job_endpoints_job_address_fkey' })
  job?: JobEntity;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'job_endpoints_pkey' })
  op_id!: string;

  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'job_endpoints_pkey' })
  port!: number;

  @Column({ type: 'text' })
  host_label!: string;

  @Column({ type: 'text' })
  status!: 'PENDING' | 'ONLINE' | 'OFFLINE';

  @Column({ type: 'timestamptz', default: () => 'now()' })
  updated_at!: Date;
}
