import type { Logger } from '@ocg/http';
import type { JobRepository } from '../jobs/job.repository';
import type { BlobRepository } from './blob.repository';
import type { ContentSeal } from './content-seal';

const BATCH = 100;

/**
 * Seals what was stored before sealing existed (ADR 0035): plaintext blobs
 * and job definitions. Runs at start, before the service answers, in
 * batches; SKIP LOCKED lets several instances starting together share the
 * work. Readers also accept a plaintext row, so an instance still on the
 * old code during a rolling start keeps working.
 */
export async function sealPlaintextAtRest(
  repos: { blobs: BlobRepository; jobs: JobRepository },
  seal: ContentSeal,
  logger?: Logger,
): Promise<{ blobs: number; definitions: number }> {
  const { blobs: blobRepo, jobs } = repos;
  let blobs = 0;
  let definitions = 0;
  for (;;) {
    const n = await blobRepo.transaction(async (m) => {
      const found = await blobRepo.plaintext(m, BATCH);
      for (const b of found) await blobRepo.seal(m, b.cid, seal.sealBlob(b.cid, b.bytes));
      return found.length;
    });
    blobs += n;
    if (n < BATCH) break;
  }
  for (;;) {
    const n = await jobs.transaction(async (m) => {
      const found = await jobs.plaintextDefinitions(m, BATCH);
      for (const j of found) await jobs.sealDefinition(m, j);
      return found.length;
    });
    definitions += n;
    if (n < BATCH) break;
  }
  if (blobs + definitions > 0) logger?.info({ blobs, definitions }, 'sealed content stored before sealing');
  return { blobs, definitions };
}
