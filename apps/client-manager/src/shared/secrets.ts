import { decryptSecret, encryptSecret } from '@ocg/auth';

/**
 * Sealing under the master key. The aad names the owning row, so a sealed
 * value copied onto another row fails to open.
 */
export class Secrets {
  constructor(private readonly masterKey: Buffer) {}

  sealApiKey(keyId: string, text: string): string {
    return encryptSecret(this.masterKey, text, `api-key:${keyId}`);
  }

  openApiKey(keyId: string, sealed: string): string {
    return decryptSecret(this.masterKey, sealed, `api-key:${keyId}`).toString('utf8');
  }

  sealWalletSeed(userId: string, seed: Buffer): string {
    return encryptSecret(this.masterKey, seed, `wallet:${userId}`);
  }

  openWalletSeed(userId: string, sealed: string): Buffer {
    return decryptSecret(this.masterKey, sealed, `wallet:${userId}`);
  }
}
