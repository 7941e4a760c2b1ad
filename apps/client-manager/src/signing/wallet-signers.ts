import { LRUCache } from 'lru-cache';
import type { DataSource } from 'typeorm';
import { WalletSigner } from '@ocg/auth';
import { NotFoundError } from '@ocg/http';
import { UserEntity, type UserRow } from '../entities';
import type { Secrets } from '../shared/secrets';

/**
 * One imported signer per user, least recently used out first: importing a
 * seed costs ~10x a signature, and opening it costs a database read and a
 * decryption. Wallets never change, so entries never go stale.
 */
export class WalletSigners {
  private readonly signers: LRUCache<string, WalletSigner>;

  constructor(
    private readonly db: DataSource,
    private readonly secrets: Secrets,
    capacity = 1000,
  ) {
    this.signers = new LRUCache({ max: capacity });
  }

  async forUserId(userId: string): Promise<WalletSigner> {
    const cached = this.take(userId);
    if (cached) return cached;
    const user = await this.db.getRepository(UserEntity).findOneBy({ id: userId });
    if (!user) throw new NotFoundError(`No user ${userId}`);
    return this.forUser(user);
  }

  forUser(user: Pick<UserRow, 'id' | 'walletSeedSealed'>): WalletSigner {
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
