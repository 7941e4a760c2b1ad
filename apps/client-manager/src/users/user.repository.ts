import type { EntityManager } from 'typeorm';
import { DataSourceRepository } from '../shared/repository';
import { UserEntity } from './user.entity';

/** Every statement against `users`. */
export class UserRepository extends DataSourceRepository {
  async insert(m: EntityManager, user: UserEntity): Promise<void> {
    await m.insert(UserEntity, user);
  }

  findById(id: string): Promise<UserEntity | null> {
    return this.db.manager.findOneBy(UserEntity, { id });
  }

  exists(id: string): Promise<boolean> {
    return this.db.manager.existsBy(UserEntity, { id });
  }

  /** Emails are unique case-insensitively (the migration's lower(email) index). */
  findByEmail(email: string, m: EntityManager = this.db.manager): Promise<UserEntity | null> {
    return m.createQueryBuilder(UserEntity, 'u').where('lower(u.email) = lower(:email)', { email }).getOne();
  }

  /** Takes the user's row FOR UPDATE: work on the user's keys queues here, one at a time. */
  async lock(m: EntityManager, id: string): Promise<void> {
    await m.createQueryBuilder(UserEntity, 'u').select('u.id').where('u.id = :id', { id }).setLock('pessimistic_write').getRawOne();
  }
}
