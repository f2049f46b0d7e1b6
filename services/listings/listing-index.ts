/**
 * The list route's in-memory index of open listings: what a search engine keeps per document
 * (filter fields, sort keys, terms with their weight), in typed arrays, so filtering, ordering,
 * paging and counting a million listings take microseconds to a few milliseconds of one core
 * instead of a PostgreSQL query plan per request. PostgreSQL stays the source of truth: the index
 * is loaded from it and follows its changes (listing-index-sync.ts); the page's cards are read
 * from it by id. Pure: no I/O, the clock is passed in.
 *
 * Layout. Every listing version takes a *slot*; a change kills the old slot and appends a new one
 * (so posting lists stay sorted by slot and are only ever appended to). Per sort order a *main*
 * permutation of slots is kept sorted; slots appended since it was built form a small *delta*
 * kept sorted by binary insertion, and a page walks both in step. When the delta grows, it is
 * merged into the main permutation in one linear pass. Killed slots are skipped and go away when
 * the index is rebuilt (the sync reloads when too many are dead).
 *
 * Semantics match the SQL the route used before (kept in tests as the reference): a listing is
 * listed while its status is open (only open listings enter the index) and its end time is
 * unknown or later than now; prices compare against `price_usd` (what the buyer would pay now),
 * a listing without one never passing a price bound; orders are total (id breaks ties, missing
 * values last); a search needs every word group to hold one of its lexemes.
 */
import type { SortOption } from './listing-schemas.js';

/** A listing as the index needs it (from `listings`; see the sync's load query). */
export type IndexedListing = {
  id: number;
  dealScore: number | null;
  priceUsd: number | null;
  categoryId: number;
  /** Two-letter code as stored. */
  state: string | null;
  /** Lower-cased, as the location filter compares it. */
  city: string | null;
  /** Epoch milliseconds; null when the listing has no end time. */
  endAt: number | null;
  /** The search vector's lexemes, each with its best weight (3 = A … 0 = D). */
  lexemes: readonly string[];
  weights: readonly number[];
};

/** One search word: the listing must hold one of these lexemes, or one starting with a prefix. */
export type WordGroup = { exact: readonly string[]; prefixes: readonly string[] };

export type IndexFilter = {
  categoryId?: number;
  minPrice?: number;
  maxPrice?: number;
  state?: string;
  city?: string;
  groups: readonly WordGroup[];
};

export type IndexSort = SortOption;

/** PostgreSQL's default ts_rank weights for D, C, B, A. */
const RANK_WEIGHTS = [0.1, 0.2, 0.4, 1.0] as const;

/** Parses `tsvector::text` ('lex':1A,5B 'other' …) into lexemes and their best weight. */
export function parseTsvector(text: string): { lexemes: string[]; weights: number[] } {
  const lexemes: string[] = [];
  const weights: number[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    if (text[i] !== "'") {
      i++;
      continue;
    }
    let lexeme = '';
    i++;
    for (;;) {
      const close = text.indexOf("'", i);
      if (close < 0) return { lexemes, weights };
      lexeme += text.slice(i, close);
      if (text[close + 1] === "'") {
        lexeme += "'";
        i = close + 2;
        continue;
      }
      i = close + 1;
      break;
    }
    let weight = 0;
    if (text[i] === ':') {
      i++;
      let hasPositions = false;
      while (i < n && text[i] !== ' ') {
        const ch = text[i]!;
        if (ch === 'A') weight = Math.max(weight, 3);
        else if (ch === 'B') weight = Math.max(weight, 2);
        else if (ch === 'C') weight = Math.max(weight, 1);
        else if (ch === ',') {
          // A position without a letter is weight D, already the floor.
        } else hasPositions = true;
        i++;
      }
      void hasPositions;
    }
    lexemes.push(lexeme);
    weights.push(weight);
  }
  return { lexemes, weights };
}

class IntList {
  data: Int32Array;
  length = 0;
  constructor(capacity = 8) {
    this.data = new Int32Array(capacity);
  }
  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }
}

const ORDERS: readonly Exclude<IndexSort, 'relevance'>[] = ['deal_score_high', 'deal_score_low', 'price_low', 'price_high'];
type Order = (typeof ORDERS)[number];
const ORDER_INDEX: Record<Order, number> = { deal_score_high: 0, deal_score_low: 1, price_low: 2, price_high: 3 };

/** A query resolved against the index's dictionaries. */
type Compiled = {
  category: number;
  hasMin: boolean;
  min: number;
  hasMax: boolean;
  max: number;
  state: number;
  city: number;
  /** Per term id, the bit of every word group it satisfies; null without a search. */
  mask: Uint8Array | null;
  allGroups: number;
  /** Nothing can match (an unknown state, city or category, a word with no lexeme). */
  impossible: boolean;
  /** The candidate slots to visit: the smallest posting list(s) that every match is in. */
  driver: IntList[] | null;
  driverSize: number;
};

export type IndexStats = { live: number; slots: number; dead: number; delta: number; terms: number; approxBytes: number };

export class ListingIndex {
  private capacity: number;
  private slotCount = 0;
  private liveCount = 0;
  private ids: Int32Array;
  private alive: Uint8Array;
  private score: Float64Array;
  private price: Float64Array;
  private category: Int32Array;
  private stateCode: Int32Array;
  private cityCode: Int32Array;
  private endAt: Float64Array;
  /** CSR: the terms of slot s are termIds[termStart[s] .. termStart[s + 1]). */
  private termStart: Int32Array;
  private termIds = new IntList(1024);
  private termWeights = new Uint8Array(1024);
  private readonly slotOf = new Map<number, number>();

  private readonly vocabulary = new Map<string, number>();
  private readonly termNames: string[] = [];
  private sortedTerms: string[] | null = null;
  private readonly termPostings: IntList[] = [];
  private readonly categoryPostings = new Map<number, IntList>();
  private readonly states = new Map<string, number>();
  private readonly statePostings: IntList[] = [];
  private readonly cities = new Map<string, number>();
  private readonly cityPostings: IntList[] = [];

  /** Per order: the main permutation (sorted slots < deltaFrom, dead ones included until rebuilt). */
  private main: Int32Array[] = ORDERS.map(() => new Int32Array(0));
  /** Per order: the position of each slot in `main` (for sorting candidates by integer), or -1. */
  private position: Int32Array[];
  private deltaFrom = 0;
  /** Per order: slots ≥ deltaFrom, sorted. */
  private delta: number[][] = ORDERS.map(() => []);
  private stamp: Uint32Array;
  private epoch = 0;

  /** The delta is merged into the main orders once it holds this many slots (a linear pass). */
  readonly maxDelta: number;

  constructor(opts: { capacity?: number; maxDelta?: number } = {}) {
    this.capacity = Math.max(16, opts.capacity ?? 1024);
    this.maxDelta = opts.maxDelta ?? 4096;
    const c = this.capacity;
    this.ids = new Int32Array(c);
    this.alive = new Uint8Array(c);
    this.score = new Float64Array(c);
    this.price = new Float64Array(c);
    this.category = new Int32Array(c);
    this.stateCode = new Int32Array(c);
    this.cityCode = new Int32Array(c);
    this.endAt = new Float64Array(c);
    this.termStart = new Int32Array(c + 1);
    this.position = ORDERS.map(() => new Int32Array(c).fill(-1));
    this.stamp = new Uint32Array(c);
  }

  /** Builds an index from many listings at once: one sort per order instead of insertions. */
  static build(listings: Iterable<IndexedListing>, opts: { capacity?: number; maxDelta?: number } = {}): ListingIndex {
    const index = new ListingIndex(opts);
    for (const listing of listings) index.add(listing);
    index.finishLoad();
    return index;
  }

  private loading = true;

  /** Bulk loading (a new index only): adds a listing without ordering it yet. */
  add(listing: IndexedListing): void {
    if (!this.loading) throw new Error('add() is for loading a new index; use upsert()');
    this.remove(listing.id);
    this.append(listing);
  }

  /** Ends bulk loading: sorts every order once. */
  finishLoad(): void {
    if (!this.loading) return;
    const fresh = new Int32Array(this.slotCount);
    for (let s = 0; s < fresh.length; s++) fresh[s] = s;
    for (let o = 0; o < ORDERS.length; o++) {
      const order = fresh.slice().sort((a, b) => this.compare(o, a, b));
      this.delta[o] = Array.from(order);
    }
    this.loading = false;
    this.mergeDelta();
  }

  get size(): number {
    return this.liveCount;
  }

  has(id: number): boolean {
    return this.slotOf.has(id);
  }

  stats(): IndexStats {
    const bytes =
      this.capacity * (4 + 1 + 8 + 8 + 4 + 4 + 4 + 8 + 4 + 4 + 4 * 4 * 2) +
      this.termIds.data.length * 5 +
      this.termPostings.reduce((sum, p) => sum + p.data.length * 4, 0);
    return {
      live: this.liveCount,
      slots: this.slotCount,
      dead: this.slotCount - this.liveCount,
      delta: this.slotCount - this.deltaFrom,
      terms: this.termNames.length,
      approxBytes: bytes,
    };
  }

  /** Adds or replaces a listing (an open one: closed listings are removed, not upserted). */
  upsert(listing: IndexedListing): void {
    this.finishLoad();
    this.remove(listing.id);
    const slot = this.append(listing);
    for (let o = 0; o < ORDERS.length; o++) {
      const list = this.delta[o]!;
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (this.compare(o, list[mid]!, slot) < 0) lo = mid + 1;
        else hi = mid;
      }
      list.splice(lo, 0, slot);
    }
    if (this.slotCount - this.deltaFrom >= this.maxDelta) this.mergeDelta();
  }

  remove(id: number): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    this.slotOf.delete(id);
    this.alive[slot] = 0;
    this.liveCount--;
    return true;
  }

  /** Appends a slot without placing it in any order (build and upsert do). */
  private append(listing: IndexedListing): number {
    if (this.slotCount === this.capacity) this.grow();
    const s = this.slotCount++;
    this.ids[s] = listing.id;
    this.alive[s] = 1;
    this.score[s] = listing.dealScore ?? NaN;
    this.price[s] = listing.priceUsd ?? NaN;
    this.category[s] = listing.categoryId;
    this.stateCode[s] = listing.state ? this.codeOf(this.states, this.statePostings, listing.state) : -1;
    this.cityCode[s] = listing.city ? this.codeOf(this.cities, this.cityPostings, listing.city) : -1;
    this.endAt[s] = listing.endAt ?? Infinity;
    if (this.stateCode[s]! >= 0) this.statePostings[this.stateCode[s]!]!.push(s);
    if (this.cityCode[s]! >= 0) this.cityPostings[this.cityCode[s]!]!.push(s);
    let byCategory = this.categoryPostings.get(listing.categoryId);
    if (!byCategory) this.categoryPostings.set(listing.categoryId, (byCategory = new IntList()));
    byCategory.push(s);

    this.termStart[s] = this.termIds.length;
    const seen = new Set<number>();
    for (let i = 0; i < listing.lexemes.length; i++) {
      const term = this.termOf(listing.lexemes[i]!);
      if (seen.has(term)) continue;
      seen.add(term);
      this.termIds.push(term);
      if (this.termWeights.length < this.termIds.data.length) {
        const next = new Uint8Array(this.termIds.data.length);
        next.set(this.termWeights);
        this.termWeights = next;
      }
      this.termWeights[this.termIds.length - 1] = Math.min(3, Math.max(0, listing.weights[i] ?? 0));
      this.termPostings[term]!.push(s);
    }
    this.termStart[s + 1] = this.termIds.length;
    this.slotOf.set(listing.id, s);
    this.liveCount++;
    return s;
  }

  private codeOf(codes: Map<string, number>, postings: IntList[], value: string): number {
    let code = codes.get(value);
    if (code === undefined) {
      code = postings.length;
      codes.set(value, code);
      postings.push(new IntList());
    }
    return code;
  }

  private termOf(lexeme: string): number {
    let term = this.vocabulary.get(lexeme);
    if (term === undefined) {
      term = this.termNames.length;
      this.vocabulary.set(lexeme, term);
      this.termNames.push(lexeme);
      this.termPostings.push(new IntList(4));
      this.sortedTerms = null;
    }
    return term;
  }

  private grow(): void {
    const c = this.capacity * 2;
    const grow = <T extends Int32Array | Uint8Array | Float64Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const next = make(c);
      next.set(a as never);
      return next;
    };
    this.ids = grow(this.ids, (n) => new Int32Array(n));
    this.alive = grow(this.alive, (n) => new Uint8Array(n));
    this.score = grow(this.score, (n) => new Float64Array(n));
    this.price = grow(this.price, (n) => new Float64Array(n));
    this.category = grow(this.category, (n) => new Int32Array(n));
    this.stateCode = grow(this.stateCode, (n) => new Int32Array(n));
    this.cityCode = grow(this.cityCode, (n) => new Int32Array(n));
    this.endAt = grow(this.endAt, (n) => new Float64Array(n));
    const termStart = new Int32Array(c + 1);
    termStart.set(this.termStart);
    this.termStart = termStart;
    this.position = this.position.map((p) => {
      const next = new Int32Array(c).fill(-1);
      next.set(p);
      return next;
    });
    this.stamp = new Uint32Array(c);
    this.epoch = 0;
    this.capacity = c;
  }

  /** Sort key of a slot in an order: smaller first, missing values (NaN) last. */
  private compare(order: number, a: number, b: number): number {
    let ka: number;
    let kb: number;
    switch (order) {
      case 0:
        ka = -this.score[a]!;
        kb = -this.score[b]!;
        break;
      case 1:
        ka = this.score[a]!;
        kb = this.score[b]!;
        break;
      case 2:
        ka = this.price[a]!;
        kb = this.price[b]!;
        break;
      default:
        ka = -this.price[a]!;
        kb = -this.price[b]!;
    }
    const aMissing = ka !== ka;
    const bMissing = kb !== kb;
    if (aMissing !== bMissing) return aMissing ? 1 : -1;
    if (!aMissing && ka !== kb) return ka < kb ? -1 : 1;
    return this.ids[a]! - this.ids[b]!;
  }

  /** Folds the delta (and drops dead slots) into each main order: one linear merge per order. */
  mergeDelta(): void {
    if (this.loading) return this.finishLoad();
    for (let o = 0; o < ORDERS.length; o++) {
      const main = this.main[o]!;
      const delta = this.delta[o]!;
      const merged = new Int32Array(this.liveCount);
      const position = this.position[o]!;
      position.fill(-1);
      let i = 0;
      let j = 0;
      let k = 0;
      while (i < main.length || j < delta.length) {
        let s: number;
        if (j >= delta.length || (i < main.length && this.compare(o, main[i]!, delta[j]!) < 0)) s = main[i++]!;
        else s = delta[j++]!;
        if (this.alive[s] === 0) continue;
        position[s] = k;
        merged[k++] = s;
      }
      this.main[o] = k === merged.length ? merged : merged.slice(0, k);
      this.delta[o] = [];
    }
    this.deltaFrom = this.slotCount;
  }

  private sortedVocabulary(): string[] {
    if (!this.sortedTerms) this.sortedTerms = [...this.termNames].sort();
    return this.sortedTerms;
  }

  /** The term ids a word group names (its exact lexemes, and every term starting with a prefix). */
  private termsOf(group: WordGroup): number[] {
    const terms = new Set<number>();
    for (const lexeme of group.exact) {
      const term = this.vocabulary.get(lexeme);
      if (term !== undefined) terms.add(term);
    }
    if (group.prefixes.length > 0) {
      const sorted = this.sortedVocabulary();
      for (const prefix of group.prefixes) {
        let lo = 0;
        let hi = sorted.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (sorted[mid]! < prefix) lo = mid + 1;
          else hi = mid;
        }
        for (let i = lo; i < sorted.length && sorted[i]!.startsWith(prefix); i++) terms.add(this.vocabulary.get(sorted[i]!)!);
      }
    }
    return [...terms];
  }

  private compile(filter: IndexFilter): Compiled {
    const c: Compiled = {
      category: filter.categoryId ?? -1,
      hasMin: filter.minPrice !== undefined,
      min: filter.minPrice ?? 0,
      hasMax: filter.maxPrice !== undefined,
      max: filter.maxPrice ?? 0,
      state: -1,
      city: -1,
      mask: null,
      allGroups: 0,
      impossible: false,
      driver: null,
      driverSize: this.slotCount,
    };
    const consider = (lists: IntList[]) => {
      const size = lists.reduce((sum, l) => sum + l.length, 0);
      if (size < c.driverSize) {
        c.driver = lists;
        c.driverSize = size;
      }
    };
    if (filter.categoryId !== undefined) {
      const postings = this.categoryPostings.get(filter.categoryId);
      if (!postings) c.impossible = true;
      else consider([postings]);
    }
    if (filter.state !== undefined) {
      const code = this.states.get(filter.state);
      if (code === undefined) c.impossible = true;
      else {
        c.state = code;
        consider([this.statePostings[code]!]);
      }
    }
    if (filter.city !== undefined) {
      const code = this.cities.get(filter.city);
      if (code === undefined) c.impossible = true;
      else {
        c.city = code;
        consider([this.cityPostings[code]!]);
      }
    }
    if (filter.groups.length > 0) {
      if (filter.groups.length > 8) throw new Error('at most 8 search words');
      const mask = new Uint8Array(this.termNames.length);
      filter.groups.forEach((group, g) => {
        const terms = this.termsOf(group);
        if (terms.length === 0) c.impossible = true;
        for (const t of terms) mask[t]! |= 1 << g;
        consider(terms.map((t) => this.termPostings[t]!));
      });
      c.mask = mask;
      c.allGroups = (1 << filter.groups.length) - 1;
    }
    return c;
  }

  private matches(c: Compiled, s: number, now: number): boolean {
    if (this.alive[s] === 0 || !(this.endAt[s]! > now)) return false;
    if (c.category >= 0 && this.category[s] !== c.category) return false;
    if (c.hasMin && !(this.price[s]! >= c.min)) return false;
    if (c.hasMax && !(this.price[s]! <= c.max)) return false;
    if (c.state >= 0 && this.stateCode[s] !== c.state) return false;
    if (c.city >= 0 && this.cityCode[s] !== c.city) return false;
    const mask = c.mask;
    if (mask) {
      let got = 0;
      const ids = this.termIds.data;
      for (let i = this.termStart[s]!, end = this.termStart[s + 1]!; i < end; i++) got |= mask[ids[i]!]!;
      if (got !== c.allGroups) return false;
    }
    return true;
  }

  /** Calls `visit` once for every slot that may match (the driver's, deduplicated), in any order. */
  private forEachCandidate(c: Compiled, visit: (slot: number) => void): void {
    if (!c.driver) {
      for (let s = 0; s < this.slotCount; s++) visit(s);
      return;
    }
    if (c.driver.length === 1) {
      const list = c.driver[0]!;
      for (let i = 0; i < list.length; i++) visit(list.data[i]!);
      return;
    }
    // Several posting lists (a word's lexemes): a slot may be in more than one.
    const epoch = this.nextEpoch();
    const stamp = this.stamp;
    for (const list of c.driver) {
      for (let i = 0; i < list.length; i++) {
        const s = list.data[i]!;
        if (stamp[s] === epoch) continue;
        stamp[s] = epoch;
        visit(s);
      }
    }
  }

  private nextEpoch(): number {
    this.epoch = (this.epoch + 1) >>> 0;
    if (this.epoch === 0) {
      this.stamp.fill(0);
      this.epoch = 1;
    }
    return this.epoch;
  }

  /** How many listed listings pass the filter at `now`. */
  count(filter: IndexFilter, now: number): number {
    this.finishLoad();
    const c = this.compile(filter);
    if (c.impossible) return 0;
    let n = 0;
    this.forEachCandidate(c, (s) => {
      if (this.matches(c, s, now)) n++;
    });
    return n;
  }

  /**
   * The ids of one page: `limit` listings from `offset` in `sort`. `total` (the filter's count, if
   * known) tells how selective the filter is, to choose between walking the order until the page
   * is full and collecting every candidate then sorting those.
   */
  page(filter: IndexFilter, sort: IndexSort, offset: number, limit: number, now: number, total?: number): number[] {
    this.finishLoad();
    const c = this.compile(filter);
    if (c.impossible || limit <= 0) return [];
    if (sort === 'relevance' && c.mask) return this.relevancePage(c, offset, limit, now, total);
    const order = ORDER_INDEX[sort === 'relevance' ? 'deal_score_high' : sort];
    return this.topSlots(c, order, offset + limit, now, total)
      .slice(offset)
      .map((s) => this.ids[s]!);
  }

  /** The first `need` matching slots in an order. */
  private topSlots(c: Compiled, order: number, need: number, now: number, total?: number): number[] {
    const matches = total ?? c.driverSize;
    if (matches === 0) return [];
    // Walking visits about need × (listings / matches) slots; collecting visits the driver's.
    const walkCost = (need * this.liveCount) / Math.max(1, Math.min(matches, c.driverSize));
    return walkCost <= c.driverSize ? this.walk(c, order, need, now) : this.collect(c, order, need, now);
  }

  private walk(c: Compiled, order: number, need: number, now: number): number[] {
    const out: number[] = [];
    const main = this.main[order]!;
    const delta = this.delta[order]!;
    let i = 0;
    let j = 0;
    while (out.length < need && (i < main.length || j < delta.length)) {
      let s: number;
      if (j >= delta.length || (i < main.length && this.compare(order, main[i]!, delta[j]!) < 0)) s = main[i++]!;
      else s = delta[j++]!;
      if (this.matches(c, s, now)) out.push(s);
    }
    return out;
  }

  private collect(c: Compiled, order: number, need: number, now: number): number[] {
    const position = this.position[order]!;
    const inMain: number[] = [];
    const inDelta: number[] = [];
    this.forEachCandidate(c, (s) => {
      if (!this.matches(c, s, now)) return;
      if (position[s]! >= 0) inMain.push(position[s]!);
      else inDelta.push(s);
    });
    const positions = Int32Array.from(inMain).sort();
    const main = this.main[order]!;
    inDelta.sort((a, b) => this.compare(order, a, b));
    const out: number[] = [];
    let i = 0;
    let j = 0;
    while (out.length < need && (i < positions.length || j < inDelta.length)) {
      if (j >= inDelta.length || (i < positions.length && this.compare(order, main[positions[i]!]!, inDelta[j]!) < 0)) out.push(main[positions[i++]!]!);
      else out.push(inDelta[j++]!);
    }
    return out;
  }

  /**
   * Relevance: the `RELEVANCE_CANDIDATES` best-scored matches ranked by how well they match (per
   * word, the weight of the best field holding it: make/model 1, title 0.4, description 0.2; equal
   * ranks by deal score, then id), then the remaining matches by deal score.
   */
  private relevancePage(c: Compiled, offset: number, limit: number, now: number, total?: number): number[] {
    const candidates = RELEVANCE_CANDIDATES;
    const byScore = this.topSlots(c, ORDER_INDEX.deal_score_high, Math.max(candidates, offset + limit), now, total);
    const head = byScore.slice(0, candidates);
    const rank = new Map<number, number>(head.map((s) => [s, this.rank(c, s)]));
    head.sort((a, b) => rank.get(b)! - rank.get(a)! || this.compare(ORDER_INDEX.deal_score_high, a, b));
    return [...head, ...byScore.slice(candidates)].slice(offset, offset + limit).map((s) => this.ids[s]!);
  }

  private rank(c: Compiled, s: number): number {
    const mask = c.mask!;
    const best = new Array<number>(8).fill(0);
    const ids = this.termIds.data;
    for (let i = this.termStart[s]!, end = this.termStart[s + 1]!; i < end; i++) {
      const bits = mask[ids[i]!]!;
      if (bits === 0) continue;
      const weight = RANK_WEIGHTS[this.termWeights[i]!]!;
      for (let g = 0; g < 8; g++) if (bits & (1 << g) && weight > best[g]!) best[g] = weight;
    }
    return best.reduce((sum, w) => sum + w, 0);
  }
}

/**
 * How many matches `relevance` ranks: the best-scored ones. Past them, matches follow in
 * deal-score order — still one total order, so pages never repeat or skip a listing.
 */
export const RELEVANCE_CANDIDATES = 300;
