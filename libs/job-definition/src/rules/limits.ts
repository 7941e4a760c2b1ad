import { posix } from 'node:path';
import { childPath, isObject } from '../pointer';
import { quote } from '../text';
import type { OpView, RuleContext } from './context';

/** One env value: beyond this the kernel refuses to start the process ("argument list too long"). */
export const MAX_ENV_VALUE_BYTES = 128 * 1024;
/** Every env value and name of one op together. */
export const MAX_ENV_BYTES = 1024 * 1024;
/** Mount destinations Docker refuses or that would hide the container's own system. */
const FORBIDDEN_MOUNTS = ['/proc', '/sys', '/dev'];

/**
 * Limits a definition must meet to ever start: checked at posting, so a
 * definition that can only fail on the node is refused before it is charged.
 */
export function checkStartable(ctx: RuleContext): void {
  for (const view of ctx.ops) {
    if (view.type !== 'container/run') continue;
    checkEnv(ctx, view);
    checkMounts(ctx, view);
  }
}

function checkEnv(ctx: RuleContext, view: OpView): void {
  const env = view.args?.['env'];
  if (!isObject(env)) return;
  const base = `${view.path}/args/env`;
  let total = 0;
  for (const [name, value] of Object.entries(env)) {
    if (typeof value !== 'string') continue;
    const bytes = Buffer.byteLength(value);
    total += bytes + Buffer.byteLength(name) + 2;
    if (bytes > MAX_ENV_VALUE_BYTES) {
      ctx.errors.push({ path: childPath(base, name), message: `is ${bytes} bytes, over the limit of ${MAX_ENV_VALUE_BYTES} bytes (128 KiB) for one env value` });
    }
  }
  if (total > MAX_ENV_BYTES) ctx.errors.push({ path: base, message: `is ${total} bytes, over the limit of ${MAX_ENV_BYTES} bytes (1 MiB) for an op's whole env` });
}

/** Volume and resource destinations: not `/`, not `/proc`, `/sys`, `/dev` or below, not twice in one op. */
function checkMounts(ctx: RuleContext, view: OpView): void {
  const seen = new Map<string, string>();
  for (const [dest, path] of destinations(view)) {
    // posix.normalize leaves at most one trailing slash; drop it except from "/"
    const normal = posix.normalize(dest).replace(/(.)\/$/, '$1');
    const refused = refusedDestination(normal);
    if (refused) {
      ctx.errors.push({ path, message: refused });
      continue;
    }
    const first = seen.get(normal);
    if (first) ctx.errors.push({ path, message: `${quote(normal)} is already mounted by ${first}: Docker refuses two mounts at one destination` });
    else seen.set(normal, path);
  }
}

function refusedDestination(dest: string): string | undefined {
  if (dest === '/') return 'cannot be "/": a mount may not replace the container\'s root filesystem';
  const system = FORBIDDEN_MOUNTS.find((p) => dest === p || dest.startsWith(`${p}/`));
  return system ? `${quote(dest)} is refused: nothing may be mounted at ${system} or below (the container's kernel and device filesystems)` : undefined;
}

function destinations(view: OpView): Array<[string, string]> {
  const found: Array<[string, string]> = [];
  const collect = (list: unknown, member: string, key: string) => {
    if (!Array.isArray(list)) return;
    list.forEach((item: unknown, i) => {
      if (isObject(item) && typeof item[key] === 'string') found.push([item[key], `${view.path}/args/${member}/${i}/${key}`]);
    });
  };
  collect(view.args?.['volumes'], 'volumes', 'dest');
  collect(view.args?.['resources'], 'resources', 'target');
  return found;
}
