import type Docker from 'dockerode';
import type { DockerAuth } from '@ocg/job-definition';
import { withoutAddresses } from './addresses';
import { engineMessage, statusOf } from './client';
import { privateRegistryRefusal } from './registries';
import { isPrivateRepository, markPrivateRepository } from './private-images';

/** A pull that failed; `message` is meant for the job's poster. */
export class ImagePullError extends Error {
  override name = 'ImagePullError';
}

const DOCKER_HUB = 'https://index.docker.io/v1/';

export interface ImagePolicy {
  /** Registries on loopback, private or link-local addresses that jobs may name anyway (`host` or `host:port`; `*`: any). */
  allowedPrivateRegistries: string[];
}

export interface PullOptions {
  timeoutMs: number;
  signal: AbortSignal;
  policy: ImagePolicy;
}

/**
 * Makes `ref` available locally. Without credentials a local copy is used as
 * is (as `docker run` does), unless its repository is private: one that this
 * engine ever pulled with credentials. Then, and whenever credentials are
 * given, the registry is asked (a pull: cheap when the layers are cached),
 * or one poster's private image, cached by an earlier job, would run for
 * another poster who cannot pull it.
 */
export async function ensureImage(docker: Docker, ref: string, auth: DockerAuth | undefined, opts: PullOptions): Promise<'cached' | 'pulled'> {
  if (LOCAL_ID.test(ref)) throw new ImagePullError(`image ${ref}: a reference by image id is not allowed; name the image by repository and tag or digest`);
  const registry = registryOf(ref);
  const refusal = registry === DOCKER_HUB ? undefined : await privateRegistryRefusal(registry, opts.policy.allowedPrivateRegistries);
  if (refusal) throw new ImagePullError(`image ${ref}: ${refusal}`);
  if (!auth && (await hasImage(docker, ref)) && !(await isPrivateRepository(docker, ref))) return 'cached';
  try {
    await withTimeout(pull(docker, ref, auth, opts.signal), opts.timeoutMs, `pulling ${ref} took longer than ${Math.round(opts.timeoutMs / 1000)} s`);
  } catch (err) {
    throw err instanceof ImagePullError ? err : new ImagePullError(describePullFailure(ref, auth, err));
  }
  if (auth) await markPrivateRepository(docker, ref);
  return 'pulled';
}

/** `sha256:…` or a bare hex id (prefix): Docker would run a local image by id, whatever repository it came from. */
const LOCAL_ID = /^(sha256:)?[0-9a-f]{12,64}$/i;

export async function hasImage(docker: Docker, ref: string): Promise<boolean> {
  try {
    await docker.getImage(ref).inspect();
    return true;
  } catch (err) {
    if (statusOf(err) === 404) return false;
    throw err;
  }
}

/** Aborting closes the connection, which makes the engine cancel the pull. */
async function pull(docker: Docker, ref: string, auth: DockerAuth | undefined, signal: AbortSignal): Promise<void> {
  const cancelled = () => new ImagePullError(`pulling ${ref} was cancelled: the op was stopped`);
  if (signal.aborted) throw cancelled();
  const opts = auth ? { authconfig: authConfig(ref, auth) } : {};
  const stream = await docker.pull(ref, opts);
  // Errors after the pull started arrive inside the progress stream.
  await new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      (stream as unknown as { destroy(): void }).destroy();
      reject(cancelled());
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    docker.modem.followProgress(stream, (err: Error | null) => {
      signal.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve();
    });
  });
}

function authConfig(ref: string, auth: DockerAuth): Record<string, string> {
  const config: Record<string, string> = { serveraddress: auth.server ?? registryOf(ref) };
  if (auth.username !== undefined) config.username = auth.username;
  if (auth.password !== undefined) config.password = auth.password;
  if (auth.email !== undefined) config.email = auth.email;
  return config;
}

/** Docker's rule: a first path part with a dot, a port or `localhost` names a registry. */
export function registryOf(ref: string): string {
  const first = ref.split('/')[0];
  const named = ref.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  return named ? first : DOCKER_HUB;
}

function describePullFailure(ref: string, auth: DockerAuth | undefined, err: unknown): string {
  const detail = withoutAddresses(engineMessage(err), registryOf(ref));
  const registry = registryOf(ref) === DOCKER_HUB ? 'Docker Hub' : registryOf(ref);
  if (/unauthorized|authentication required|no basic auth credentials|denied|forbidden/i.test(detail)) {
    return auth
      ? `registry ${registry} refused the credentials in authentication.docker for image ${ref}: ${detail}`
      : `registry ${registry} requires credentials for image ${ref} (set authentication.docker): ${detail}`;
  }
  if (statusOf(err) === 404 || /manifest unknown|not found|does not exist/i.test(detail)) {
    return `image ${ref} does not exist in ${registry}: ${detail}`;
  }
  return `could not pull image ${ref}: ${detail}`;
}

function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ImagePullError(message)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
