/**
 * Builds (or finds, by content hash) the base and every image once per test
 * file, and small wrappers over the docker and docker-compose commands.
 */
import { spawnSync } from 'node:child_process';
import { buildImages, type BuildResult } from '../../../tools/images/build';

let built: Promise<BuildResult> | undefined;

export function images(): Promise<BuildResult> {
  built ??= buildImages({ log: () => undefined });
  return built;
}

export function imageRef(result: BuildResult, name: string): string {
  const item = result.images.find((i) => i.name === name);
  if (!item) throw new Error(`no image ${name} was built`);
  return `${item.image}:${item.tag}`;
}

export function run(command: string, args: string[], opts: { env?: NodeJS.ProcessEnv; allowFail?: boolean; timeoutMs?: number } = {}): string {
  const res = spawnSync(command, args, { encoding: 'utf8', env: opts.env ?? process.env, maxBuffer: 64 << 20, timeout: opts.timeoutMs ?? 300_000 });
  if (res.status !== 0 && !opts.allowFail) throw new Error(`${command} ${args.join(' ')} failed (${res.status ?? res.signal}):\n${res.stdout}${res.stderr}`);
  return `${res.stdout ?? ''}`;
}

export const docker = (...args: string[]): string => run('docker', args);

export function inspect<T = Record<string, unknown>>(ref: string): T {
  return (JSON.parse(docker('inspect', ref)) as T[])[0];
}
