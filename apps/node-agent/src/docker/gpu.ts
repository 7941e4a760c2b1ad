import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type Docker from 'dockerode';

/** Whether ops may ask for `gpu: true`: the config decides, or (auto) the engine's nvidia runtime. */
export async function detectGpus(docker: Docker, setting: 'auto' | 'true' | 'false'): Promise<boolean> {
  if (setting !== 'auto') return setting === 'true';
  const info = (await docker.info()) as { Runtimes?: Record<string, unknown> };
  return Object.hasOwn(info.Runtimes ?? {}, 'nvidia');
}

/**
 * The GPU device ids ops are given one by one: the configured list, else
 * what `nvidia-smi` lists, else (a GPU node without it) device 0 alone, so a
 * job never gets every GPU by default. None when the node has no GPUs.
 */
export async function gpuDevices(hasGpus: boolean, configured: string[] | undefined): Promise<string[]> {
  if (!hasGpus) return [];
  if (configured && configured.length > 0) return configured;
  try {
    const { stdout } = await run('nvidia-smi', ['--query-gpu=index', '--format=csv,noheader'], { timeout: 10_000 });
    const ids = stdout
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => /^\d+$/.test(l));
    if (ids.length > 0) return ids;
  } catch {
    // no nvidia-smi on this machine
  }
  return ['0'];
}

/** Whether the storage driver takes a writable-layer size: the config decides, or (auto) the driver and its filesystem. */
export async function detectDiskQuota(docker: Docker, setting: 'auto' | 'true' | 'false'): Promise<boolean> {
  if (setting !== 'auto') return setting === 'true';
  const info = (await docker.info()) as { Driver?: string; DriverStatus?: Array<[string, string]> };
  if (['btrfs', 'zfs', 'devicemapper', 'windowsfilter'].includes(info.Driver ?? '')) return true;
  // overlay2 takes a size only on xfs mounted with pquota, which Docker does not show: xfs is taken as the hint.
  const backing = (info.DriverStatus ?? []).find(([k]) => k === 'Backing Filesystem')?.[1];
  return info.Driver === 'overlay2' && backing === 'xfs';
}

const run = promisify(execFile);
