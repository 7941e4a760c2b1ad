/**
 * The tools of tools/images run as commands (the deploy project imports no
 * file outside it): the base and every image built (or found by content hash)
 * once per test file, an env file made for compose; and small wrappers over
 * the docker and docker-compose commands.
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../../..');
const tsx = join(root, 'node_modules/.bin/tsx');

export interface BuiltImage {
  name: string;
  image: string;
  tag: string;
  built: boolean;
  seconds: number;
}
export interface BuildResult {
  base: string;
  debian: string;
  images: BuiltImage[];
  setTag?: string;
}

let built: BuildResult | undefined;

export function run(command: string, args: string[], opts: { env?: NodeJS.ProcessEnv; allowFail?: boolean; timeoutMs?: number } = {}): string {
  const res = spawnSync(command, args, { cwd: root, encoding: 'utf8', env: opts.env ?? process.env, maxBuffer: 64 << 20, timeout: opts.timeoutMs ?? 300_000 });
  if (res.status !== 0 && !opts.allowFail) throw new Error(`${command} ${args.join(' ')} failed (${res.status ?? res.signal}):\n${res.stdout}${res.stderr}`);
  return `${res.stdout ?? ''}`;
}

/** tools/images/build.ts: every image unless `args` names some (and the bases to use). */
export function buildImages(...args: string[]): BuildResult {
  return JSON.parse(run(tsx, ['tools/images/build.ts', '--json', ...args], { timeoutMs: 1_200_000 })) as BuildResult;
}

export function images(): BuildResult {
  built ??= buildImages();
  return built;
}

/** tools/images/compose-env.ts: an env file (the template with fresh secrets and `settings`) and a TLS directory in `dir`. */
export function makeComposeEnv(dir: string, settings: Record<string, string>): { envFile: string; tlsDir: string } {
  return JSON.parse(run(tsx, ['tools/images/compose-env.ts', dir, ...Object.entries(settings).map(([k, v]) => `${k}=${v}`)])) as { envFile: string; tlsDir: string };
}

export function imageRef(result: BuildResult, name: string): string {
  const item = result.images.find((i) => i.name === name);
  if (!item) throw new Error(`no image ${name} was built`);
  return `${item.image}:${item.tag}`;
}

export const docker = (...args: string[]): string => run('docker', args);

export function inspect<T = Record<string, unknown>>(ref: string): T {
  return (JSON.parse(docker('inspect', ref)) as T[])[0];
}
