/**
 * POST /benchmark-templates/apply: validate every template, diff against the
 * stored state (templates/reconcile.ts), and with dryRun false write every
 * change in one transaction. Applies are serialized by a transaction-level
 * advisory lock, and the state is read after taking it, so a second apply
 * sees the first one's result instead of interleaving with it.
 */
import type { DataSource, EntityManager } from 'typeorm';
import type { ApplyBenchmarkTemplatesRequest, ApplyBenchmarkTemplatesResponse, BenchmarkTemplateChange, FieldError } from '@ocg/contracts';
import { ValidationError } from '@ocg/http';
import { reconcile } from '../templates/reconcile';
import { templateProblems } from '../templates/validate';
import type { BenchmarkStore } from './benchmark-store';

export class TemplateApplyService {
  constructor(
    private readonly db: DataSource,
    private readonly store: BenchmarkStore,
    private readonly lockTimeoutMs: number,
  ) {}

  async apply(request: ApplyBenchmarkTemplatesRequest): Promise<ApplyBenchmarkTemplatesResponse> {
    const dryRun = request.dryRun ?? true;
    // Markets are never deleted, so checking them before the transaction cannot go stale.
    await this.validate(this.db.manager, request);
    if (dryRun) return { dryRun, changes: await this.diff(this.db.manager, request) };
    const changes = await this.db.transaction(async (manager) => {
      await this.store.lock(manager, this.lockTimeoutMs);
      const planned = await this.diff(manager, request);
      await this.store.write(manager, planned, request.templates);
      return planned;
    });
    return { dryRun, changes };
  }

  private async validate(manager: EntityManager, request: ApplyBenchmarkTemplatesRequest): Promise<void> {
    const markets = await this.store.knownMarkets(manager, request.templates.flatMap((t) => t.supportedMarkets));
    const problems = templateProblems(request.templates, markets);
    if (problems.length > 0) throw rejection(problems);
  }

  private async diff(manager: EntityManager, request: ApplyBenchmarkTemplatesRequest): Promise<BenchmarkTemplateChange[]> {
    return reconcile(request.templates, await this.store.readState(manager), { prune: request.prune ?? false });
  }
}

function rejection(problems: FieldError[]): ValidationError {
  const [first] = problems;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  return new ValidationError(`Templates rejected, nothing written: ${first.path}: ${first.message}${more}`, problems);
}
