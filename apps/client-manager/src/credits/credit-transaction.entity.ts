import { Check, Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';
import { CreditHoldEntity } from './credit-hold.entity';

/** One money operation; its entries (credit_entries) sum to zero. */
@Entity({ name: 'credit_transactions' })
@Check('credit_transactions_kind_check', `kind IN ('grant', 'hold', 'settle', 'release')`)
export class CreditTransactionEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'credit_transactions_pkey' })
  id!: string;

  @Column({ type: 'text' })
  kind!: 'grant' | 'hold' | 'settle' | 'release';

  @Column({ type: 'text', name: 'user_id' })
  userId!: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'credit_transactions_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'text', name: 'hold_id', nullable: true })
  holdId!: string | null;

  @ManyToOne(() => CreditHoldEntity, { nullable: true })
  @JoinColumn({ name: 'hold_id', foreignKeyConstraintName: 'credit_transactions_hold_id_fkey' })
  hold?: CreditHoldEntity | null;

  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' })
  createdAt!: Date;
}
