import type Docker from 'dockerode';

/** Whether ops may ask for `gpu: true`: the config decides, or (auto) the engine's nvidia runtime. */
export async function detectGpus(docker: Docker, setting: 'auto' | 'true' | 'false'): Promise<boolean> {
  if (setting !== 'auto') return setting === 'true';
  const info = (await docker.info()) as { Runtimes?: Record<string, unknown> };
  return Object.hasOwn(info.Runtimes ?? {}, 'nvidia');
}
