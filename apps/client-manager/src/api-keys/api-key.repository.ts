import type { EntityManager } from 'typeorm';
import { DataSourceRepository } from '../shared/repository';
import { UserEntity } from '../users/user.entity';
import { ApiKeyEntity } from './api-key.entity';
import { DeletedBootstrapKeyEntity } from './deleted-bootstrap-key.entity';

/** A key with the public members of its user, as validation reads it. */
export type ApiKeyWithUser = ApiKeyEntity & { user: Omit<UserEntity, 'walletSeedSealed' | 'passwordHash'> };

/** Every statement against `api_keys` and `deleted_bootstrap_keys`. */
export class ApiKeyRepository extends DataSourceRepository {
  async insert(m: EntityManager, row: ApiKeyEntity): Promise<void> {
    await m.insert(ApiKeyEntity, row);
  }

  /** The user's keys but the operator's bootstrap key, oldest first. */
  listOwned(userId: string): Promise<ApiKeyEntity[]> {
    return this.db.manager.find(ApiKeyEntity, { where: { userId, bootstrap: false }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  findOwned(id: string, userId: string): Promise<ApiKeyEntity | null> {
    return this.db.manager.findOneBy(ApiKeyEntity, { id, userId });
  }

  findSystemKey(userId: string, m: EntityManager = this.db.manager): Promise<ApiKeyEntity | null> {
    return m.findOneBy(ApiKeyEntity, { userId, system: true });
  }

  findByLookupHash(m: EntityManager, lookupHash: string): Promise<ApiKeyEntity | null> {
    return m.findOneBy(ApiKeyEntity, { lookupHash });
  }

  /** The keys that count against MAX_API_KEYS_PER_USER: the system and bootstrap keys do not. */
  countOrdinary(m: EntityManager, userId: string): Promise<number> {
    return m.countBy(ApiKeyEntity, { userId, system: false, bootstrap: false });
  }

  async update(id: string, changes: Partial<ApiKeyEntity>, m: EntityManager = this.db.manager): Promise<void> {
    await m.update(ApiKeyEntity, { id }, changes);
  }

  async touchLastUsed(id: string, at: Date): Promise<void> {
    await this.db.manager.update(ApiKeyEntity, { id }, { lastUsedAt: at });
  }

  async remove(m: EntityManager, id: string, userId: string): Promise<void> {
    await m.delete(ApiKeyEntity, { id, userId });
  }

  async rememberDeletedBootstrap(m: EntityManager, lookupHash: string): Promise<void> {
    await m.createQueryBuilder().insert().into(DeletedBootstrapKeyEntity).values({ lookupHash }).orIgnore().execute();
  }

  findDeletedBootstrap(m: EntityManager, lookupHash: string): Promise<DeletedBootstrapKeyEntity | null> {
    return m.findOneBy(DeletedBootstrapKeyEntity, { lookupHash });
  }

  /** One round trip: the key and its user (never the user's sealed seed or password hash). */
  findWithUser(lookupHash: string): Promise<ApiKeyWithUser | null> {
    return this.db.manager
      .createQueryBuilder(ApiKeyEntity, 'k')
      .innerJoin('k.user', 'u')
      .select(['k.id', 'k.userId', 'k.status', 'k.scopes', 'k.expiresAt'])
      .addSelect(['u.id', 'u.legacyUserId', 'u.email', 'u.name', 'u.provider', 'u.providerUsername', 'u.generatedAddress', 'u.createdAt'])
      .where('k.lookupHash = :lookupHash', { lookupHash })
      .getOne() as Promise<ApiKeyWithUser | null>;
  }
}
