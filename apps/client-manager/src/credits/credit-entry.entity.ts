import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { bigintAsNumber } from '../shared/bigint-column';
import { CreditTransactionEntity } from './credit-transaction.entity';

/**
 * One side of a ledger transaction, on an account (`user:<id>:available|held|spent`, `platform:grants`).
 * The deferred constraint trigger credit_entries_sum_to_zero (every transaction sums to zero at commit)
 * is beyond TypeORM: the migration owns it.
 */
@Entity({ name: 'credit_entries' })
@Check('credit_entries_amount_check', 'amount <> 0')
export class CreditEntryEntity {
  @PrimaryGeneratedColumn('increment', { type: 'bigint', primaryKeyConstraintName: 'credit_entries_pkey' })
  id!: string;

  @Index('credit_entries_transaction_idx')
  @Column({ type: 'text', name: 'transaction_id' })
  transactionId!: string;

  @ManyToOne(() => CreditTransactionEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'transaction_id', foreignKeyConstraintName: 'credit_entries_transaction_id_fkey' })
  transaction?: CreditTransactionEntity;

  @Index('credit_entries_account_idx')
  @Column({ type: 'text' })
  account!: string;

  @Column({ type: 'bigint', transformer: bigintAsNumber })
  amount!: number;
}
