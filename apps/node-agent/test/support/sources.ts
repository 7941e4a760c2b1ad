/** Drives a ResourceSource as the fetch stage does: resolve, then open every file. */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { ResourceError, type RemoteFile, type ResourceSource } from '../../src/resources/source';

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** Every listed file's bytes by path, each checked against the size and sha256 its source listed. */
export async function fetchAll(source: ResourceSource): Promise<{ key: string[]; files: RemoteFile[]; bytes: Map<string, Buffer> }> {
  const signal = AbortSignal.timeout(20_000);
  const { key, files } = await source.resolve(signal);
  const bytes = new Map<string, Buffer>();
  for (const file of files) {
    const body = await readAll(await source.open(file, 0, signal));
    if (file.size !== undefined && body.length !== file.size) throw new Error(`${file.path}: ${body.length} bytes, listed ${file.size}`);
    if (file.sha256 && sha256(body) !== file.sha256) throw new Error(`${file.path}: sha256 differs from the listed one`);
    bytes.set(file.path, body);
  }
  return { key, files, bytes };
}

export function sha256(b: Buffer): string {
  return createHash('sha256').update(b).digest('hex');
}

/** The ResourceError a promise rejects with (fails the test if it resolves or rejects otherwise). */
export async function failureOf(p: Promise<unknown>): Promise<ResourceError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof ResourceError)) throw new Error(`expected a ResourceError, got ${String(err)}`);
  return err;
}
