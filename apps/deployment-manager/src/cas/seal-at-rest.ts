import type { Logger } from '@ocg/http';
import { rows, type Queryable } from '../db';
import type { ContentSeal } from './content-seal';

const BATCH = 100;

/**
 * Seals what was stored before sealing existed (ADR 0035): plaintext blobs
 * and job definitions. Runs at start, before the service answers, in
 * batches; SKIP LOCKED lets several instances starting together share the
 * work. Readers also accept a plaintext row, so an instance still on the
 * old code during a rolling start keeps working.
 */
export async function sealPlaintextAtRest(db: Queryable & { transaction<T>(run: (m: Queryable) => Promise<T>): Promise<T> }, seal: ContentSeal, logger?: Logger): Promise<{ blobs: number; definitions: number }> {
  let blobs = 0;
  let definitions = 0;
  for (;;) {
    const n = await db.transaction(async (m) => {
      const found = await rows<{ cid: string; bytes: Buffer }>(m, `SELECT cid, bytes FROM blobs WHERE sealed IS NULL LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`);
      for (const b of found) await m.query(`UPDATE blobs SET sealed = $2, bytes = NULL WHERE cid = $1`, [b.cid, seal.sealBlob(b.cid, b.bytes)]);
      return found.length;
    });
    blobs += n;
    if (n < BATCH) break;
  }
  for (;;) {
    const n = await db.transaction(async (m) => {
      const found = await rows<{ address: string; definition: object }>(
        m,
        `SELECT address, definition FROM jobs WHERE jsonb_typeof(definition) = 'object' LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`,
      );
      for (const j of found) await m.query(`UPDATE jobs SET definition = $2 WHERE address = $1`, [j.address, JSON.stringify(seal.sealDefinition(j.address, j.definition))]);
      return found.length;
    });
    definitions += n;
    if (n < BATCH) break;
  }
  if (blobs + definitions > 0) logger?.info({ blobs, definitions }, 'sealed content stored before sealing');
  return { blobs, definitions };
}
