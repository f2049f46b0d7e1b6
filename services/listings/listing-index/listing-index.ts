/**
 * The list route's in-memory index of open listings: what a search engine keeps per document
 * (filter fields, sort keys, terms with their weight), in typed arrays, so filtering, ordering,
 * paging and counting a million listings take microseconds to a few milliseconds of one core
 * instead of a PostgreSQL query plan per request. PostgreSQL stays the source of truth: the index
 * is loaded from it and follows its changes (listing-index-sync.ts); the page's cards are read
 * from it by id. Pure: no I/O, the clock is passed in.
 *
 * Built in layers, each its own file: slot storage and the listed bitset (slot-store.ts), posting
 * lists and terms (posting-store.ts), sort orders and loading (sort-orders.ts), query compilation
 * and matching (query-compile.ts), snapshots as flat arrays (snapshot.ts), the orders computed
 * from a buyer's point with their kept first pages (point-orders.ts); this top layer counts and
 * pages the stored orders and ranks by relevance.
 *
 * Semantics are those of the list route's contract (a plain filter-sort-slice reference in the
 * unit tests): a listing is listed while its status is open (only open listings enter the index)
 * and its end time is unknown or later than now; prices compare against `price_usd` (what the
 * buyer would pay now), a listing without one never passing a price bound; orders are total (id
 * breaks ties, missing values last); a search needs every word group to hold one of its lexemes.
 */
import { popcount } from './bits.js';
import { MIN_HAUL_HIGH, PointOrders } from './point-orders.js';
import type { Compiled } from './query-compile.js';
import type { IndexColumns } from './snapshot.js';
import { BLOCK_SHIFT, ORDER_INDEX } from './sort-orders.js';
import type { IndexedListing, IndexFilter, IndexOptions, IndexSort, IndexStats } from './types.js';

/** PostgreSQL's default ts_rank weights for D, C, B, A (0.1, 0.2, 0.4, 1), ×10 so sums are exact. */
const RANK_WEIGHTS = [1, 2, 4, 10] as const;
/** The highest rank: every one of a search's (at most 8) words in make/model. */
const MAX_RANK = 8 * 10;

export class ListingIndex extends PointOrders {
  /** Builds an index from many listings at once: one sort per order instead of insertions. */
  static build(listings: Iterable<IndexedListing>, opts: IndexOptions = {}): ListingIndex {
    const index = new ListingIndex(opts);
    for (const listing of listings) index.add(listing);
    index.finishLoad();
    return index;
  }

  /** An index from a snapshot's columns (SnapshotIndex.toColumns), ready to answer and to upsert. */
  static fromColumns(columns: IndexColumns, opts: IndexOptions = {}): ListingIndex {
    const index = new ListingIndex(opts);
    index.restoreColumns(columns);
    return index;
  }

  stats(): IndexStats {
    const all = [...this.terms, ...this.categories.values(), ...this.states, ...this.cities];
    const bitsets = all.filter((p) => p.bits).length;
    const bytes =
      // per slot: its arrays, and per order but deal_score_high its main order, category split and position
      // (id, alive, score, price, category, state, city, place, end, freight, discount, term start, stamp)
      this.capacity * (4 + 1 + 8 + 8 + 4 + 4 + 4 + 4 + 8 + 4 + 4 + 4 + 4 + 3 * 4 * 3 + 1 / 8) +
      (this.placeSlots.length + this.placeNext.data.length + this.placeStart.length + this.placeHead.length) * 4 +
      this.termIds.data.length * this.termIds.data.BYTES_PER_ELEMENT +
      all.reduce((sum, p) => sum + p.list.data.length * 4, 0) +
      (bitsets * this.capacity) / 8;
    return {
      live: this.liveCount,
      listed: this.listedCount,
      slots: this.slotCount,
      dead: this.slotCount - this.liveCount,
      delta: this.slotCount - this.deltaFrom,
      unordered: this.tail.filter((t) => this.alive[t] === 1).length,
      terms: this.termNames.length,
      bitsetTerms: this.terms.filter((p) => p.bits).length,
      approxBytes: Math.round(bytes),
    };
  }

  /** How many listed listings pass the filter at `now`. */
  count(filter: IndexFilter, now: number): number {
    const c = this.compile(filter, now);
    try {
      return this.countCompiled(c);
    } finally {
      this.release(c);
    }
  }

  protected countCompiled(c: Compiled): number {
    if (c.impossible) return 0;
    if (c.counted === 'all') return this.listedCount;
    if (c.counted) return c.counted.listed;
    const onlyPrice = c.required.length === 1 && c.groups.length === 0 && c.category < 0 && c.state < 0 && c.city < 0 && !c.hasRadius && !c.haulHigh;
    if (onlyPrice && (c.hasMin || c.hasMax)) return this.countPriceRange(c);
    if (c.hasMaxDelivered) {
      // A delivered total is at least the price plus the least haul: only the cheaper lots can pass.
      const main = this.main[ORDER_INDEX.price_low]!;
      const to = this.priceFrom(c.maxDelivered - MIN_HAUL_HIGH + 0.01, true);
      if (to * 4 < c.driverSize) {
        let n = 0;
        for (let i = 0; i < to; i++) if (this.matches(c, main[i]!)) n++;
        for (const s of this.delta[ORDER_INDEX.price_low]!) if (this.matches(c, s)) n++;
        return n;
      }
    }
    const words = Math.ceil(this.slotCount / 32);
    if (c.driverSize < words) {
      this.materialiseFor(c, c.driverSize);
      let n = 0;
      this.forEachCandidate(c, (s) => {
        if (this.matches(c, s)) n++;
      });
      return n;
    }
    // Many candidates: AND the bitsets 32 slots at a time, check the rest only where all hold.
    for (const group of [...c.groups]) if (group.bitsets.length > 0) this.materialise(c, group);
    const rest = this.hasRest(c);
    if (rest && c.groups.length === 0 && c.category < 0 && c.state < 0 && c.city < 0) return this.countByPriceAndPlace(c, words);
    const required = c.required;
    let n = 0;
    for (let w = 0; w < words; w++) {
      let v = required[0]![w]!;
      for (let k = 1; k < required.length && v !== 0; k++) v &= required[k]![w]!;
      if (v === 0) continue;
      if (rest) {
        while (v !== 0) {
          const low = v & -v;
          if (this.passesRest(c, (w << 5) + (31 - Math.clz32(low)))) n++;
          v ^= low;
        }
      } else n += popcount(v);
    }
    return n;
  }

  /**
   * A count whose per-slot checks are only price bounds, a radius and the delivered filters (the
   * near-a-ZIP shapes: every listed listing is a candidate, a million checks): passesRest's
   * checks inlined in one loop over typed arrays, several times faster than the general path —
   * such a count runs on the event loop, every few seconds per filter as the count cache expires.
   * Exactly passesRest's and passesDelivered's rules.
   */
  protected countByPriceAndPlace(c: Compiled, words: number): number {
    const required = c.required;
    const price = this.price;
    const place = this.placeCode;
    const freight = this.freight;
    const discount = this.discount;
    const dist = c.placeDist;
    const hauls = c.haulHigh;
    const { hasMin, min, hasMax, max, hasRadius, radius, worthTheTrip, hasMaxDelivered, maxDelivered } = c;
    const needsPlace = hasRadius || hauls !== null;
    let n = 0;
    for (let w = 0; w < words; w++) {
      let v = required[0]![w]!;
      for (let k = 1; k < required.length && v !== 0; k++) v &= required[k]![w]!;
      while (v !== 0) {
        const low = v & -v;
        const s = (w << 5) + (31 - Math.clz32(low));
        v ^= low;
        if (hasMin && !(price[s]! >= min)) continue;
        if (hasMax && !(price[s]! <= max)) continue;
        // What the slot's own (sequential) arrays already rule out, before its place's haul is
        // looked up (a random read): a total is at least the price, and every haul at least MIN_HAUL_HIGH.
        if (hasMaxDelivered && !(price[s]! <= maxDelivered)) continue;
        if (worthTheTrip && !(discount[s]! > MIN_HAUL_HIGH)) continue;
        if (needsPlace) {
          const p = place[s]!;
          if (p < 0) continue;
          if (hasRadius && !(dist![p]! <= radius)) continue;
          if (hauls !== null) {
            const haul = hauls[(p << 2) | (freight[s]! & 3)]!;
            if (worthTheTrip && !(discount[s]! > haul)) continue;
            if (hasMaxDelivered && (!(price[s]! <= maxDelivered) || !(this.deliveredHigh(s, haul) <= maxDelivered))) continue;
          }
        }
        n++;
      }
    }
    return n;
  }

  /**
   * A price-only count: the price order is sorted by price (dead slots keep theirs), so the bounds
   * are two binary searches and only the listings in between are checked; the delta separately.
   */
  protected countPriceRange(c: Compiled): number {
    const main = this.main[ORDER_INDEX.price_low]!;
    const from = c.hasMin ? this.priceFrom(c.min, false) : 0;
    const to = this.priceFrom(c.hasMax ? c.max : Infinity, true);
    let n = 0;
    const listed = this.listed;
    for (let i = from; i < to; i++) {
      const s = main[i]!;
      if ((listed[s >>> 5]! & (1 << (s & 31))) !== 0) n++;
    }
    for (const s of this.delta[ORDER_INDEX.price_low]!) if (this.matches(c, s)) n++;
    return n;
  }

  /** In the price order's main permutation, the first position whose price is ≥ bound (> bound when `after`); missing prices sort last. */
  protected priceFrom(bound: number, after: boolean): number {
    const main = this.main[ORDER_INDEX.price_low]!;
    const price = this.price;
    let lo = 0;
    let hi = main.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const p = price[main[mid]!]!;
      if (p === p && (after ? p <= bound : p < bound)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The ids of one page: `limit` listings from `offset` in `sort`. `total` (the filter's count, if
   * known) tells how selective the filter is, to choose between walking the order until the page
   * is full and collecting every candidate then ordering those.
   */
  page(filter: IndexFilter, sort: IndexSort, offset: number, limit: number, now: number, total?: number): number[] {
    const c = this.compile(filter, now);
    try {
      return this.pageCompiled(c, filter, sort, offset, limit, total);
    } finally {
      this.release(c);
    }
  }

  protected pageCompiled(c: Compiled, filter: IndexFilter, sort: IndexSort, offset: number, limit: number, total?: number): number[] {
    if (c.impossible || limit <= 0) return [];
    if (sort === 'relevance' && filter.groups.length > 0) return this.relevancePage(c, offset, limit, total);
    if (sort === 'distance' || sort === 'delivered') {
      // Without a point there is no distance and no haul: the default order.
      if (c.placeDist) return this.pointPage(c, filter, sort, offset, limit);
      return this.topSlots(c, ORDER_INDEX.deal_score_high, offset + limit, total, offset).map((s) => this.ids[s]!);
    }
    const order = ORDER_INDEX[sort === 'relevance' ? 'deal_score_high' : sort];
    return this.topSlots(c, order, offset + limit, total, offset).map((s) => this.ids[s]!);
  }

  /** The first `need` matching slots in an order, less the first `skip` of them. */
  protected topSlots(c: Compiled, order: number, need: number, total?: number, skip = 0): number[] {
    const matches = Math.min(total ?? c.driverSize, c.driverSize);
    if (matches === 0) return [];
    if (order === ORDER_INDEX.deal_score_high) {
      // Scanning reads about need / matches of the renumbered slots' words (and of the tail).
      const share = Math.min(1, need / matches);
      const scanCost = share * ((this.ordered / 32) * (1 + c.required.length) + 4 * this.tail.length);
      if (scanCost <= 12 * c.driverSize) {
        if (share * this.ordered > 512) for (const group of [...c.groups]) this.materialise(c, group);
        return this.scoreScan(c, need, skip);
      }
      return this.collect(c, order, need).slice(skip);
    }
    // Walking visits about need × (listings walked / matches) slots; collecting visits the driver's.
    const walked = c.categoryId !== undefined ? (this.categories.get(c.categoryId)?.list.length ?? 0) : this.liveCount;
    const walkCost = (need * walked) / matches;
    // A walk step is a few bit tests; a collected candidate also costs deduplication and sorting.
    if (walkCost > 12 * c.driverSize) return this.collect(c, order, need).slice(skip);
    if (walkCost > 512) for (const group of [...c.groups]) this.materialise(c, group);
    return this.walk(c, order, need, skip);
  }

  /**
   * Follows an order until `need` slots matched. Matches are rarely spread evenly (the cheapest
   * lots are seldom Caterpillars), so once a walk proves long, its words are folded into bitsets
   * (one pass over their postings) and every further slot costs a few bit tests.
   */
  protected walk(c: Compiled, order: number, need: number, skip: number): number[] {
    const out: number[] = [];
    const main = c.categoryId !== undefined ? (this.byCategory[order]!.get(c.categoryId) ?? new Int32Array(0)) : this.main[order]!;
    const delta = this.delta[order]!;
    const foldAfter = 256;
    let required = c.required;
    let rest = this.hasRest(c);
    let steps = 0;
    let i = 0;
    let j = 0;
    // Deep pages: the first `skip` matches are counted, not kept.
    let skipped = 0;
    need -= skip;
    // Where the next delta slot goes in the main order, found once per delta slot reached: the main
    // slots before it are taken without comparing each (under writes the delta holds thousands).
    let at = delta.length > 0 ? this.placeIn(order, main, 0, delta[0]!) : main.length;
    while (out.length < need && (i < main.length || j < delta.length)) {
      let s: number;
      if (i < at) s = main[i++]!;
      else {
        s = delta[j++]!;
        at = j < delta.length ? this.placeIn(order, main, i, delta[j]!) : main.length;
      }
      // Inline: the required bits, then the rest only where there is any.
      const word = s >>> 5;
      const bit = 1 << (s & 31);
      let k = 0;
      while (k < required.length && (required[k]![word]! & bit) !== 0) k++;
      if (k === required.length && (!rest || this.passesRest(c, s))) {
        if (skipped < skip) skipped++;
        else out.push(s);
      }
      if (++steps === foldAfter && c.groups.length > 0) {
        for (const group of [...c.groups]) this.materialise(c, group);
        required = c.required;
        rest = this.hasRest(c);
      }
    }
    return out;
  }

  /**
   * The first position from `from` in `main` (sorted in `order`) whose slot does not come before
   * `slot`: galloping, then a binary search, so a near place costs a few comparisons.
   */
  protected placeIn(order: number, main: Int32Array, from: number, slot: number): number {
    let lo = from;
    let step = 1;
    let hi = from;
    while (hi < main.length && this.compare(order, main[hi]!, slot) < 0) {
      lo = hi + 1;
      hi = from + step;
      step *= 2;
    }
    if (hi > main.length) hi = main.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(order, main[mid]!, slot) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * deal_score_high's first `need` matches, less the first `skip`: the renumbered slots are read in
   * slot order, 32 at a time through the required bitsets (so a page stops as soon as it is full),
   * and merged with the tail's matches (a tail slot goes before numbered slot s when its rank <= s).
   */
  protected scoreScan(c: Compiled, need: number, skip: number): number[] {
    const out: number[] = [];
    const want = need - skip;
    let skipped = 0;
    const required = c.required;
    const rest = this.hasRest(c);
    const tail = this.tail;
    const ordered = this.ordered;
    const tailRank = this.tailRank.data;
    const rankOf = (t: number) => tailRank[t - ordered]!;
    let j = 0;
    let w = 0;
    const words = (ordered + 31) >>> 5;
    // A deep page without filters: whole blocks of score positions (numbered slots and the tail's
    // ranked among them) are skipped by their listed counts, then the tail is entered where the
    // first block not skipped begins (ranks rise along the tail).
    if (skip > 0 && !rest && required.length === 1) {
      const perBlock = this.listedPerBlock;
      const fullBlocks = ordered >>> BLOCK_SHIFT;
      let b = 0;
      while (b < fullBlocks && skipped + perBlock[b]! <= skip) skipped += perBlock[b++]!;
      const from = b << BLOCK_SHIFT;
      let lo = 0;
      let hi = tail.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (rankOf(tail[mid]!) < from) lo = mid + 1;
        else hi = mid;
      }
      j = lo;
      w = from >>> 5;
    }
    // The last word's bits from `ordered` on are tail slots, merged from the tail list instead.
    const lastMask = (ordered & 31) === 0 ? -1 : (1 << (ordered & 31)) - 1;
    const take = (s: number) => {
      if (skipped < skip) skipped++;
      else out.push(s);
    };
    for (; w < words && out.length < want; w++) {
      let v = required[0]![w]!;
      for (let k = 1; k < required.length && v !== 0; k++) v &= required[k]![w]!;
      if (w === words - 1) v &= lastMask;
      if (v === 0) continue;
      // Deep pages: a word whose matches are all skipped (no per-slot check) is counted at once,
      // with the tail's slots that rank before its last match. Under writes the tail holds every
      // listing whose score changed since the load (thousands, spread through the order).
      if (skipped < skip && !rest) {
        const n = popcount(v);
        if (skipped + n <= skip) {
          const last = (w << 5) + 31 - Math.clz32(v);
          let k = j;
          let m = 0;
          while (k < tail.length && skipped + n + m <= skip && rankOf(tail[k]!) <= last) {
            if (this.matches(c, tail[k]!)) m++;
            k++;
          }
          if (skipped + n + m <= skip && (k >= tail.length || rankOf(tail[k]!) > last)) {
            skipped += n + m;
            j = k;
            continue;
          }
        }
      }
      while (v !== 0 && out.length < want) {
        const low = v & -v;
        const s = (w << 5) + (31 - Math.clz32(low));
        v ^= low;
        if (rest && !this.passesRest(c, s)) continue;
        while (j < tail.length && out.length < want && rankOf(tail[j]!) <= s) {
          const t = tail[j++]!;
          if (this.matches(c, t)) take(t);
        }
        if (out.length < want) take(s);
      }
    }
    for (; j < tail.length && out.length < want; j++) if (this.matches(c, tail[j]!)) take(tail[j]!);
    return out;
  }


  protected collect(c: Compiled, order: number, need: number): number[] {
    this.materialiseFor(c, c.driverSize);
    // Matches are placed by their position in the order's main permutation; in score order the
    // renumbered slots are their own position (no lookup), the tail's are merged like the delta's.
    const byScore = order === ORDER_INDEX.deal_score_high;
    const ordered = this.ordered;
    const position = this.position[order]!;
    const main = this.main[order]!;
    const size = byScore ? ordered : main.length;
    const at = (p: number) => (byScore ? p : main[p]!);
    const inMain: number[] = [];
    const inDelta: number[] = [];
    this.forEachCandidate(c, (s) => {
      if (!this.matches(c, s)) return;
      const p = byScore ? (s < ordered ? s : -1) : position[s]!;
      if (p >= 0) inMain.push(p);
      else inDelta.push(s);
    });
    let fromMain: number[];
    if (inMain.length <= 4096 || inMain.length * 16 < size) {
      fromMain = Array.from(Int32Array.from(inMain).sort().subarray(0, need), at);
    } else {
      // Many matches: mark their positions, then read the first `need` marks in order.
      const epoch = this.nextEpoch();
      const marks = this.stamp;
      for (const p of inMain) marks[p] = epoch;
      fromMain = [];
      for (let p = 0; p < size && fromMain.length < need; p++) if (marks[p] === epoch) fromMain.push(at(p));
    }
    if (inDelta.length === 0) return fromMain;
    inDelta.sort((a, b) => this.compare(order, a, b));
    const out: number[] = [];
    let i = 0;
    let j = 0;
    while (out.length < need && (i < fromMain.length || j < inDelta.length)) {
      if (j >= inDelta.length || (i < fromMain.length && this.compare(order, fromMain[i]!, inDelta[j]!) < 0)) out.push(fromMain[i++]!);
      else out.push(inDelta[j++]!);
    }
    return out;
  }

  /**
   * Relevance: the `RELEVANCE_CANDIDATES` best-scored matches ranked by how well they match (per
   * word, the weight of the best field holding it: make/model 1, title 0.4, description 0.2; equal
   * ranks by deal score, then id), then the remaining matches by deal score.
   */
  protected relevancePage(c: Compiled, offset: number, limit: number, total?: number): number[] {
    const byScore = this.topSlots(c, ORDER_INDEX.deal_score_high, Math.max(RELEVANCE_CANDIDATES, offset + limit), total);
    const head = Math.min(byScore.length, RELEVANCE_CANDIDATES);
    // Ranks are small integers (at most 8 words × 10): a counting sort, stable, so equal ranks stay
    // in deal-score order as byScore has them.
    const ranks = new Uint8Array(head);
    const perRank = new Int32Array(MAX_RANK + 2);
    for (let i = 0; i < head; i++) perRank[MAX_RANK - (ranks[i] = this.rank(c, byScore[i]!)) + 1]!++;
    for (let r = 1; r < perRank.length; r++) perRank[r]! += perRank[r - 1]!;
    const ranked = new Array<number>(head);
    for (let i = 0; i < head; i++) ranked[perRank[MAX_RANK - ranks[i]!]!++] = byScore[i]!;
    const out: number[] = [];
    for (let i = offset; i < offset + limit && i < byScore.length; i++) out.push(this.ids[i < head ? ranked[i]! : byScore[i]!]!);
    return out;
  }

  /**
   * Per search word, the best weight among the listing's terms that satisfy it; summed. A slot's
   * terms are stored heaviest first, so a word's first hit is its best and the scan stops once
   * every word has one.
   */
  protected rank(c: Compiled, s: number): number {
    const mask = c.rankMask!;
    const ids = this.termIds.data;
    const all = (1 << c.words) - 1;
    let found = 0;
    let sum = 0;
    for (let i = this.termStart[s]!, end = this.termStart[s + 1]!; i < end && found !== all; i++) {
      const fresh = mask[ids[i]! >>> 2]! & ~found;
      if (fresh === 0) continue;
      found |= fresh;
      // the words this term is the first (so the best) hit of
      sum += RANK_WEIGHTS[ids[i]! & 3]! * popcount(fresh);
    }
    return sum;
  }
}

/**
 * How many matches `relevance` ranks: the best-scored ones. Past them, matches follow in
 * deal-score order — still one total order, so pages never repeat or skip a listing.
 */
export const RELEVANCE_CANDIDATES = 300;
