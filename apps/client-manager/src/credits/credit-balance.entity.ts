import { Check, Column, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';
import { bigintAsNumber } from '../shared/bigint-column';

/** One row per user, created at the first money transaction; every transaction of the user locks it. */
@Entity({ name: 'credit_balances' })
@Check('credit_balances_available_check', 'available >= 0')
@Check('credit_balances_held_check', 'held >= 0')
@Check('credit_balances_spent_check', 'spent >= 0')
export class CreditBalanceEntity {
  @PrimaryColumn({ type: 'text', name: 'user_id', primaryKeyConstraintName: 'credit_balances_pkey' })
  userId!: string;

  @OneToOne(() => UserEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'credit_balances_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'bigint', default: 0, transformer: bigintAsNumber })
  available!: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintAsNumber })
  held!: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintAsNumber })
  spent!: number;

  @Column({ type: 'timestamptz', name: 'updated_at', default: () => 'now()' })
  updatedAt!: Date;
}
