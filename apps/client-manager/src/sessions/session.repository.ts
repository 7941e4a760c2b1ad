import { LessThanOrEqual } from 'typeorm';
import { DataSourceRepository } from '../shared/repository';
import type { UserEntity } from '../users/user.entity';
import { SessionEntity } from './session.entity';

/** A live session with its user (never the user's password hash). */
export type SessionWithUser = SessionEntity & { user: Omit<UserEntity, 'passwordHash'> };

/** Every statement against `sessions`. */
export class SessionRepository extends DataSourceRepository {
  async insert(session: SessionEntity): Promise<void> {
    await this.db.manager.insert(SessionEntity, session);
  }

  async removeExpired(userId: string, now: Date): Promise<void> {
    await this.db.manager.delete(SessionEntity, { userId, expiresAt: LessThanOrEqual(now) });
  }

  async remove(handleHash: string): Promise<void> {
    await this.db.manager.delete(SessionEntity, { handleHash });
  }

  /** One round trip: the session, if live at `now`, and its user. */
  findLiveWithUser(handleHash: string, now: Date): Promise<SessionWithUser | null> {
    return this.db.manager
      .createQueryBuilder(SessionEntity, 's')
      .innerJoin('s.user', 'u')
      .select(['s.handleHash', 's.expiresAt'])
      .addSelect(['u.id', 'u.legacyUserId', 'u.email', 'u.name', 'u.provider', 'u.providerUsername', 'u.generatedAddress', 'u.walletSeedSealed', 'u.createdAt'])
      .where('s.handleHash = :handleHash AND s.expiresAt > :now', { handleHash, now })
      .getOne() as Promise<SessionWithUser | null>;
  }
}
