/**
 * POST /benchmark-templates/apply: validate every template, diff against the
 * stored state (templates/reconcile.ts), and with dryRun false write every
 * change in one transaction. Applies are serialized by a transaction-level
 * advisory lock, and the state is read after taking it, so a second apply
 * sees the first one's result instead of interleaving with it.
 */
import type { EntityManager } from 'typeorm';
import type { ApplyBenchmarkTemplatesRequest, ApplyBenchmarkTemplatesResponse, BenchmarkTemplateChange, FieldError } from '@ocg/contracts';
import { ValidationError } from '@ocg/http';
import type { BenchmarkRepository } from '../benchmarks/benchmark.repository';
import type { MarketService } from '../markets/market.service';
import { reconcile } from './reconcile';
import { templateProblems } from './validate';

export class TemplateApplyService {
  constructor(
    private readonly benchmarks: BenchmarkRepository,
    private readonly markets: MarketService,
    private readonly lockTimeoutMs: number,
  ) {}

  async apply(request: ApplyBenchmarkTemplatesRequest): Promise<ApplyBenchmarkTemplatesResponse> {
    const dryRun = request.dryRun ?? true;
    // Markets are never deleted, so checking them before the transaction cannot go stale.
    await this.validate(request);
    if (dryRun) return { dryRun, changes: await this.diff(request) };
    const changes = await this.benchmarks.transaction(async (manager) => {
      await this.benchmarks.lock(manager, this.lockTimeoutMs);
      const planned = await this.diff(request, manager);
      await this.benchmarks.write(manager, planned, request.templates);
      return planned;
    });
    return { dryRun, changes };
  }

  private async validate(request: ApplyBenchmarkTemplatesRequest): Promise<void> {
    const markets = await this.markets.existing(request.templates.flatMap((t) => t.supportedMarkets));
    const problems = templateProblems(request.templates, markets);
    if (problems.length > 0) throw rejection(problems);
  }

  /** Inside the apply's transaction when given its manager. */
  private async diff(request: ApplyBenchmarkTemplatesRequest, manager?: EntityManager): Promise<BenchmarkTemplateChange[]> {
    return reconcile(request.templates, await this.benchmarks.readState(manager), { prune: request.prune ?? false });
  }
}

function rejection(problems: FieldError[]): ValidationError {
  const [first] = problems;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  return new ValidationError(`Templates rejected, nothing written: ${first.path}: ${first.message}${more}`, problems);
}
