import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';
import { bigintAsNumber } from '../shared/bigint-column';

/** Credits set aside for one job (by its reference) until settled or released. */
@Entity({ name: 'credit_holds' })
@Check('credit_holds_amount_check', 'amount > 0')
@Check('credit_holds_settled_check', 'settled >= 0')
@Check('credit_holds_released_check', 'released >= 0')
@Check('credit_holds_status_check', `status IN ('open', 'closed')`)
@Check('credit_holds_check', 'settled + released <= amount')
export class CreditHoldEntity {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'credit_holds_pkey' })
  id!: string;

  @Index('credit_holds_user_id_idx')
  @Column({ type: 'text', name: 'user_id' })
  userId!: string;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'credit_holds_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'text', unique: true })
  reference!: string;

  @Column({ type: 'bigint', transformer: bigintAsNumber })
  amount!: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintAsNumber })
  settled!: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintAsNumber })
  released!: number;

  @Column({ type: 'text' })
  status!: 'open' | 'closed';

  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @Column({ type: 'timestamptz', name: 'updated_at', default: () => 'now()' })
  updatedAt!: Date;
}
