import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { BenchmarkOperation } from '@ocg/contracts';

@Entity({ name: 'benchmarks' })
export class BenchmarkEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'benchmarks_pkey' })
  slug!: string;

  @Column({ type: 'jsonb' })
  operation!: BenchmarkOperation;

  @Column({ type: 'jsonb' })
  requirements!: Record<string, unknown>[];

  /** Market addresses, in the order the template gave them. */
  @Column({ type: 'jsonb', name: 'supported_markets' })
  supportedMarkets!: string[];

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  @UpdateDateColumn({ type: 'timestamptz', name: 'updated_at' })
  updatedAt!: Date;
}
