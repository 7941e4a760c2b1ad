import type { EntityManager } from 'typeorm';
import type { UploadContentRequest, UploadContentResponse } from '@ocg/contracts';
import { NotFoundError, PayloadTooLargeError, QuotaExceededError, ValidationError } from '@ocg/http';
import type { RateLimiter } from '@ocg/redis';
import type { BlobRepository } from './blob.repository';
import { cidOf, isRawSha256Cid } from './cid';
import type { ContentSeal } from './content-seal';

export interface CasLimits {
  /** Largest single content, in bytes. */
  maxBytes: number;
  /** Uploads a user may keep that no job of theirs holds (MAX_UPLOADS_PER_USER). */
  maxUploadsPerUser: number;
  /** Their bytes together (MAX_UPLOAD_BYTES_PER_USER). */
  maxUploadBytesPerUser: number;
}

/** Content sealed at rest under its id (ADR 0035), as a blob row holds it. */
export interface SealedBlob {
  cid: string;
  sealed: string;
  size: number;
}

/**
 * The content-addressed store: bytes by the id IPFS would give them. Writing
 * the same bytes twice is one row; an id names its bytes forever. The bytes
 * are sealed at rest (ContentSeal); the id is still that of the plaintext.
 *
 * Reading is per user: a blob is readable by whoever uploaded it and by the
 * poster of a job it defines or holds the result of. A content id is only as
 * secret as the content is unguessable, and definitions carry secrets (image
 * registry passwords, env), so a leaked id must not be enough: anyone else
 * gets the same 404 as for an id that does not exist.
 *
 * Uploads no job holds yet count against the uploader's quota and are
 * collected after the retention period (UploadCollector); a job's post or
 * result takes them off the quota.
 */
export class CasService {
  constructor(
    private readonly blobs: BlobRepository,
    private readonly limits: CasLimits,
    private readonly seal: ContentSeal,
    /** Uploads per user: each is hashed, sealed and stored. */
    private readonly uploadLimit: RateLimiter,
  ) {}

  async upload(userId: string, req: UploadContentRequest): Promise<UploadContentResponse> {
    await this.uploadLimit.enforce(userId, `uploads from user ${userId}`);
    const bytes = decode(req);
    const cid = await this.blobs.transaction(async (m) => {
      // One upload per user at a time: the quota check and the insert must not interleave.
      await this.blobs.lockUploads(m, userId);
      const cid = cidOf(bytes);
      await this.checkQuota(m, userId, cid, bytes.length);
      await this.store(m, cid, bytes);
      await this.blobs.addUploader(m, cid, userId);
      return cid;
    });
    return { cid, size: bytes.length };
  }

  /** Stores the bytes (once) and lets `reader` read them, held by a job of theirs (off the upload quota). */
  async put(m: EntityManager, bytes: Uint8Array, reader: string): Promise<string> {
    const blob = this.sealedBlob(bytes);
    await this.blobs.storeForReader(m, blob.cid, blob.sealed, blob.size, reader);
    return blob.cid;
  }

  /** The bytes as stored, for a statement that stores them along with other rows (a posted job's definition). */
  sealedBlob(bytes: Uint8Array): SealedBlob {
    const cid = cidOf(bytes);
    return { cid, sealed: this.sealed(cid, bytes), size: bytes.length };
  }

  /** The bytes, when `userId` may read them; otherwise the 404 of an unknown id. */
  async read(cid: string, userId: string): Promise<Buffer> {
    checkCid(cid);
    const blob = await this.blobs.readable(cid, userId);
    if (!blob) throw new NotFoundError(`No content with the id ${cid}`);
    const { bytes, sealed } = blob;
    // Plaintext only until the start-up pass sealed it.
    return sealed !== null ? this.seal.openBlob(cid, sealed) : (bytes ?? Buffer.alloc(0));
  }

  private async store(m: EntityManager, cid: string, bytes: Uint8Array): Promise<void> {
    await this.blobs.store(m, cid, this.sealed(cid, bytes), bytes.length);
  }

  private sealed(cid: string, bytes: Uint8Array): string {
    if (bytes.length > this.limits.maxBytes) throw new PayloadTooLargeError(`content of ${bytes.length} bytes is over the ${this.limits.maxBytes}-byte limit`);
    return this.seal.sealBlob(cid, bytes);
  }

  private async checkQuota(m: EntityManager, userId: string, cid: string, size: number): Promise<void> {
    const held = await this.blobs.heldUploads(m, userId, cid);
    if (held.again) return; // the same bytes again: nothing new is kept
    const { maxUploadsPerUser: maxCount, maxUploadBytesPerUser: maxBytes } = this.limits;
    if (Number(held.count) + 1 > maxCount) {
      throw new QuotaExceededError(`Upload limit reached: ${maxCount} uploads that no job uses yet (MAX_UPLOADS_PER_USER); post jobs with them or wait until they are collected`, [
        { path: '/content', message: `over the limit of ${maxCount} uploads per user` },
      ]);
    }
    if (Number(held.bytes ?? 0) + size > maxBytes) {
      throw new QuotaExceededError(`Upload limit reached: ${maxBytes} bytes of uploads that no job uses yet (MAX_UPLOAD_BYTES_PER_USER)`, [
        { path: '/content', message: `over the limit of ${maxBytes} bytes of uploads per user` },
      ]);
    }
  }
}

function checkCid(cid: string): void {
  if (!isRawSha256Cid(cid)) throw new ValidationError(`"${cid}" is not a CIDv1 raw sha2-256 content id`, [{ path: '/cid', message: 'expected a content id such as bafkrei…' }]);
}

function decode(req: UploadContentRequest): Buffer {
  if ((req.encoding ?? 'utf8') === 'utf8') return Buffer.from(req.content, 'utf8');
  const bytes = Buffer.from(req.content, 'base64');
  // Node's decoder skips what is not base64; a lossy decode must not store other bytes than were meant.
  if (bytes.toString('base64').replace(/=+$/, '') !== req.content.replace(/\s+/g, '').replace(/=+$/, '')) {
    throw new ValidationError('Validation failed: /content: is not base64', [{ path: '/content', message: 'is not base64' }]);
  }
  return bytes;
}
