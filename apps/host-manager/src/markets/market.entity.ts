import { Check, Column, CreateDateColumn, Entity, Index, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { MarketContainerPolicyUpdate, MarketJobLimitsUpdate, WarmResource } from '@ocg/contracts';
import { bigintAsNumber } from './transformers';

@Entity({ name: 'markets' })
// Unique on lower(name), which TypeORM cannot express: the migration owns it.
@Index('markets_name_lower_key', { synchronize: false })
@Check('markets_price_check', 'price_per_second >= 0')
@Check('markets_duration_check', 'default_duration_seconds > 0 AND default_duration_seconds <= max_duration_seconds')
export class MarketEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'markets_pkey' })
  address!: string;

  @Column({ type: 'text' })
  name!: string;

  /** Credit units per second (1 credit = 1,000,000 units). */
  @Column({ type: 'bigint', name: 'price_per_second', transformer: bigintAsNumber })
  pricePerSecond!: number;

  @Column({ type: 'boolean', name: 'gpu_required' })
  gpuRequired!: boolean;

  @Column({ type: 'integer', name: 'default_duration_seconds' })
  defaultDurationSeconds!: number;

  @Column({ type: 'integer', name: 'max_duration_seconds' })
  maxDurationSeconds!: number;

  /** Only what an operator set; the rest takes DEFAULT_JOB_LIMITS. */
  @Column({ type: 'jsonb', name: 'job_limits', default: {} })
  jobLimits!: MarketJobLimitsUpdate;

  /** Only what an operator set; the rest takes DEFAULT_CONTAINER_POLICY. */
  @Column({ type: 'jsonb', name: 'container_policy', default: {} })
  containerPolicy!: MarketContainerPolicyUpdate;

  /** Resource items (no credentials) the market's nodes keep warm. */
  @Column({ type: 'jsonb', name: 'warm_resources', default: [] })
  warmResources!: WarmResource[];

  /** SHA-256 (hex) of the join token; the token itself is never stored. */
  @Column({ type: 'text', name: 'join_token_hash' })
  joinTokenHash!: string;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
