import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from '../users/user.entity';

@Entity({ name: 'sessions' })
export class SessionEntity {
  /** SHA-256 of the handle: a leaked table holds no usable cookie. */
  @PrimaryColumn({ type: 'char', length: 64, name: 'handle_hash', primaryKeyConstraintName: 'sessions_pkey' })
  handleHash!: string;

  @Index('sessions_user_id_idx')
  @Column({ type: 'text', name: 'user_id' })
  userId!: string;

  /** Loaded only by session validation (the session and its user in one round trip). */
  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE', nullable: false })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'sessions_user_id_fkey' })
  user?: UserEntity;

  @Column({ type: 'timestamptz', name: 'expires_at' })
  expiresAt!: Date;

  @Column({ type: 'timestamptz', name: 'created_at', default: () => 'now()' })
  createdAt!: Date;
}
