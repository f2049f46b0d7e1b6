/**
 * Answers the list route: which listings, in what order, how many (the in-memory index, kept
 * within a bounded staleness by ListingIndexSync, never waiting for a sync once loaded), then their cards (kept in memory while unchanged, else read from
 * PostgreSQL by id: CardCache). Search words are analysed
 * once per spelling — typo corrections from the make/model lexicon, make synonyms, and each
 * alternative's lexemes from PostgreSQL's parser — and the analysis is reused as long as counts
 * are (LISTINGS_COUNT_CACHE_SECONDS): it only moves when a new make or model word appears.
 */
import type { DbOrTx } from '../shared/database/db.js';
import { analyseSearchWords } from '../shared/repositories/listing-index-repository.js';
import { findSearchCorrections, listCardsByIds } from '../shared/repositories/listings-repository.js';
import { CardCache } from './card-cache.js';
import { CountCache } from './count-cache.js';
import type { IndexFilter, WordGroup } from './listing-index/index.js';
import type { ListingIndexSync } from './listing-index-sync.js';
import { filterKey, MAKE_SYNONYMS, type ListFilter, type ListingRow, type ListRequest } from './listing-rules.js';

/** How long a cached card's category and auction-site names may lag a rename. */
const CARD_NAMES_TTL_MS = 60_000;

export class ListingsQuery {
  private readonly counts: CountCache;
  private readonly analyses: CountCache<WordGroup[]>;
  private readonly cards: CardCache;

  constructor(
    private readonly deps: { db: DbOrTx; index: ListingIndexSync; cacheTtlMs: number; cardCacheSize?: number; now?: () => number },
  ) {
    this.counts = new CountCache({ baseTtlMs: deps.cacheTtlMs, maxTtlMs: 12 * deps.cacheTtlMs });
    this.analyses = new CountCache<WordGroup[]>({ baseTtlMs: deps.cacheTtlMs * 12, maxTtlMs: deps.cacheTtlMs * 12 });
    this.cards = new CardCache({ maxEntries: deps.cardCacheSize ?? 0, ttlMs: CARD_NAMES_TTL_MS, now: deps.now });
    deps.index.onChanges((ids) => this.cards.invalidate(ids));
  }

  async list(request: ListRequest): Promise<{ rows: ListingRow[]; total: number }> {
    const { filter } = request;
    const indexFilter = await this.indexFilterOf(filter);
    const index = await this.deps.index.current();
    const now = (this.deps.now ?? Date.now)();
    const total = await this.counts.get(filterKey(filter), async () => index.count(indexFilter, now));
    const offset = (request.page - 1) * request.pageSize;
    if (offset >= total) return { rows: [], total };
    const ids = index.page(indexFilter, request.sort, offset, request.pageSize, now, total);
    const byId = await this.cards.get(ids, (missing) => listCardsByIds(this.deps.db, missing));
    // A listing deleted between the index and this read is left out rather than shown empty.
    const rows = ids.flatMap((id) => byId.get(id) ?? []);
    return { rows, total };
  }

  /** The filter as the index takes it (search words analysed). */
  async indexFilterOf(filter: ListFilter): Promise<IndexFilter> {
    const words = filter.searchWords;
    const groups = words.length > 0 ? await this.analyses.get(words.join(' '), () => this.analyse(words)) : [];
    return toIndexFilter(filter, groups);
  }

  /** One word group per search word: the word (a prefix when it holds a digit, so "320" finds "320D"), its corrections and synonyms. */
  private async analyse(words: string[]): Promise<WordGroup[]> {
    const corrections = await findSearchCorrections(this.deps.db, words);
    return analyseSearchWords(
      this.deps.db,
      words.map((word) => {
        const fixed = corrections.get(word) ?? [];
        const alternatives = [word, ...fixed, ...[word, ...fixed].flatMap((w) => MAKE_SYNONYMS[w] ?? [])];
        return { alternatives: [...new Set(alternatives)], prefix: /[0-9]/.test(word) };
      }),
    );
  }
}

export function toIndexFilter(filter: ListFilter, groups: WordGroup[]): IndexFilter {
  return {
    categoryId: filter.categoryId,
    minPrice: filter.minPrice,
    maxPrice: filter.maxPrice,
    state: filter.location?.state,
    city: filter.location?.city,
    groups,
    near: filter.near,
    maxDelivered: filter.maxDelivered,
    worthTheTrip: filter.worthTheTrip,
  };
}
