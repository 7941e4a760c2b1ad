import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

@Entity({ name: 'thresholds' })
export class ThresholdEntity {
  @PrimaryGeneratedColumn('increment', { type: 'integer', primaryKeyConstraintName: 'thresholds_pkey' })
  id!: number;

  @Column({ type: 'text' })
  name!: string;

  /** A metric key, or null. */
  @Index('thresholds_metric_idx')
  @Column({ type: 'text', nullable: true })
  metric!: string | null;

  /** The benchmark slug it belongs to, or null ("group" is a reserved word in SQL). */
  @Index('thresholds_group_idx')
  @Column({ type: 'text', name: 'group_name', nullable: true })
  group!: string | null;

  @Column({ type: 'boolean', name: 'is_gating' })
  isGating!: boolean;
}
