/**
 * The cards of recently shown listings, kept in this API process so a list request usually reads
 * no row from PostgreSQL. Exact for everything on the listing's own row: the index sync hands
 * over the ids of every listing whose card may have changed (migration 0017 logs card columns
 * too) before the request that follows it reads any card, and a read that overlapped such a
 * change does not store what it read. The names joined in from other tables (category, auction
 * site) are reused for at most `ttlMs`.
 */
import type { ListingRow } from './listing-rules.js';

export type CardCacheOptions = { maxEntries: number; ttlMs: number; now?: () => number };

export class CardCache {
  private readonly entries = new Map<number, { card: ListingRow; until: number; seq: number }>();
  /**
   * Eviction order: a ring of (id, seq) as stored, oldest at `head`; a slot whose seq is no longer
   * its id's (dropped or stored again since) is skipped. (Deleting a Map's first key and asking for
   * the next first key again costs V8 a walk over the deleted ones: a ring keeps eviction O(1).)
   */
  private readonly ringIds: Int32Array;
  private readonly ringSeqs: Float64Array;
  private head = 0;
  private used = 0;
  private seq = 0;
  /** Bumped by every invalidation: a read that started before one does not store what it read. */
  private generation = 0;
  private readonly now: () => number;

  constructor(private readonly opts: CardCacheOptions) {
    this.now = opts.now ?? Date.now;
    this.ringIds = new Int32Array(Math.max(1, opts.maxEntries));
    this.ringSeqs = new Float64Array(Math.max(1, opts.maxEntries));
  }

  /** The cards of `ids` (those that still exist); misses are read with `read` in one call. */
  async get(ids: readonly number[], read: (ids: number[]) => Promise<ListingRow[]>): Promise<Map<number, ListingRow>> {
    const now = this.now();
    const found = new Map<number, ListingRow>();
    const missing: number[] = [];
    for (const id of ids) {
      const entry = this.entries.get(id);
      if (entry && entry.until > now) found.set(id, entry.card);
      else missing.push(id);
    }
    if (missing.length === 0) return found;
    const generation = this.generation;
    const cards = await read(missing);
    const keep = this.opts.maxEntries > 0 && generation === this.generation;
    for (const card of cards) {
      found.set(card.id, card);
      if (keep) this.store(card, now + this.opts.ttlMs);
    }
    return found;
  }

  /** Forgets the cards of listings that changed (`'all'`: every card). */
  invalidate(ids: readonly number[] | 'all'): void {
    this.generation++;
    if (ids === 'all') {
      this.entries.clear();
      this.used = 0;
    } else for (const id of ids) this.entries.delete(id);
  }

  get size(): number {
    return this.entries.size;
  }

  private store(card: ListingRow, until: number): void {
    const size = this.ringIds.length;
    if (this.used === size) {
      // Full ring: its oldest slot goes (and the card it stands for, if that is still current).
      const id = this.ringIds[this.head]!;
      if (this.entries.get(id)?.seq === this.ringSeqs[this.head]) this.entries.delete(id);
      this.head = (this.head + 1) % size;
      this.used--;
    }
    const seq = ++this.seq;
    const tail = (this.head + this.used) % size;
    this.ringIds[tail] = card.id;
    this.ringSeqs[tail] = seq;
    this.used++;
    this.entries.set(card.id, { card, until, seq });
  }
}
