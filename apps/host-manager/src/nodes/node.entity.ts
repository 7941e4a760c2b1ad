import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { NodeSpecs } from '@ocg/contracts';
import { MarketEntity } from '../markets/market.entity';

@Entity({ name: 'nodes' })
// The gateway finds nodes by the lowercased address: an expression index the migration owns.
@Index('nodes_address_lower_idx', { synchronize: false })
@Check('nodes_capacity_check', 'capacity >= 1')
export class NodeEntity {
  /** Base58 of the node's ed25519 public key. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'nodes_pkey' })
  address!: string;

  @Index('nodes_market_address_idx')
  @Column({ type: 'text', name: 'market_address' })
  marketAddress!: string;

  @ManyToOne(() => MarketEntity, { onDelete: 'RESTRICT', nullable: false })
  @JoinColumn({ name: 'market_address', foreignKeyConstraintName: 'nodes_market_address_fkey' })
  /** Present when loaded with `relations: { market: true }`, as every read here does. */
  market!: MarketEntity;

  @Column({ type: 'jsonb' })
  specs!: NodeSpecs;

  @Column({ type: 'text' })
  domain!: string;

  @Column({ type: 'text', name: 'ingress_url' })
  ingressUrl!: string;

  @Column({ type: 'timestamptz', name: 'registered_at', default: () => 'now()' })
  registeredAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at', default: () => 'now()' })
  updatedAt!: Date;

  /** The most jobs it runs at once, declared at registration; the claim enforces it. */
  @Column({ type: 'integer', default: 8 })
  capacity!: number;

  /** Set by an operator: claims, heartbeats and registrations are refused. */
  @Column({ type: 'timestamptz', name: 'disabled_at', nullable: true })
  disabledAt!: Date | null;

  /** Written at most once per NODE_LAST_SEEN_WRITE_SECONDS; presence in Redis is the live signal. */
  @Column({ type: 'timestamptz', name: 'last_seen_at', nullable: true })
  lastSeenAt!: Date | null;
}
