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

  /** `<IPv4>:<port>` the node forwards to the container (ADR 0092); null unless the endpoint is ONLINE and forwarded. */
  @Column({ type: 'text', nullable: true })
  forward!: string | null;

  /** Every first label the node serves it at, lowercase, `host_label`'s among them; null in rows from before ADR 0092. */
  @Column({ type: 'text', array: true, nullable: true })
  hosts!: string[] | null;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  updated_at!: Date;
}
