/**
 * A small bounded cache for result counts. Counting every open listing, or every match of a broad
 * search word, for every page view would read up to a million index entries per request; a
 * filter's count only moves when crawls land. So a count is reused for a while that grows with
 * what it cost (`baseTtlMs`, or 20× the computation time, capped at `maxTtlMs`), and once expired
 * it is still answered while one background refresh runs (stale-while-revalidate), for at most
 * one more TTL. Pages themselves are never cached (which listings a page holds is worked out on
 * every request), and a page past the end is simply empty.
 */
export type CountCacheOptions = { baseTtlMs: number; maxTtlMs: number; maxEntries?: number; now?: () => number };

type Entry<T> = { value: T; freshUntil: number; staleUntil: number };

/** Also reused for other values that cost a query and move slowly (search-word analyses). */
export class CountCache<T = number> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly inFlight = new Map<string, Promise<T>>();
  private readonly now: () => number;
  private readonly maxEntries: number;

  constructor(private readonly opts: CountCacheOptions) {
    this.now = opts.now ?? Date.now;
    this.maxEntries = opts.maxEntries ?? 5000;
  }

  /** The cached count, or `compute()`'s; concurrent misses for one key share one computation. */
  async get(key: string, compute: () => Promise<T>): Promise<T> {
    if (this.opts.baseTtlMs <= 0) return compute();
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.freshUntil > now) return hit.value;
    if (hit && hit.staleUntil > now) {
      // A failed background refresh leaves the stale value to expire on its own.
      this.refresh(key, compute).catch(() => {});
      return hit.value;
    }
    return this.refresh(key, compute);
  }

  private refresh(key: string, compute: () => Promise<T>): Promise<T> {
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const started = this.now();
    const promise = compute()
      .then((value) => {
        const ttl = Math.min(this.opts.maxTtlMs, Math.max(this.opts.baseTtlMs, 20 * (this.now() - started)));
        this.set(key, { value, freshUntil: this.now() + ttl, staleUntil: this.now() + 2 * ttl });
        return value;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }

  private set(key: string, entry: Entry<T>): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, entry);
  }

  clear(): void {
    this.entries.clear();
  }
}
