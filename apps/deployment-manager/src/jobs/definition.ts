import { DEFAULT_CONTAINER_POLICY, DEFAULT_JOB_LIMITS, type FieldError, type JobContainerLimits, type MarketRecord, type PostJobRequest } from '@ocg/contracts';
import { normalize, validate, type JobDefinition, type NormalizedJobDefinition } from '@ocg/job-definition';
import { PayloadTooLargeError, ValidationError } from '@ocg/http';
import type { CasService } from '../cas/cas.service';

export interface LoadedDefinition {
  /** The bytes stored in the CAS: the uploaded file, or the compact JSON of an inline definition. */
  bytes: Buffer;
  normalized: NormalizedJobDefinition;
}

/** A job's definition from the request (inline or by content id), validated and normalized. */
export class DefinitionLoader {
  constructor(
    private readonly cas: CasService,
    private readonly maxBytes: number,
  ) {}

  async load(userId: string, body: PostJobRequest): Promise<LoadedDefinition> {
    const { definition, definitionCid } = body;
    if (definition !== undefined && definitionCid === undefined) return this.check(Buffer.from(JSON.stringify(definition)), definition, '/definition');
    if (definitionCid === undefined || definition !== undefined) throw invalid([{ path: '', message: 'give exactly one of definition and definitionCid' }]);
    const bytes = await this.cas.read(definitionCid, userId);
    return this.check(bytes, parseJson(bytes, definitionCid), '');
  }

  /** Pointers are into the request (`/definition/ops/0/...`), or into the stored definition when it came by content id. */
  private check(bytes: Buffer, definition: unknown, prefix: string): LoadedDefinition {
    if (bytes.length > this.maxBytes) throw new PayloadTooLargeError(`The job definition is ${bytes.length} bytes, over the ${this.maxBytes}-byte limit`);
    const { valid, errors } = validate(definition);
    if (!valid) throw invalid(errors.map((e) => ({ path: prefix + e.path, message: e.message })));
    return { bytes, normalized: normalize(definition as JobDefinition) };
  }
}

/** A market without GPUs cannot run an op that asks for one: refused at post time, naming the op. */
export function checkGpus(definition: NormalizedJobDefinition, market: MarketRecord, prefix: string): void {
  if (market.gpuRequired) return;
  const errors = definition.ops.flatMap((op, i) =>
    op.type === 'container/run' && op.args.gpu
      ? [{ path: `${prefix}/ops/${i}/args/gpu`, message: `op "${op.id}" asks for a GPU, but market "${market.name}" has no GPUs: post it to a GPU market` }]
      : [],
  );
  if (errors.length > 0) throw invalid(errors);
}

/**
 * What one job may take of a node, from its market: more ops or volumes than
 * the market allows are refused at posting, naming the limit.
 */
export function checkJobLimits(definition: NormalizedJobDefinition, market: MarketRecord, prefix: string): void {
  const limits = { ...DEFAULT_JOB_LIMITS, ...market.jobLimits };
  const errors: FieldError[] = [];
  const ops = definition.ops.length;
  if (ops > limits.maxOps)
    errors.push({ path: `${prefix}/ops`, message: `has ${ops} ops, over the limit of ${limits.maxOps} ops per job of market "${market.name}" (jobLimits.maxOps)` });
  const volumes = definition.ops.filter((op) => op.type === 'container/create-volume').length;
  if (volumes > limits.maxVolumes) {
    errors.push({ path: `${prefix}/ops`, message: `creates ${volumes} volumes, over the limit of ${limits.maxVolumes} per job of market "${market.name}" (jobLimits.maxVolumes)` });
  }
  const containers = definition.ops.filter((op) => op.type === 'container/run').length;
  const most = mostContainers(limits);
  if (containers > most) {
    errors.push({
      path: `${prefix}/ops`,
      message: `runs ${containers} containers, more than the per-job limits of market "${market.name}" can share out (at most ${most}: each container needs ${MIN_SHARE.memoryBytes} bytes of memory, ${MIN_SHARE.cpus} CPUs and ${MIN_SHARE.pids} processes)`,
    });
  }
  if (errors.length > 0) throw invalid(errors);
}

/** The least a container can run with: Docker's memory minimum (6 MiB) and CPU step, and a few processes. */
const MIN_SHARE = { memoryBytes: 6 * 1024 * 1024, cpus: 0.01, pids: 16 };

/** How many containers a job may run before its share of a per-job sum falls under a container's minimum. */
function mostContainers(limits: typeof DEFAULT_JOB_LIMITS): number {
  return Math.min(
    Math.floor(limits.memoryBytesPerJob / MIN_SHARE.memoryBytes),
    Math.floor(Math.round(limits.cpusPerJob * 100) / (MIN_SHARE.cpus * 100)),
    Math.floor(limits.pidsPerJob / MIN_SHARE.pids),
  );
}

/**
 * What each container of the job may take on the node: the market's
 * per-container limits, and its per-job sums shared out evenly between the
 * job's containers, so together they never pass the sums.
 */
export function containerLimitsFor(definition: { [member: string]: unknown }, market: MarketRecord): JobContainerLimits {
  const limits = { ...DEFAULT_JOB_LIMITS, ...market.jobLimits };
  const policy = { ...DEFAULT_CONTAINER_POLICY, ...market.containerPolicy };
  const ops = Array.isArray(definition['ops']) ? (definition['ops'] as Array<{ type?: unknown }>) : [];
  const containers = Math.max(1, ops.filter((op) => op.type === 'container/run').length);
  return {
    // Posting refused jobs whose shares would fall under MIN_SHARE; the floors only guard older jobs.
    cpus: Math.max(MIN_SHARE.cpus, Math.floor(Math.min(limits.cpusPerContainer, limits.cpusPerJob / containers) * 100) / 100),
    memoryBytes: Math.max(MIN_SHARE.memoryBytes, Math.floor(Math.min(limits.memoryBytesPerContainer, limits.memoryBytesPerJob / containers))),
    pids: Math.max(MIN_SHARE.pids, Math.floor(Math.min(limits.pidsPerContainer, limits.pidsPerJob / containers))),
    diskBytes: limits.diskBytesPerContainer,
    volumeBytes: limits.volumeBytesPerJob,
    bytesPerResource: limits.bytesPerResource,
    resourceBytesPerJob: limits.resourceBytesPerJob,
    user: policy.user,
    readOnlyRootFilesystem: policy.readOnlyRootFilesystem,
  };
}

/** Whether any op exposes a public port (the job then has a URL). */
export function exposesPorts(definition: NormalizedJobDefinition): boolean {
  return definition.ops.some((op) => op.type === 'container/run' && op.args.expose.some((e) => !('port' in e) || e.type !== 'none'));
}

/** The duration asked for, or the market's default; never beyond the market's maximum. */
export function durationFor(body: PostJobRequest, market: MarketRecord): number {
  const seconds = body.durationSeconds ?? market.defaultDurationSeconds;
  if (seconds > market.maxDurationSeconds) {
    throw invalid([{ path: '/durationSeconds', message: `${seconds} s is beyond the maximum duration of market "${market.name}" (${market.maxDurationSeconds} s)` }]);
  }
  return seconds;
}

export function invalid(errors: FieldError[]): ValidationError {
  const first = errors[0];
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  return new ValidationError(`Validation failed: ${first.path || '(body)'}: ${first.message}${more}`, errors);
}

function parseJson(bytes: Buffer, cid: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalid([{ path: '/definitionCid', message: `content ${cid} is not JSON, so it is not a job definition` }]);
  }
}
