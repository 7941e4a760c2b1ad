import { decryptSecret, encryptSecret } from '@ocg/auth';

/**
 * Definitions and results at rest: sealed under the master key, the same
 * AES-256-GCM box as wallets and API keys. The aad names the row (a blob's
 * content id, a job's address), so a sealed value copied to another row
 * does not open. Content ids stay the ids of the plaintext bytes.
 */
export class ContentSeal {
  constructor(private readonly masterKey: Buffer) {}

  sealBlob(cid: string, bytes: Uint8Array): string {
    return encryptSecret(this.masterKey, Buffer.from(bytes), `blob:${cid}`);
  }

  openBlob(cid: string, sealed: string): Buffer {
    return decryptSecret(this.masterKey, sealed, `blob:${cid}`);
  }

  /** A job's normalized definition, as the JSON string the jobs.definition column holds. */
  sealDefinition(address: string, definition: object): string {
    return encryptSecret(this.masterKey, JSON.stringify(definition), `definition:${address}`);
  }

  /** The stored definition: a sealed string, or (a row from before sealing, until the start-up pass seals it) the object itself. */
  openDefinition(address: string, stored: unknown): Record<string, unknown> {
    if (typeof stored !== 'string') return stored as Record<string, unknown>;
    return JSON.parse(decryptSecret(this.masterKey, stored, `definition:${address}`).toString('utf8')) as Record<string, unknown>;
  }
}
