import { LRUCache } from 'lru-cache';
import { WalletSigner } from '@ocg/auth';
import { NotFoundError } from '@ocg/http';
import type { UserEntity } from '../users/user.entity';
import type { UserRepository } from '../users/user.repository';
import type { Secrets } from '../shared/secrets';

/**
 * One imported signer per user, least recently used out first: importing a
 * seed costs ~10x a signature, and opening it costs a database read and a
 * decryption. Wallets never change, so entries never go stale.
 */
export class WalletSigners {
  private readonly signers: LRUCache<string, WalletSigner>;

  constructor(
    private readonly users: UserRepository,
    private readonly secrets: Secrets,
    capacity = 1000,
  ) {
    this.signers = new LRUCache({ max: capacity });
  }

  async forUserId(userId: string): Promise<WalletSigner> {
    const cached = this.take(userId);
    if (cached) return cached;
    const user = await this.users.findById(userId);
    if (!user) throw new NotFoundError(`No user ${userId}`);
    return this.forUser(user);
  }

  forUser(user: Pick<UserEntity, 'id' | 'walletSeedSealed'>): WalletSigner {
    const cached = this.take(user.id);
    if (cached) return cached;
    const signer = new WalletSigner(this.secrets.openWalletSeed(user.id, user.walletSeedSealed));
    this.signers.set(user.id, signer);
    return signer;
  }

  private take(userId: string): WalletSigner | undefined {
    return this.signers.get(userId);
  }
}
