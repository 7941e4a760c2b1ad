import type { EntityManager } from 'typeorm';
import { BaseRepository } from '../base.repository';
import { BlobReaderEntity } from './blob-reader.entity';
import { BlobEntity } from './blob.entity';

/** What a user's uploads that no job holds yet amount to (the upload quota), and whether `cid` is one of them. */
export interface HeldUploads {
  count: string;
  bytes: string | null;
  again: boolean;
}

/** The statements of the content-addressed store: blobs and who may read them. */
export class BlobRepository extends BaseRepository {
  /** One upload per user at a time: the quota check and the insert must not interleave. */
  async lockUploads(m: EntityManager, userId: string): Promise<void> {
    // SQL: an advisory lock, which TypeORM has no word for.
    await m.query(`SELECT pg_advisory_xact_lock(hashtext('cas-upload:' || $1))`, [userId]);
  }

  /** Stores the sealed bytes under their id, once. */
  async store(m: EntityManager, cid: string, sealed: string, size: number): Promise<void> {
    await m.createQueryBuilder().insert().into(BlobEntity).values({ cid, sealed, size }).orUpdate([], ['cid']).updateEntity(false).execute();
  }

  /** `userId` uploaded the blob: a reader whose upload counts against their quota (kept as it was when they already read it). */
  async addUploader(m: EntityManager, cid: string, userId: string): Promise<void> {
    await m
      .createQueryBuilder()
      .insert()
      .into(BlobReaderEntity)
      .values({ cid, user_id: userId, uploaded_at: () => 'now()' })
      .orIgnore()
      .updateEntity(false)
      .execute();
  }

  /** Stores the sealed bytes under their id (once) and lets `userId` read them, held by a job of theirs: off the upload quota. */
  async storeForReader(m: EntityManager, cid: string, sealed: string, size: number, userId: string): Promise<void> {
    // SQL: both inserts in one statement (a data-modifying WITH), each with its own conflict rule; the reader's
    // reference to the blob is checked at the statement's end, when the blob is there.
    await m.query(
      `WITH blob AS (INSERT INTO blobs (cid, sealed, size) VALUES ($1, $2, $3) ON CONFLICT (cid) DO NOTHING)
       INSERT INTO blob_readers (cid, user_id, uploaded_at) VALUES ($1, $4, NULL) ON CONFLICT (cid, user_id) DO UPDATE SET uploaded_at = EXCLUDED.uploaded_at`,
      [cid, sealed, size, userId],
    );
  }

  /** The blob, when `userId` may read it. */
  async readable(cid: string, userId: string): Promise<Pick<BlobEntity, 'bytes' | 'sealed'> | undefined> {
    const found = await this.db.manager
      .createQueryBuilder(BlobEntity, 'b')
      .select(['b.cid', 'b.bytes', 'b.sealed'])
      .innerJoin(BlobReaderEntity, 'r', 'r.cid = b.cid AND r.user_id = :userId', { userId })
      .where('b.cid = :cid', { cid })
      .getOne();
    return found ?? undefined;
  }

  async heldUploads(m: EntityManager, userId: string, cid: string): Promise<HeldUploads> {
    const held = await m
      .createQueryBuilder(BlobReaderEntity, 'r')
      .select('count(*)', 'count')
      .addSelect('sum(b.size)', 'bytes')
      .addSelect('bool_or(r.cid = :cid)', 'again')
      .innerJoin(BlobEntity, 'b', 'b.cid = r.cid')
      .where('r.user_id = :userId AND r.uploaded_at IS NOT NULL', { userId, cid })
      .getRawOne<HeldUploads>();
    if (!held) throw new Error('an aggregate answered no row');
    return held;
  }

  /** Blobs stored before sealing existed (ADR 0035), locked for sealing; SKIP LOCKED shares them among instances starting together. */
  async plaintext(m: EntityManager, limit: number): Promise<{ cid: string; bytes: Buffer }[]> {
    // Not sealed means the bytes are there (blobs_stored_check).
    return (await m
      .createQueryBuilder(BlobEntity, 'b')
      .select(['b.cid', 'b.bytes'])
      .where('b.sealed IS NULL')
      .limit(limit)
      .setLock('pessimistic_write')
      .setOnLocked('skip_locked')
      .getMany()) as { cid: string; bytes: Buffer }[];
  }

  async seal(m: EntityManager, cid: string, sealed: string): Promise<void> {
    await m.update(BlobEntity, { cid }, { sealed, bytes: null });
  }

  /** Forgets uploads older than `retentionSeconds` that no job of their uploader holds; the ids whose reader went. */
  async collectUploads(retentionSeconds: number): Promise<string[]> {
    const gone = await this.db.manager
      .createQueryBuilder()
      .delete()
      .from(BlobReaderEntity)
      .where('uploaded_at < now() - make_interval(secs => :retentionSeconds)', { retentionSeconds })
      .andWhere(`NOT EXISTS (SELECT 1 FROM jobs j WHERE j.user_id = blob_readers.user_id AND (j.definition_cid = blob_readers.cid OR j.result_cid = blob_readers.cid))`)
      .returning('cid')
      .execute();
    return (gone.raw as { cid: string }[]).map((r) => r.cid);
  }

  /** Deletes blobs older than `retentionSeconds` that no reader and no job refers to; their ids. */
  async collectBlobs(retentionSeconds: number): Promise<string[]> {
    const gone = await this.db.manager
      .createQueryBuilder()
      .delete()
      .from(BlobEntity)
      .where(`NOT EXISTS (SELECT 1 FROM blob_readers r WHERE r.cid = blobs.cid)`)
      .andWhere(`NOT EXISTS (SELECT 1 FROM jobs j WHERE j.definition_cid = blobs.cid OR j.result_cid = blobs.cid)`)
      .andWhere('created_at < now() - make_interval(secs => :retentionSeconds)', { retentionSeconds })
      .returning('cid')
      .execute();
    return (gone.raw as { cid: string }[]).map((r) => r.cid);
  }
}
