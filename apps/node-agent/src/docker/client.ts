import Docker from 'dockerode';

export type { default as Docker } from 'dockerode';

export function createDocker(socketPath: string): Docker {
  return new Docker({ socketPath });
}

/** Fails with what to do when the engine does not answer, instead of a bare ECONNREFUSED later. */
export async function assertEngine(docker: Docker, socketPath: string): Promise<void> {
  try {
    await docker.ping();
  } catch (err) {
    throw new Error(`Docker engine not reachable at ${socketPath} (${engineMessage(err)}): start dockerd or set DOCKER_SOCKET`);
  }
}

/** The engine's own message, without dockerode's "(HTTP code 500) server error - " prefix. */
export function engineMessage(err: unknown): string {
  const e = err as { json?: { message?: unknown }; message?: unknown };
  if (e && typeof e.json?.message === 'string') return e.json.message.trim();
  const text = typeof e?.message === 'string' ? e.message : String(err);
  return text.replace(/^\(HTTP code \d+\)\s*[^-]*-\s*/, '').trim();
}

export function statusOf(err: unknown): number | undefined {
  const code = (err as { statusCode?: unknown })?.statusCode;
  return typeof code === 'number' ? code : undefined;
}
