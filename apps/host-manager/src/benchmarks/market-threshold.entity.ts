import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { MarketEntity } from '../markets/market.entity';
import { ThresholdEntity } from './threshold.entity';

@Entity({ name: 'market_thresholds' })
// One link per threshold and market (NULL, the global link, included): an expression index the migration owns.
@Index('market_thresholds_link_key', { synchronize: false })
export class MarketThresholdEntity {
  @PrimaryGeneratedColumn('increment', { type: 'integer', primaryKeyConstraintName: 'market_thresholds_pkey' })
  id!: number;

  @Column({ type: 'integer', name: 'threshold_id' })
  thresholdId!: number;

  @ManyToOne(() => ThresholdEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'threshold_id', foreignKeyConstraintName: 'market_thresholds_threshold_id_fkey' })
  threshold?: ThresholdEntity;

  /** null: a global link, applying to every market. */
  @Index('market_thresholds_market_address_idx')
  @Column({ type: 'text', name: 'market_address', nullable: true })
  marketAddress!: string | null;

  @ManyToOne(() => MarketEntity, { onDelete: 'RESTRICT', nullable: true })
  @JoinColumn({ name: 'market_address', foreignKeyConstraintName: 'market_thresholds_market_address_fkey' })
  market?: MarketEntity | null;

  /** A JsonLogic rule over metric values (stored as given; its shape is checked on apply). */
  @Column({ type: 'jsonb', name: 'json_logic' })
  jsonLogic!: Record<string, unknown>;

  @Column({ type: 'boolean', name: 'is_optional' })
  isOptional!: boolean;
}
