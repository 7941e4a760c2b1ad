import { childPath, isObject } from '../pointer';
import { quote } from '../text';
import { dependencyRefs, opLabel, stageName, type OpView, type RuleContext } from './context';

const PORT_DIGITS = /^[0-9]+$/;

/** A volume a run op mounts is created by a create-volume op of the same or an earlier stage. */
export function checkVolumes(ctx: RuleContext): void {
  const creators = new Map<string, OpView>();
  for (const view of ctx.ops) {
    const name = view.type === 'container/create-volume' ? view.args?.['name'] : undefined;
    if (typeof name !== 'string') continue;
    const earlier = creators.get(name);
    if (earlier) {
      ctx.errors.push({ path: `${view.path}/args/name`, message: `volume ${quote(name)} is already created by ${earlier.path}` });
    } else creators.set(name, view);
  }
  for (const view of ctx.ops) forEachMount(view, (name, path) => checkMount(ctx, view, creators.get(name), name, path));
}

function forEachMount(view: OpView, visit: (name: string, path: string) => void): void {
  const volumes = view.type === 'container/run' ? view.args?.['volumes'] : undefined;
  if (!Array.isArray(volumes)) return;
  volumes.forEach((mount: unknown, i) => {
    if (isObject(mount) && typeof mount['name'] === 'string') visit(mount['name'], `${view.path}/args/volumes/${i}/name`);
  });
}

function checkMount(ctx: RuleContext, view: OpView, creator: OpView | undefined, name: string, path: string): void {
  if (!creator) {
    if (ctx.fragment && !ctx.externalOpIds) {
      ctx.warnings.push({ path, message: `volume ${quote(name)} is not created in this list; the job these ops join must create it` });
    } else {
      ctx.errors.push({ path, message: `volume ${quote(name)} is not created by any container/create-volume op` });
    }
  } else if (creator.stage > view.stage) {
    ctx.errors.push({
      path,
      message: `volume ${quote(name)} is created by op ${opLabel(creator)} in a later stage (${stageName(ctx, creator.stage)})`,
    });
  } else if (creator.stage === view.stage && !dependencyRefs(view).some((ref) => ref.id === creator.id)) {
    ctx.warnings.push({
      path,
      message: `volume ${quote(name)} is created in the same stage; add ${opLabel(creator)} to depends_on so it exists before this op starts`,
    });
  }
}

/** Ports are 1..65535 and none is exposed twice by one op. */
export function checkPorts(ctx: RuleContext): void {
  for (const view of ctx.ops) {
    const expose = view.args?.['expose'];
    const base = `${view.path}/args/expose`;
    const entries = Array.isArray(expose) ? expose.map((e: unknown, i) => [e, childPath(base, i)] as const) : [[expose, base] as const];
    const seen = new Map<number, string>();
    for (const [entry, path] of entries) {
      const found = portOf(entry, path);
      if (!found) continue;
      if (!Number.isInteger(found.port) || found.port < 1 || found.port > 65535) {
        // Numbers out of range are the schema's to report; text ports only reach here.
        if (typeof entry === 'string') ctx.errors.push({ path, message: 'port must be between 1 and 65535' });
        continue;
      }
      const first = seen.get(found.port);
      if (first !== undefined) {
        ctx.errors.push({ path: found.path, message: `port ${found.port} is exposed twice by this op (also ${first})` });
      } else seen.set(found.port, found.path);
    }
  }
}

function portOf(entry: unknown, path: string): { port: number; path: string } | undefined {
  if (typeof entry === 'number') return { port: entry, path };
  if (typeof entry === 'string' && PORT_DIGITS.test(entry)) return { port: Number(entry), path };
  if (isObject(entry) && typeof entry['port'] === 'number') return { port: entry['port'], path: `${path}/port` };
  return undefined;
}

/** Aliases are host names on the job network too: none may be another op's id or alias. */
export function checkAliases(ctx: RuleContext): void {
  const owners = new Map<string, OpView>();
  for (const view of ctx.ops) if (view.id !== undefined) owners.set(view.id.toLowerCase(), view);
  for (const view of ctx.ops) {
    const aliases = view.args?.['aliases'];
    const base = `${view.path}/args/aliases`;
    const list = typeof aliases === 'string' ? [[aliases, base] as const] : Array.isArray(aliases) ? aliases.map((a: unknown, i) => [a, childPath(base, i)] as const) : [];
    for (const [alias, path] of list) {
      if (typeof alias !== 'string') continue;
      const owner = owners.get(alias.toLowerCase());
      if (owner && owner !== view) {
        ctx.errors.push({ path, message: `host name ${quote(alias)} already belongs to op ${opLabel(owner)} (${owner.path})` });
      } else owners.set(alias.toLowerCase(), view);
    }
  }
}
