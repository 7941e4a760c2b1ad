import { EntitySchema } from 'typeorm';
import type { UserRow } from '../users/user.entity';

export interface SessionRow {
  /** SHA-256 of the handle: a leaked table holds no usable cookie. */
  handleHash: string;
  userId: string;
  expiresAt: Date;
  createdAt: Date;
}

export const SessionEntity = new EntitySchema<SessionRow & { user?: UserRow }>({
  name: 'Session',
  tableName: 'sessions',
  columns: {
    handleHash: { type: 'char', length: 64, name: 'handle_hash', primary: true },
    userId: { type: 'text', name: 'user_id' },
    expiresAt: { type: 'timestamptz', name: 'expires_at' },
    createdAt: { type: 'timestamptz', name: 'created_at', default: () => 'now()' },
  },
  // Declares the foreign key to users; the relation is never loaded.
  relations: {
    user: { type: 'many-to-one', target: 'User', joinColumn: { name: 'user_id', foreignKeyConstraintName: 'sessions_user_id_fkey' }, onDelete: 'CASCADE' },
  },
  indices: [{ name: 'sessions_user_id_idx', columns: ['userId'] }],
});
