import { apiKeyLookupHash, generateWallet, randomId } from '@ocg/auth';
import { ALL_SCOPES, USER_SCOPES, type CreateUserRequest, type CreateUserResponse } from '@ocg/contracts';
import { ConflictError, type Logger } from '@ocg/http';
import type { ApiKeyRepository } from '../api-keys/api-key.repository';
import type { ApiKeyCache } from '../validation/api-key-cache';
import type { ApiKeyService } from '../api-keys/api-key.service';
import type { Clock } from '../shared/clock';
import type { Secrets } from '../shared/secrets';
import { hashPassword } from './passwords';
import type { UserEntity } from './user.entity';
import type { UserRepository } from './user.repository';
import { isUniqueViolation, toCreateResponse, toUserRecord } from '../shared/records';

/** Users and their wallets. Creating a user is an operator's act (`users:manage`). */
export class UserService {
  constructor(
    private readonly repo: UserRepository,
    private readonly keyRows: ApiKeyRepository,
    private readonly secrets: Secrets,
    private readonly keys: ApiKeyService,
    private readonly cache: ApiKeyCache,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /** The user, a fresh wallet, and the user's first API key holding every user scope. */
  async create(req: CreateUserRequest): Promise<CreateUserResponse> {
    const passwordHash = req.password === undefined ? null : await hashPassword(req.password);
    const user = this.newUser(req.email, req.name, passwordHash);
    try {
      return await this.repo.transaction(async (m) => {
        await this.repo.insert(m, user);
        const { row, text } = await this.keys.mint(m, { userId: user.id, name: 'default', scopes: USER_SCOPES });
        return { user: toUserRecord(user), apiKey: toCreateResponse(row, text) };
      });
    } catch (err) {
      if (isUniqueViolation(err, 'users_email_lower_key')) throw new ConflictError(`A user with email ${req.email} already exists`, [{ path: '/email', message: 'is taken' }]);
      throw err;
    }
  }

  async exists(userId: string): Promise<boolean> {
    return this.repo.exists(userId);
  }

  /**
   * ADMIN_API_KEY: makes sure the operator user exists and holds exactly that
   * key with every scope, so the first admin credential exists without a
   * chicken-and-egg step. The key is stored like any other (sealed + hash).
   */
  async ensureBootstrapAdmin(keyText: string, email: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.repo.transaction(async (m) => {
          const hash = apiKeyLookupHash(keyText);
          const key = await this.keyRows.findByLookupHash(m, hash);
          if (key) return this.widenToAllScopes(key.id, key.lookupHash, key.scopes);
          const deleted = await this.keyRows.findDeletedBootstrap(m, hash);
          if (deleted) {
            this.logger.warn(
              `the bootstrap admin key (ADMIN_API_KEY) was deleted at ${deleted.deletedAt.toISOString()} and stays deleted; set a new ADMIN_API_KEY to make another`,
            );
            return;
          }
          const found = await this.repo.findByEmail(email, m);
          const user = found ?? this.newUser(email, 'Operator', null);
          if (!found) await this.repo.insert(m, user);
          await this.keys.mint(m, { userId: user.id, name: 'bootstrap admin', scopes: ALL_SCOPES, text: keyText, bootstrap: true });
          this.logger.info({ userId: user.id }, 'bootstrap admin key ensured');
        });
      } catch (err) {
        // Another instance starting at the same moment won the insert: look again.
        if (!isUniqueViolation(err) || attempt >= 3) throw err;
      }
    }
  }

  /** New scopes join the catalog over time; the operator's key follows it. */
  private async widenToAllScopes(keyId: string, hash: string, scopes: string[]): Promise<void> {
    if (ALL_SCOPES.every((s) => scopes.includes(s))) return;
    await this.keyRows.update(keyId, { scopes: [...ALL_SCOPES], updatedAt: new Date(this.clock()) });
    await this.cache.invalidate(keyId, hash);
  }

  private newUser(email: string, name: string, passwordHash: string | null): UserEntity {
    const id = randomId('usr');
    const wallet = generateWallet();
    return {
      id,
      legacyUserId: null,
      email,
      name,
      provider: 'local',
      providerUsername: null,
      generatedAddress: wallet.address,
      walletSeedSealed: this.secrets.sealWalletSeed(id, wallet.secretKey),
      passwordHash,
      createdAt: new Date(this.clock()),
    };
  }
}
