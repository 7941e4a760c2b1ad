import type { DataSource, EntityManager } from 'typeorm';
import type { UploadContentRequest, UploadContentResponse } from '@ocg/contracts';
import { NotFoundError, PayloadTooLargeError, ValidationError } from '@ocg/http';
import { cidOf, isRawSha256Cid } from './cid';

type Queryable = Pick<EntityManager, 'query'>;

/**
 * The content-addressed store: bytes by the id IPFS would give them. Writing
 * the same bytes twice is one row; an id names its bytes forever.
 *
 * Reading is per user: a blob is readable by whoever uploaded it and by the
 * poster of a job it defines or holds the result of. A content id is only as
 * secret as the content is unguessable, and definitions carry secrets (image
 * registry passwords, env), so a leaked id must not be enough: anyone else
 * gets the same 404 as for an id that does not exist.
 */
export class CasService {
  constructor(
    private readonly db: DataSource,
    private readonly maxBytes: number,
  ) {}

  async upload(userId: string, req: UploadContentRequest): Promise<UploadContentResponse> {
    const bytes = decode(req);
    const cid = await this.put(bytes, userId);
    return { cid, size: bytes.length };
  }

  /** Stores the bytes (once) and lets `reader` read them. */
  async put(bytes: Uint8Array, reader: string, q: Queryable = this.db): Promise<string> {
    if (bytes.length > this.maxBytes) throw new PayloadTooLargeError(`content of ${bytes.length} bytes is over the ${this.maxBytes}-byte limit`);
    const cid = cidOf(bytes);
    await q.query(`INSERT INTO blobs (cid, bytes, size) VALUES ($1, $2, $3) ON CONFLICT (cid) DO NOTHING`, [cid, Buffer.from(bytes), bytes.length]);
    await q.query(`INSERT INTO blob_readers (cid, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [cid, reader]);
    return cid;
  }

  /** The bytes, when `userId` may read them; otherwise the 404 of an unknown id. */
  async read(cid: string, userId: string): Promise<Buffer> {
    checkCid(cid);
    const rows: { bytes: Buffer }[] = await this.db.query(`SELECT b.bytes FROM blobs b JOIN blob_readers r ON r.cid = b.cid AND r.user_id = $2 WHERE b.cid = $1`, [cid, userId]);
    if (rows.length === 0) throw new NotFoundError(`No content with the id ${cid}`);
    return rows[0].bytes;
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
