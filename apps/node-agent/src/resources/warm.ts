/**
 * The resources the node keeps warm: its own (RESOURCE_KEEP) and its
 * market's (`warmResources`, sent at registration and in heartbeats when it
 * changes). Each is fetched into the cache in the background, one at a
 * time, and pinned; one the market drops is unpinned, so it is evicted again
 * like any entry once the budget needs the room. A fetch that fails is
 * logged, shown by `status()` and retried later; it never stops the agent.
 */
import type { Logger } from 'pino';
import type { ResourceItem } from '@ocg/job-definition';
import type { ResourceStage } from './stage';

export interface WarmStatus {
  /** The item as given (kind and location; a RESOURCE_KEEP item's credentials are left out). */
  resource: string;
  state: 'fetching' | 'ready' | 'failed';
  error?: string;
}

const RETRY_MS = 5 * 60_000;

export class WarmSet {
  private market: ResourceItem[] = [];
  /** Item (its JSON text) → the cache entries pinned for it. */
  private readonly pinned = new Map<string, string[]>();
  private readonly failed = new Map<string, string>();
  private current: string | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(
    readonly stage: ResourceStage,
    private readonly own: ResourceItem[],
    private readonly logger: Logger,
    private readonly retryMs = RETRY_MS,
  ) {
    stage.closing.addEventListener('abort', () => clearTimeout(this.retry), { once: true });
  }

  /** The market's list, as host-manager last sent it (validated there with the definition's schema). */
  setMarket(items: object[]): void {
    this.market = items as ResourceItem[];
    this.sync();
  }

  /** Brings the cache to the wanted set in the background; resolves once it is there (or gave up on what failed). */
  sync(): Promise<void> {
    this.again = true;
    this.running ??= this.loop().finally(() => (this.running = undefined));
    return this.running;
  }

  status(): WarmStatus[] {
    return [...this.wanted().keys()].map((key) => {
      const resource = label(key);
      if (this.pinned.has(key)) return { resource, state: 'ready' };
      const error = this.failed.get(key);
      return error !== undefined && this.current !== key ? { resource, state: 'failed', error } : { resource, state: 'fetching' };
    });
  }

  private wanted(): Map<string, ResourceItem> {
    const all = new Map<string, ResourceItem>();
    for (const item of [...this.own, ...this.market]) if (typeof item !== 'string') all.set(JSON.stringify(item), item);
    return all;
  }

  private async loop(): Promise<void> {
    const signal = this.stage.closing;
    while (this.again && !signal.aborted) {
      this.again = false;
      const wanted = this.wanted();
      for (const key of [...this.pinned.keys()]) if (!wanted.has(key)) this.drop(key);
      for (const key of [...this.failed.keys()]) if (!wanted.has(key)) this.failed.delete(key);
      for (const [key, item] of wanted) {
        if (this.pinned.has(key) || signal.aborted) continue;
        if (this.again && !this.wanted().has(key)) continue;
        this.current = key;
        try {
          this.pinned.set(key, await this.stage.warm(item, signal));
          this.failed.delete(key);
        } catch (err) {
          if (signal.aborted) return;
          this.failed.set(key, (err as Error).message);
          this.logger.warn({ resource: label(key), err: (err as Error).message }, 'a resource to keep warm could not be fetched; retried later');
        } finally {
          this.current = undefined;
        }
      }
    }
    clearTimeout(this.retry);
    if (this.failed.size > 0 && !signal.aborted) this.retry = setTimeout(() => void this.sync(), this.retryMs).unref();
  }

  /** Unpins what no wanted item still pins. */
  private drop(key: string): void {
    const ids = this.pinned.get(key) ?? [];
    this.pinned.delete(key);
    const still = new Set([...this.pinned.values()].flat());
    for (const id of ids) if (!still.has(id)) this.cache.unpin(id);
    this.logger.info({ resource: label(key) }, 'a resource is no longer kept warm');
  }

  private get cache() {
    return this.stage.cache;
  }
}

/** Kind and location of an item's JSON text, never a credential. */
function label(key: string): string {
  const r = JSON.parse(key) as Record<string, unknown>;
  if (r.type === 'HF') return `hf ${String(r.repo)}`;
  if (r.type === 'Ollama') return `ollama ${String(r.model)}`;
  const buckets = Array.isArray(r.buckets) ? (r.buckets as Array<{ url?: unknown }>).map((b) => String(b.url)) : [];
  return `s3 ${[r.url, r.bucket, ...buckets].filter((x) => x !== undefined).join(' ')}`;
}
