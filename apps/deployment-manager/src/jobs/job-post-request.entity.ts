import { Column, Entity, PrimaryColumn } from 'typeorm';

/** An idempotency key of job posts. No foreign key to jobs: the key is taken before the job exists. */
@Entity({ name: 'job_post_requests' })
export class JobPostRequestEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'job_post_requests_pkey' })
  user_id!: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'job_post_requests_pkey' })
  idempotency_key!: string;

  @Column({ type: 'text' })
  request_hash!: string;

  @Column({ type: 'text' })
  job_address!: string;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created_at!: Date;
}
