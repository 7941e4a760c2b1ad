import {
  DEFAULT_JOB_LIMITS,
  MAX_WARM_RESOURCES,
  type CreateMarketRequest,
  type CreateMarketResponse,
  type ListMarketsResponse,
  type MarketContainerPolicyUpdate,
  type MarketJobLimitsUpdate,
  type MarketRecord,
  type UpdateMarketRequest,
  type WarmResource,
} from '@ocg/contracts';
import { isAddress } from '@ocg/auth';
import { validateResources } from '@ocg/job-definition';
import { ConflictError, NotFoundError, ValidationError } from '@ocg/http';
import { generateAddress, generateJoinToken } from './join-token';
import type { MarketEntity } from './market.entity';
import { toMarketRecord } from './market.records';
import type { MarketRepository } from './market.repository';

export const DEFAULT_DURATION_SECONDS = 7200;
export const DEFAULT_MAX_DURATION_SECONDS = 86_400;

export class MarketService {
  constructor(private readonly markets: MarketRepository) {}

  async create(body: CreateMarketRequest): Promise<CreateMarketResponse> {
    const { token, hash } = generateJoinToken();
    const market = this.markets.build({
      address: generateAddress(),
      name: checkName(body.name),
      pricePerSecond: body.pricePerSecond,
      gpuRequired: body.gpuRequired ?? false,
      defaultDurationSeconds: body.defaultDurationSeconds ?? DEFAULT_DURATION_SECONDS,
      maxDurationSeconds: body.maxDurationSeconds ?? Math.max(DEFAULT_MAX_DURATION_SECONDS, body.defaultDurationSeconds ?? 0),
      joinTokenHash: hash,
      jobLimits: checkJobLimits(defined(body.jobLimits ?? {})),
      containerPolicy: defined(body.containerPolicy ?? {}),
      warmResources: [],
    });
    checkDurations(market);
    await this.save(market);
    return { ...toMarketRecord(market), joinToken: token };
  }

  async update(ref: string, body: UpdateMarketRequest): Promise<MarketRecord> {
    const market = await this.resolve(ref);
    if (body.name !== undefined) market.name = checkName(body.name);
    if (body.pricePerSecond !== undefined) market.pricePerSecond = body.pricePerSecond;
    if (body.gpuRequired !== undefined) market.gpuRequired = body.gpuRequired;
    if (body.defaultDurationSeconds !== undefined) market.defaultDurationSeconds = body.defaultDurationSeconds;
    if (body.maxDurationSeconds !== undefined) market.maxDurationSeconds = body.maxDurationSeconds;
    if (body.jobLimits) market.jobLimits = checkJobLimits({ ...market.jobLimits, ...defined(body.jobLimits) });
    if (body.containerPolicy) market.containerPolicy = { ...market.containerPolicy, ...defined(body.containerPolicy) } as MarketContainerPolicyUpdate;
    if (body.warmResources) market.warmResources = checkWarmResources(body.warmResources);
    checkDurations(market);
    await this.save(market);
    return toMarketRecord(market);
  }

  async list(): Promise<ListMarketsResponse> {
    const rows = await this.markets.list();
    return { markets: rows.map(toMarketRecord), total: rows.length };
  }

  async get(ref: string): Promise<MarketRecord> {
    return toMarketRecord(await this.resolve(ref));
  }

  /** A new join token; answers the market and the hash of the token it replaced. */
  async rotateJoinToken(ref: string): Promise<{ address: string; joinToken: string; oldHash: string }> {
    const market = await this.resolve(ref);
    const { token, hash } = generateJoinToken();
    await this.markets.setJoinTokenHash(market.address, hash);
    return { address: market.address, joinToken: token, oldHash: market.joinTokenHash };
  }

  /** Which of these addresses are markets. */
  existing(addresses: string[]): Promise<Set<string>> {
    return this.markets.existing(addresses);
  }

  /** A market by address, or by name ignoring case (names never look like addresses, so the two cannot clash). */
  async find(ref: string): Promise<MarketEntity | null> {
    return isAddress(ref) ? this.markets.byAddress(ref) : this.markets.byNameIgnoringCase(ref);
  }

  async resolve(ref: string): Promise<MarketEntity> {
    const market = await this.find(ref);
    if (!market) throw new NotFoundError(`No market with the address or name "${ref}"`);
    return market;
  }

  private async save(market: MarketEntity): Promise<void> {
    if (await this.markets.save(market)) return;
    throw new ConflictError(`A market named "${market.name}" already exists (names are compared ignoring case)`, [{ path: '/name', message: 'is taken' }]);
  }
}

function checkName(name: string): string {
  if (isAddress(name))
    throw new ValidationError('Validation failed: /name: must not look like a market address', [
      { path: '/name', message: 'must not look like a market address (base58 of 32 bytes)' },
    ]);
  return name;
}

function checkDurations(m: Pick<MarketEntity, 'defaultDurationSeconds' | 'maxDurationSeconds'>): void {
  if (m.defaultDurationSeconds <= m.maxDurationSeconds) return;
  const message = `must not exceed maxDurationSeconds (${m.maxDurationSeconds})`;
  throw new ValidationError(`Validation failed: /defaultDurationSeconds: ${message}`, [{ path: '/defaultDurationSeconds', message }]);
}

/** Members given as undefined are left out, so they keep their value (or default). */
function defined<T extends object>(update: T): T {
  return Object.fromEntries(Object.entries(update).filter(([, v]) => v !== undefined)) as T;
}

const PAIRS = [
  ['cpusPerContainer', 'cpusPerJob'],
  ['memoryBytesPerContainer', 'memoryBytesPerJob'],
  ['pidsPerContainer', 'pidsPerJob'],
] as const;

/** A per-container figure above its per-job sum is a mistake: the sum would always win. */
function checkJobLimits(limits: MarketJobLimitsUpdate): MarketJobLimitsUpdate {
  const effective = { ...DEFAULT_JOB_LIMITS, ...limits };
  for (const [one, all] of PAIRS) {
    if (effective[one] <= effective[all]) continue;
    const message = `must not exceed jobLimits.${all} (${effective[all]})`;
    throw new ValidationError(`Validation failed: /jobLimits/${one}: ${message}`, [{ path: `/jobLimits/${one}`, message }]);
  }
  return limits;
}

const CREDENTIALS = ['IAM', 'accessToken'];

/**
 * Resource items as a job definition's `args.resources` takes them (checked by the definition's own schema, in a
 * minimal op), objects only, read-only and without credentials: the list is stored in clear and sent to every node of
 * the market, so a private resource cannot be kept warm this way (a node's own RESOURCE_KEEP can).
 */
function checkWarmResources(items: WarmResource[]): WarmResource[] {
  const errors: Array<{ path: string; message: string }> = [];
  if (items.length > MAX_WARM_RESOURCES) errors.push({ path: '/warmResources', message: `must not have more than ${MAX_WARM_RESOURCES} items` });
  items.forEach((item, i) => {
    for (const key of CREDENTIALS)
      if (key in item)
        errors.push({ path: `/warmResources/${i}/${key}`, message: 'credentials cannot be kept warm for a market: they would be stored and sent to every node in clear' });
    if ('__spread__' in item) errors.push({ path: `/warmResources/${i}`, message: 'must be a resource, not a spread marker (no literal resolves here)' });
    if (item.allowWrite !== undefined) errors.push({ path: `/warmResources/${i}/allowWrite`, message: 'a resource kept warm is read-only' });
  });
  const checked = validateResources(items);
  if (!checked.valid) for (const e of checked.errors) errors.push({ path: `/warmResources${e.path}`, message: e.message });
  if (errors.length === 0) return items;
  throw new ValidationError(`Validation failed: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`, errors);
}
