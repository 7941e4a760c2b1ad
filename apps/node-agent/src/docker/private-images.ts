/**
 * Repositories this engine pulled with credentials are private: a cached
 * image of theirs is used by a job only after its registry accepted that
 * job's credentials (or no credentials) for it again. The knowledge is
 * engine-wide (any agent on the engine may have pulled it), kept as empty
 * volumes labelled with the repository, and never removed: an image that
 * was private once is asked about each time.
 */
import { createHash } from 'node:crypto';
import type Docker from 'dockerode';
import { statusOf } from './client';
import { LABEL } from './labels';

/** `repo[:tag][@digest]` → the repository, with Docker Hub's implied parts: `busybox` → `docker.io/library/busybox`. */
export function repositoryOf(ref: string): string {
  let repo = ref.split('@')[0];
  const slash = repo.lastIndexOf('/');
  const colon = repo.lastIndexOf(':');
  if (colon > slash) repo = repo.slice(0, colon);
  const parts = repo.split('/');
  const first = parts[0];
  const named = parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost');
  if (named) return `${first.toLowerCase()}/${parts.slice(1).join('/')}`;
  return `docker.io/${parts.length === 1 ? `library/${repo}` : repo}`;
}

export function markerName(ref: string): string {
  return `ocg-private-repo-${createHash('sha256').update(repositoryOf(ref)).digest('hex').slice(0, 32)}`;
}

export async function isPrivateRepository(docker: Docker, ref: string): Promise<boolean> {
  try {
    await docker.getVolume(markerName(ref)).inspect();
    return true;
  } catch (err) {
    if (statusOf(err) === 404) return false;
    throw err;
  }
}

/** Idempotent: Docker returns the existing volume of that name. */
export async function markPrivateRepository(docker: Docker, ref: string): Promise<void> {
  const labels = { [LABEL.managed]: 'true', [LABEL.kind]: 'private-repository', [LABEL.repository]: repositoryOf(ref) };
  await docker.createVolume({ Name: markerName(ref), Labels: labels });
}
