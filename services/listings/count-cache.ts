/**
 * A small bounded TTL cache for result counts. Counting every open listing for every page view
 * costs a scan of up to a million index entries; the count of a filter changes only when crawls
 * land, so it is reused for a few seconds (LISTINGS_COUNT_CACHE_SECONDS; 0 disables). Items are
 * never cached: a page is always read fresh.
 */
export class CountCache {
  private readonly entries = new Map<string, { value: number; expiresAt: number }>();
  private readonly inFlight = new Map<string, Promise<number>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 5000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached count, or `compute()`'s; concurrent misses for one key share one computation. */
  async get(key: string, compute: () => Promise<number>): Promise<number> {
    if (this.ttlMs <= 0) return compute();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > this.now()) return hit.value;
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const promise = compute()
      .then((value) => {
        this.set(key, value);
        return value;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }

  private set(key: string, value: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
  }

  clear(): void {
    this.entries.clear();
  }
}
