import { createHash, randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import type { CreditHoldRecord, JobRecord, MarketRecord, PostJobRequest } from '@ocg/contracts';
import { canonicalJson } from '@ocg/auth';
import { ConflictError, InsufficientBalanceError, ServiceUnavailableError, withSpan } from '@ocg/http';
import type { RateLimiter } from '@ocg/redis';
import type { CasService } from '../cas/cas.service';
import type { CreditsClient } from '../clients/credits.client';
import type { MarketsClient } from '../clients/markets.client';
import { checkIdempotencyKey, IdempotencyKeyReusedError } from '../errors';
import type { Caller } from './caller';
import { checkGpus, checkJobLimits, durationFor, exposesPorts, type DefinitionLoader, type LoadedDefinition } from './definition';
import type { HoldRepository } from './hold.repository';
import type { JobEvents } from './job-events';
import type { JobQueryService } from './job-query.service';
import type { JobRepository } from './job.repository';
import type { NewJob } from './job-row';
import type { SummaryRow } from './job-views';
import { wakeUp } from './market-waker';
import type { PostRequestRepository } from './post-request.repository';

export interface JobPostDeps {
  jobs: JobRepository;
  holds: HoldRepository;
  requests: PostRequestRepository;
  cas: CasService;
  credits: CreditsClient;
  markets: MarketsClient;
  definitions: DefinitionLoader;
  query: JobQueryService;
  events: JobEvents;
  /** Posts per user: a post costs a validation, a market lookup, a hold and rows. */
  postLimit: RateLimiter;
}

interface Priced {
  def: LoadedDefinition;
  market: MarketRecord;
  duration: number;
  amount: number;
}

/**
 * Posting a job: validate, price, hold the whole duration, then record the
 * job QUEUED. The hold comes first, so a short balance answers at once and
 * leaves nothing behind; its reference is the job address, so a retry with
 * the same Idempotency-Key finds the same hold and the same job.
 */
export class JobPostService {
  constructor(private readonly d: JobPostDeps) {}

  async post(caller: Caller, body: PostJobRequest, idempotencyKey?: string): Promise<JobRecord> {
    // A retry of a post that succeeded answers its job even if the market has changed since.
    const done = idempotencyKey === undefined ? undefined : await this.d.requests.earlier(caller.userId, idempotencyKey, requestHash(body));
    if (done && (await this.d.jobs.find(done))) return this.d.query.view(done);
    // The rate limit's round trip and the pricing (definition, market) at the same time; a post over the limit is refused for that first.
    const [limited, pricing] = await Promise.allSettled([
      this.d.postLimit.enforce(caller.userId, `job posts from user ${caller.userId}`),
      withSpan('job.price', () => this.price(caller, body)),
    ]);
    if (limited.status === 'rejected') throw limited.reason;
    if (pricing.status === 'rejected') throw pricing.reason;
    const priced = pricing.value;
    const { address, fresh } = await this.reserve(caller, body, idempotencyKey);
    if (!fresh && (await this.d.jobs.find(address))) return this.d.query.view(address);
    let recorded: SummaryRow | undefined;
    try {
      const hold = priced.amount > 0 ? await withSpan('job.hold', () => this.hold(caller, address, priced)) : undefined;
      recorded = await withSpan('job.record', () => this.record(caller, address, priced, hold));
    } catch (err) {
      if (idempotencyKey !== undefined && isFinal(err)) await this.d.requests.release(caller.userId, idempotencyKey);
      throw err;
    }
    // The row this request inserted is the whole record; one a concurrent retry recorded first is read back.
    const view = recorded ? this.d.query.recorded(recorded) : await this.d.query.view(address);
    // The market's claimers are woken in the event's round trip (a lost wake-up costs a claimer its wait, never the job).
    this.d.events.changed({ address, status: view.status, duration_seconds: view.durationSeconds }, [wakeUp(priced.market.address)]);
    return view;
  }

  private async price(caller: Caller, body: PostJobRequest): Promise<Priced> {
    const def = await this.d.definitions.load(caller.userId, body);
    const market = await this.d.markets.resolve(body.market);
    const prefix = body.definition !== undefined ? '/definition' : '';
    checkJobLimits(def.normalized, market, prefix);
    checkGpus(def.normalized, market, prefix);
    const duration = durationFor(body, market);
    return { def, market, duration, amount: market.pricePerSecond * duration };
  }

  private async reserve(caller: Caller, body: PostJobRequest, key: string | undefined): Promise<{ address: string; fresh: boolean }> {
    const address = bs58.encode(randomBytes(32));
    if (key === undefined) return { address, fresh: true };
    checkIdempotencyKey(key);
    const reservation = await this.d.requests.reserve(caller.userId, key, requestHash(body), address);
    if (!reservation) throw new IdempotencyKeyReusedError(key);
    return reservation;
  }

  /** The hold for the whole duration, recorded as "placing" first so a crash right after leaves a trace the sweeper releases. */
  private async hold(caller: Caller, address: string, p: Priced): Promise<CreditHoldRecord> {
    await this.d.holds.begin({ reference: address, job: address, seq: 0, userId: caller.userId, amount: p.amount, seconds: p.duration });
    let hold: CreditHoldRecord;
    try {
      hold = await this.d.credits.hold({ userId: caller.userId, amount: p.amount, reference: address });
    } catch (err) {
      if (err instanceof InsufficientBalanceError) await this.d.holds.forget(address);
      throw err;
    }
    if (hold.status === 'closed' || hold.held !== p.amount) {
      throw new ConflictError('An earlier attempt with this Idempotency-Key was abandoned and its credits released; post again with a new key');
    }
    return hold;
  }

  /** The definition, the job and its applied hold, all or nothing (one statement). The new row; nothing when a concurrent retry recorded it first. */
  private async record(caller: Caller, address: string, p: Priced, hold: CreditHoldRecord | undefined): Promise<SummaryRow | undefined> {
    const definition = this.d.cas.sealedBlob(p.def.bytes);
    const job: NewJob = {
      address,
      userId: caller.userId,
      poster: caller.poster,
      market: p.market.address,
      definitionCid: definition.cid,
      definition: p.def.normalized,
      exposes: exposesPorts(p.def.normalized),
      pricePerSecond: p.market.pricePerSecond,
      durationSeconds: p.duration,
      maxDurationSeconds: p.market.maxDurationSeconds,
    };
    const recorded = await this.d.jobs.record(job, definition, hold?.id);
    if (recorded) return recorded;
    if (await this.d.jobs.find(address)) return undefined; // the same request, retried concurrently, recorded it first
    throw new ServiceUnavailableError('This post took too long and its credits were released; post again');
  }
}

/** What makes two posts "the same request": the body, whatever its member order or wire format. */
const requestHash = (body: PostJobRequest): string => createHash('sha256').update(canonicalJson(body)).digest('hex');

/** A refusal that will not change by retrying the same request: the key may be used again. */
function isFinal(err: unknown): boolean {
  return err instanceof InsufficientBalanceError || err instanceof ConflictError;
}
