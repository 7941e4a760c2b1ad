import { REMOVE_IF_EMPTY, type ExposeType, type HealthCheck, type JobDefinition } from './types';
import type {
  NormalizedExecution,
  NormalizedExposeEntry,
  NormalizedJobDefinition,
  NormalizedOp,
  NormalizedResult,
  NormalizedRestartPolicy,
  NormalizedRunArgs,
} from './normalized-types';
import { replaceLiterals, wholeLiteral, type LiteralRef } from './literals';
import { hasOwn, isObject, setMember } from './pointer';

type Loose = Record<string, unknown>;

const PORT_DIGITS = /^[0-9]+$/;
/** What a shell-form string means, as in a Dockerfile: `CMD echo hi` runs `/bin/sh -c "echo hi"`. */
const SHELL = ['/bin/sh', '-c'];
/** A bare-string result reads the container's output streams. */
const DEFAULT_LOG_TYPES = ['stdout', 'stderr'] as const;

/**
 * The canonical form of a definition `validate` accepted (anything else is
 * undefined behaviour). Idempotent: it accepts its own output and returns an
 * equal value. Post-time literals (`%%ops.<id>.host%%`,
 * `%%global.variables.<name>%%`) are resolved here; the rest by the node.
 */
export function normalize(definition: JobDefinition | NormalizedJobDefinition): NormalizedJobDefinition {
  const d = definition as unknown as Loose;
  const global = isObject(d['global']) ? d['global'] : {};
  const variables: Record<string, string> = { ...(global['variables'] as Record<string, string> | undefined) };
  const ops = d['ops'] as Loose[];
  const ids = new Set(ops.map((op) => op['id'] as string));
  const postTime = (ref: LiteralRef): string | undefined => {
    if (ref.kind === 'opHost' && ids.has(ref.op)) return ref.op; // ops reach each other by id
    if (ref.kind === 'variable' && hasOwn(variables, ref.name)) return variables[ref.name];
    return undefined;
  };
  return {
    version: '0.1',
    type: 'container',
    meta: structuredClone((d['meta'] as Loose | undefined) ?? {}),
    global: { variables },
    ...(d['logistics'] !== undefined ? { logistics: structuredClone(d['logistics'] as Loose) } : {}),
    ...(typeof d['deployment_id'] === 'string' ? { deployment_id: d['deployment_id'] } : {}),
    ops: ops.map((op) => normalizeOp(op, (text) => replaceLiterals(text, postTime))),
  };
}

export function normalizeOp(op: Loose, resolve: (text: string) => string = (text) => text): NormalizedOp {
  const args = substitute(op['args'], resolve) as Loose;
  const common = {
    id: op['id'] as string,
    results: normalizeResults(op['results']),
    execution: normalizeExecution(op['execution'], args['depends']),
  };
  if (op['type'] === 'container/create-volume') {
    return { type: 'container/create-volume', ...common, args: { name: args['name'] as string } };
  }
  return { type: 'container/run', ...common, args: normalizeRunArgs(args) };
}

function normalizeRunArgs(args: Loose): NormalizedRunArgs {
  const aliases = args['aliases'];
  return {
    image: args['image'] as string,
    aliases: (dropIfEmpty(typeof aliases === 'string' ? [aliases] : ((aliases as string[] | undefined) ?? [])) ?? []) as string[],
    cmd: argv(args['cmd']),
    entrypoint: argv(args['entrypoint']),
    env: { ...(args['env'] as Record<string, string> | undefined) },
    gpu: args['gpu'] === true,
    work_dir: (args['work_dir'] as string | undefined) ?? null,
    volumes: ((args['volumes'] as Loose[] | undefined) ?? []).map((v) => ({ name: v['name'] as string, dest: v['dest'] as string })),
    private: args['private'] === true,
    expose: normalizeExpose(args['expose']),
    restart_policy: normalizeRestart(args['restart_policy']),
    resources: (dropIfEmpty((args['resources'] as unknown[] | undefined) ?? []) ?? []) as NormalizedRunArgs['resources'],
    authentication: isObject(args['authentication']) ? args['authentication'] : null,
  };
}

function argv(value: unknown): string[] | null {
  if (typeof value === 'string') return [...SHELL, value];
  return Array.isArray(value) ? (dropIfEmpty(value) as string[] | null) : null;
}

/**
 * `__remove-if-empty__`: once nothing in the list can still change (no whole
 * literal or spread waiting for the node), drop the marker and empty strings;
 * an empty list then means "member absent" (null).
 */
function dropIfEmpty(list: readonly unknown[]): unknown[] | null {
  if (!list.includes(REMOVE_IF_EMPTY)) return [...list];
  const pending = list.some((item) => (typeof item === 'string' ? wholeLiteral(item) !== undefined : isObject(item) && '__spread__' in item));
  if (pending) return [...list];
  const kept = list.filter((item) => item !== REMOVE_IF_EMPTY && item !== '');
  return kept.length > 0 ? kept : null;
}

function normalizeExpose(expose: unknown): NormalizedExposeEntry[] {
  const entries = Array.isArray(expose) ? expose : expose === undefined ? [] : [expose];
  return entries.map((entry: unknown): NormalizedExposeEntry => {
    if (typeof entry === 'number' || typeof entry === 'string') return exposedPort(entry, undefined, undefined);
    const e = entry as Loose;
    if ('__spread__' in e) return { __spread__: e['__spread__'] as string, chunked: e['chunked'] === true };
    return exposedPort(e['port'] as number | string, e['type'], e['health_checks']);
  });
}

function exposedPort(port: number | string, type: unknown, checks: unknown): NormalizedExposeEntry {
  return {
    port: PORT_DIGITS.test(String(port)) ? Number(port) : port,
    type: typeof type === 'string' ? (type as ExposeType) : 'api',
    health_checks: ((checks as Loose[] | undefined) ?? []).map(normalizeHealthCheck),
  };
}

function normalizeHealthCheck(check: Loose): HealthCheck {
  if (check['type'] === 'websocket') {
    const { type, expected_response, continuous } = check;
    return { type, expected_response, continuous } as HealthCheck;
  }
  const { type, path, method, expected_status, continuous, headers, body } = check;
  const normalized: Loose = { type, path, method, expected_status, continuous, headers: { ...(headers as Loose | undefined) } };
  if (body !== undefined) normalized['body'] = body;
  return normalized as unknown as HealthCheck;
}

function normalizeRestart(policy: unknown): NormalizedRestartPolicy {
  if (typeof policy === 'string') return { policy: policy as NormalizedRestartPolicy['policy'], maxRetries: null };
  if (!isObject(policy)) return { policy: 'no', maxRetries: null };
  const tries = 'maxRetries' in policy ? policy['maxRetries'] : policy['restart_tries'];
  return { policy: policy['policy'] as NormalizedRestartPolicy['policy'], maxRetries: typeof tries === 'number' ? tries : null };
}

function normalizeResults(results: unknown): Record<string, NormalizedResult> {
  const out: Record<string, NormalizedResult> = {};
  for (const [name, result] of Object.entries((results as Loose | undefined) ?? {})) {
    const spec = result as Loose;
    const normalized: NormalizedResult =
      typeof result === 'string'
        ? { regex: result, logType: [...DEFAULT_LOG_TYPES] }
        : { regex: spec['regex'] as string, logType: [...(spec['logType'] as NormalizedResult['logType'])] };
    setMember(out as Loose, name, normalized);
  }
  return out;
}

function normalizeExecution(execution: unknown, depends: unknown): NormalizedExecution {
  const e = (execution as Loose | undefined) ?? {};
  const ids = [...((e['depends_on'] as string[] | undefined) ?? []), ...((depends as string[] | undefined) ?? [])];
  return {
    group: (e['group'] as string | null | undefined) ?? null,
    depends_on: [...new Set(ids)],
    timeout: (e['timeout'] as number | null | undefined) ?? null,
    stop_if_dependent_stops: e['stop_if_dependent_stops'] === true,
  };
}

/** A deep copy with `resolve` applied to every string, except spread markers' literals (the node's job). */
export function substitute(value: unknown, resolve: (text: string) => string): unknown {
  if (typeof value === 'string') return resolve(value);
  if (Array.isArray(value)) return value.map((item) => substitute(item, resolve));
  if (!isObject(value)) return value;
  const out: Loose = {};
  for (const [key, member] of Object.entries(value)) setMember(out, key, key === '__spread__' ? member : substitute(member, resolve));
  return out;
}
