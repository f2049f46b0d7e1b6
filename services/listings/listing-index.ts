/**
 * The list route's in-memory index of open listings: what a search engine keeps per document
 * (filter fields, sort keys, terms with their weight), in typed arrays, so filtering, ordering,
 * paging and counting a million listings take microseconds to a few milliseconds of one core
 * instead of a PostgreSQL query plan per request. PostgreSQL stays the source of truth: the index
 * is loaded from it and follows its changes (listing-index-sync.ts); the page's cards are read
 * from it by id. Pure: no I/O, the clock is passed in.
 *
 * Layout. Every listing version takes a *slot*; a change kills the old slot and appends a new one
 * (so posting lists stay sorted by slot and are only ever appended to). A *listed* bitset holds
 * the slots alive and not yet ended; an end-time heap clears bits as a query's clock passes them,
 * and counters per category, state and city follow it. Each term, category, state and city keeps
 * its slots (a posting list) and, once frequent, a bitset too: a count ANDs the bitsets 32 slots
 * at a time, a page tests a slot with a few bit reads. Per sort order a *main* permutation of
 * slots is kept sorted; slots appended since it was built form a small *delta* kept sorted by
 * binary insertion, and a page walks both in step. When the delta grows, it is merged into the
 * main permutation in one linear pass. Killed slots are skipped and go away when the index is
 * rebuilt (the sync reloads when too many are dead).
 *
 * The load numbers slots in deal_score_high order (the default sort, and relevance's candidates):
 * there, slot order *is* the order, so a page ANDs bitsets from slot 0 and stops when full; slots
 * appended later (a *tail*, kept sorted) are merged in. The sync reloads once the tail is large.
 *
 * Semantics are those of the list route's contract (a plain filter-sort-slice reference in the
 * unit tests): a listing is listed while its status is open (only open listings enter the index)
 * and its end time is unknown or later than now; prices compare against `price_usd` (what the
 * buyer would pay now), a listing without one never passing a price bound; orders are total (id
 * breaks ties, missing values last); a search needs every word group to hold one of its lexemes.
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

/** PostgreSQL's default ts_rank weights for D, C, B, A (0.1, 0.2, 0.4, 1), ×10 so sums are exact. */
const RANK_WEIGHTS = [1, 2, 4, 10] as const;
/** The highest rank: every one of a search's (at most 8) words in make/model. */
const MAX_RANK = 8 * 10;

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
      // Positions such as 1A,5B,7: the letter is the weight (none = D, the floor).
      while (i < n && text[i] !== ' ') {
        const ch = text[i]!;
        if (ch === 'A') weight = 3;
        else if (ch === 'B') weight = Math.max(weight, 2);
        else if (ch === 'C') weight = Math.max(weight, 1);
        i++;
      }
    }
    lexemes.push(lexeme);
    weights.push(weight);
  }
  return { lexemes, weights };
}

type SlotArray = Int32Array | Uint8Array | Float64Array;

/** An empty array of the same kind as `a`. */
function sameKind<T extends SlotArray>(a: T, length: number): T {
  return new (a.constructor as new (length: number) => T)(length);
}

/** Set bits in a 32-bit word. */
function popcount(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
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

/** The slots holding one value (a term, a category, a state, a city): a list, and once frequent a bitset too. */
class Postings {
  readonly list = new IntList(4);
  bits: Uint32Array | null = null;
  /** Listed slots holding the value (kept for categories, states and cities). */
  listed = 0;

  add(slot: number, capacity: number, minForBits: number): void {
    this.list.push(slot);
    if (this.bits) this.bits[slot >>> 5]! |= 1 << (slot & 31);
    else if (this.list.length >= minForBits) {
      const bits = new Uint32Array(capacity >>> 5);
      for (let i = 0; i < this.list.length; i++) {
        const s = this.list.data[i]!;
        bits[s >>> 5]! |= 1 << (s & 31);
      }
      this.bits = bits;
    }
  }

  resize(capacity: number): void {
    if (!this.bits) return;
    const bits = new Uint32Array(capacity >>> 5);
    bits.set(this.bits);
    this.bits = bits;
  }
}

/** One search word: its frequent terms' bitsets, and whether rarer terms (the mask) also satisfy it. */
type CompiledGroup = { bit: number; bitsets: Uint32Array[]; rare: Postings[]; terms: number[] };

/** A query resolved against the index's dictionaries. */
type Compiled = {
  /** Bitsets every match is in (listed first; category, state, city, search words when they have one). */
  required: Uint32Array[];
  /** Equality checks left to do per slot (-1: none; set only when the value has no bitset). */
  category: number;
  state: number;
  city: number;
  hasMin: boolean;
  min: number;
  hasMax: boolean;
  max: number;
  /** Search words not folded into `required`. */
  groups: CompiledGroup[];
  /** Per term id, the bit of every group whose rare terms include it; null when none has any. */
  mask: Uint8Array | null;
  /** Nothing can match (an unknown state, city or category, a word with no lexeme). */
  impossible: boolean;
  /** The candidate slots to visit: the smallest posting list(s) that every match is in. */
  driver: IntList[] | null;
  driverSize: number;
  /** The search word whose lists are the driver, if one is: its candidates need not be checked against it. */
  driverGroup: CompiledGroup | null;
  /** Only filters the counters answer (none, or one of category / state / city). */
  counted: Postings | 'all' | null;
  /** The category filtered on, if any (its own orders are walked). */
  categoryId: number | undefined;
  /** Per term id, the bit of every word it satisfies (for relevance ranking); null without a search. */
  rankMask: Uint8Array | null;
  words: number;
  /** Term ids set in the scratch masks (cleared after the query). */
  touched: number[];
};

export type IndexStats = {
  live: number;
  listed: number;
  slots: number;
  dead: number;
  delta: number;
  /** Live slots appended since the load (outside the score-numbered range). */
  unordered: number;
  terms: number;
  bitsetTerms: number;
  approxBytes: number;
};

/** Slots of one value from which it also keeps a bitset (a bit test instead of a term scan). */
const MIN_BITSET_POSTINGS = 2048;
/** Search words whose bitsets are kept (about 128 KB each at a million listings). */
const WORD_BITS_CACHED = 64;

export type IndexOptions = { capacity?: number; maxDelta?: number; minBitsetPostings?: number };

export class ListingIndex {
  private capacity: number;
  private slotCount = 0;
  private liveCount = 0;
  private ids: Int32Array;
  private alive: Uint8Array;
  /** Bit per slot: alive and not ended as of `clock` (see expire). */
  private listed: Uint32Array;
  private listedCount = 0;
  private score: Float64Array;
  private price: Float64Array;
  private category: Int32Array;
  private stateCode: Int32Array;
  private cityCode: Int32Array;
  private endAt: Float64Array;
  /** Min-heap of (end time, slot) for listed slots that have an end time. */
  private heapTime = new Float64Array(1024);
  private heapSlot = new Int32Array(1024);
  private heapSize = 0;
  /** The latest `now` the index has expired listings at. */
  private clock = -Infinity;
  /** CSR: the terms of slot s are termIds[termStart[s] .. termStart[s + 1]). */
  private termStart: Int32Array;
  private termIds = new IntList(1024);
  private termWeights = new Uint8Array(1024);
  /** Per term: 1 + the slot that last took it (so appending a listing skips a repeated term). */
  private termStamp = new Int32Array(1024);
  private readonly slotOf = new Map<number, number>();

  private readonly vocabulary = new Map<string, number>();
  private readonly termNames: string[] = [];
  private sortedTerms: string[] | null = null;
  private readonly terms: Postings[] = [];
  private readonly categories = new Map<number, Postings>();
  private readonly stateIds = new Map<string, number>();
  private readonly states: Postings[] = [];
  private readonly cityIds = new Map<string, number>();
  private readonly cities: Postings[] = [];

  /** Per order: the main permutation (sorted slots < deltaFrom, dead ones included until merged). */
  private main: Int32Array[] = ORDERS.map(() => new Int32Array(0));
  /** Per order and category: the category's slots of `main`, in the same order (a category's pages walk these). */
  private byCategory: Array<Map<number, Int32Array>> = ORDERS.map(() => new Map());
  /** Per order: the position of each slot in `main`, or -1. */
  private position: Int32Array[];
  private deltaFrom = 0;
  /** Per order: slots ≥ deltaFrom, sorted. */
  private delta: number[][] = ORDERS.map(() => []);
  private stamp: Uint32Array;
  private epoch = 0;
  private loading = true;
  /**
   * Slots below this are numbered in deal_score_high order (the load renumbers them so): a page in
   * that order — the default sort, and relevance's candidates — reads them by ANDing bitsets from
   * slot 0 and stops when it has enough, instead of visiting slots in a permutation's order.
   */
  private ordered = 0;
  /** Slots from `ordered` on (appended since the load), in deal_score_high order; dead ones until a merge. */
  private tail: number[] = [];

  /**
   * The bitsets of recent search words (their terms ORed), kept up to date as listings are
   * appended: a word searched again costs no pass over its postings. A derived structure of the
   * index, exact at all times — not a cache of answers.
   */
  private readonly wordBits = new Map<string, { terms: Set<number>; bits: Uint32Array }>();

  /** The delta is merged into the main orders once it holds this many slots (a linear pass). */
  readonly maxDelta: number;
  private readonly minBitsetPostings: number;

  constructor(opts: IndexOptions = {}) {
    this.capacity = Math.max(64, opts.capacity ?? 1024);
    this.maxDelta = opts.maxDelta ?? 4096;
    this.minBitsetPostings = opts.minBitsetPostings ?? MIN_BITSET_POSTINGS;
    const c = this.capacity;
    this.ids = new Int32Array(c);
    this.alive = new Uint8Array(c);
    this.listed = new Uint32Array(c >>> 5);
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
  static build(listings: Iterable<IndexedListing>, opts: IndexOptions = {}): ListingIndex {
    const index = new ListingIndex(opts);
    for (const listing of listings) index.add(listing);
    index.finishLoad();
    return index;
  }

  /** Bulk loading (a new index only): adds a listing without ordering it yet. */
  add(listing: IndexedListing): void {
    if (!this.loading) throw new Error('add() is for loading a new index; use upsert()');
    this.remove(listing.id);
    this.append(listing);
  }

  /** Ends bulk loading: renumbers the slots in deal_score_high order, then sorts every other order once. */
  finishLoad(): void {
    if (!this.loading) return;
    this.steps ??= this.loadSteps();
    while (!this.steps.next().done);
  }

  /**
   * The same, a second or so of work at a time with `pause()` between (a reload of a million
   * listings would otherwise hold the process's event loop for several seconds).
   */
  async finishLoadInSteps(pause: () => Promise<void>): Promise<void> {
    if (!this.loading) return;
    this.steps ??= this.loadSteps();
    while (!this.steps.next().done) await pause();
  }

  private steps: Generator<void> | null = null;

  private *loadSteps(): Generator<void> {
    yield* this.renumberByScore();
    const fresh = new Int32Array(this.slotCount);
    for (let s = 0; s < fresh.length; s++) fresh[s] = s;
    for (let o = 0; o < ORDERS.length; o++) {
      const order = o === ORDER_INDEX.deal_score_high ? fresh : fresh.slice().sort((a, b) => this.compare(o, a, b));
      this.delta[o] = Array.from(order);
      yield;
    }
    this.loading = false;
    this.mergeDelta();
    this.ordered = this.slotCount;
  }

  /**
   * Moves every live slot to its rank in deal_score_high order (dead ones are dropped): per-slot
   * arrays are permuted, the terms' CSR copied in the new order, posting lists mapped and sorted,
   * bitsets, the id map and the end-time heap rebuilt.
   */
  private *renumberByScore(): Generator<void> {
    const old = this.slotCount;
    const live: number[] = [];
    for (let s = 0; s < old; s++) if (this.alive[s] === 1) live.push(s);
    const perm = Int32Array.from(live).sort((a, b) => this.compare(ORDER_INDEX.deal_score_high, a, b));
    const n = perm.length;
    const newOf = new Int32Array(old).fill(-1);
    for (let k = 0; k < n; k++) newOf[perm[k]!] = k;
    yield;
    const cap = this.capacity;
    this.mapSlotArrays((a) => {
      const next = sameKind(a, cap);
      for (let k = 0; k < n; k++) next[k] = a[perm[k]!]!;
      return next;
    });
    const listed = new Uint32Array(cap >>> 5);
    for (let k = 0; k < n; k++) if (this.isListed(perm[k]!)) listed[k >>> 5]! |= 1 << (k & 31);
    this.listed = listed;
    // Posting lists are refilled in the new slot order (so sorted), in the same pass as the terms' CSR.
    yield;
    const postings = [...this.terms, ...this.categories.values(), ...this.states, ...this.cities];
    for (const p of postings) p.list.length = 0;
    const post = (p: Postings, k: number) => p.list.push(k);
    const termStart = new Int32Array(cap + 1);
    const termIds = new IntList(Math.max(8, this.termIds.length));
    const termWeights = new Uint8Array(termIds.data.length);
    for (let k = 0; k < n; k++) {
      const s = perm[k]!;
      termStart[k] = termIds.length;
      for (let i = this.termStart[s]!, end = this.termStart[s + 1]!; i < end; i++) {
        const term = this.termIds.data[i]!;
        termWeights[termIds.length] = this.termWeights[i]!;
        termIds.push(term);
        post(this.terms[term]!, k);
      }
      post(this.categories.get(this.category[k]!)!, k);
      if (this.stateCode[k]! >= 0) post(this.states[this.stateCode[k]!]!, k);
      if (this.cityCode[k]! >= 0) post(this.cities[this.cityCode[k]!]!, k);
    }
    termStart[n] = termIds.length;
    this.termStart = termStart;
    this.termIds = termIds;
    this.termWeights = termWeights;
    yield;
    // Bitsets from the lists, one at a time (setting them in the pass above missed the cache on every bit).
    for (const p of postings) {
      if (!p.bits) continue;
      p.bits.fill(0);
      const list = p.list;
      for (let i = 0; i < list.length; i++) {
        const k = list.data[i]!;
        p.bits[k >>> 5]! |= 1 << (k & 31);
      }
    }
    yield;
    for (const [id, s] of this.slotOf) this.slotOf.set(id, newOf[s]!);
    // The heap: its listed entries renamed, then heapified again (dead ones dropped).
    const times: number[] = [];
    const slots: number[] = [];
    for (let i = 0; i < this.heapSize; i++) {
      const k = newOf[this.heapSlot[i]!]!;
      if (k >= 0) {
        times.push(this.heapTime[i]!);
        slots.push(k);
      }
    }
    this.heapSize = 0;
    for (let i = 0; i < times.length; i++) this.pushExpiry(times[i]!, slots[i]!);
    this.wordBits.clear();
    this.stamp.fill(0);
    this.epoch = 0;
    // Slot numbers start again below the old ones: stamps of old slots would be taken for new ones.
    this.termStamp.fill(0);
    this.slotCount = n;
  }

  /** Live listings (ended ones included until their end passes a query's clock). */
  get size(): number {
    return this.liveCount;
  }

  /** Slots appended since the load, outside the score-numbered range (dead ones until a merge). */
  get unordered(): number {
    return this.tail.length;
  }

  /** Slots of replaced or removed listings, until the next reload. */
  get dead(): number {
    return this.slotCount - this.liveCount;
  }

  stats(): IndexStats {
    const all = [...this.terms, ...this.categories.values(), ...this.states, ...this.cities];
    const bitsets = all.filter((p) => p.bits).length;
    const bytes =
      this.capacity * (4 + 1 + 8 + 8 + 4 + 4 + 4 + 8 + 4 + 4 + 4 * 4 * 2 + 1 / 8) +
      this.termIds.data.length * 5 +
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

  /** Adds or replaces a listing (an open one: closed listings are removed, not upserted). */
  upsert(listing: IndexedListing): void {
    this.finishLoad();
    this.remove(listing.id);
    const slot = this.append(listing);
    for (let o = 0; o < ORDERS.length; o++) this.insertSorted(this.delta[o]!, o, slot);
    this.insertSorted(this.tail, ORDER_INDEX.deal_score_high, slot);
    if (this.slotCount - this.deltaFrom >= this.maxDelta) this.mergeDelta();
  }

  /** Binary insertion into a list sorted in an order. */
  private insertSorted(list: number[], order: number, slot: number): void {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.compare(order, list[mid]!, slot) < 0) lo = mid + 1;
      else hi = mid;
    }
    list.splice(lo, 0, slot);
  }

  remove(id: number): boolean {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return false;
    this.slotOf.delete(id);
    this.alive[slot] = 0;
    this.unlist(slot);
    this.liveCount--;
    return true;
  }

  private isListed(s: number): boolean {
    return (this.listed[s >>> 5]! & (1 << (s & 31))) !== 0;
  }

  private unlist(s: number): void {
    if (!this.isListed(s)) return;
    this.listed[s >>> 5]! &= ~(1 << (s & 31));
    this.tally(s, -1);
  }

  private tally(s: number, delta: 1 | -1): void {
    this.listedCount += delta;
    this.categories.get(this.category[s]!)!.listed += delta;
    if (this.stateCode[s]! >= 0) this.states[this.stateCode[s]!]!.listed += delta;
    if (this.cityCode[s]! >= 0) this.cities[this.cityCode[s]!]!.listed += delta;
  }

  /** Unlists every listing whose end time is not after `now` (time only moves forward here). */
  private expire(now: number): void {
    if (now <= this.clock) return;
    this.clock = now;
    const time = this.heapTime;
    const slots = this.heapSlot;
    while (this.heapSize > 0 && time[0]! <= now) {
      const s = slots[0]!;
      // Pop: move the last entry to the root and sift it down.
      const n = --this.heapSize;
      const t = time[n]!;
      const last = slots[n]!;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const child = r < n && time[r]! < time[l]! ? r : l;
        if (time[child]! >= t) break;
        time[i] = time[child]!;
        slots[i] = slots[child]!;
        i = child;
      }
      time[i] = t;
      slots[i] = last;
      if (this.alive[s] === 1 && this.endAt[s]! <= now) this.unlist(s);
    }
  }

  private pushExpiry(endAt: number, s: number): void {
    if (this.heapSize === this.heapTime.length) {
      const time = new Float64Array(this.heapTime.length * 2);
      time.set(this.heapTime);
      this.heapTime = time;
      const slots = new Int32Array(this.heapSlot.length * 2);
      slots.set(this.heapSlot);
      this.heapSlot = slots;
    }
    let i = this.heapSize++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.heapTime[parent]! <= endAt) break;
      this.heapTime[i] = this.heapTime[parent]!;
      this.heapSlot[i] = this.heapSlot[parent]!;
      i = parent;
    }
    this.heapTime[i] = endAt;
    this.heapSlot[i] = s;
  }

  /** Appends a slot without placing it in any order (build and upsert do). */
  private append(listing: IndexedListing): number {
    if (this.slotCount === this.capacity) this.grow();
    const s = this.slotCount++;
    const cap = this.capacity;
    const min = this.minBitsetPostings;
    this.ids[s] = listing.id;
    this.alive[s] = 1;
    this.score[s] = listing.dealScore ?? NaN;
    this.price[s] = listing.priceUsd ?? NaN;
    this.category[s] = listing.categoryId;
    let byCategory = this.categories.get(listing.categoryId);
    if (!byCategory) this.categories.set(listing.categoryId, (byCategory = new Postings()));
    // Categories are few: a bitset each from the start.
    byCategory.add(s, cap, 0);
    this.stateCode[s] = listing.state ? this.codeOf(this.stateIds, this.states, listing.state) : -1;
    this.cityCode[s] = listing.city ? this.codeOf(this.cityIds, this.cities, listing.city) : -1;
    if (this.stateCode[s]! >= 0) this.states[this.stateCode[s]!]!.add(s, cap, min);
    if (this.cityCode[s]! >= 0) this.cities[this.cityCode[s]!]!.add(s, cap, min);
    const endAt = listing.endAt ?? Infinity;
    this.endAt[s] = endAt;
    if (endAt > this.clock) {
      this.listed[s >>> 5]! |= 1 << (s & 31);
      this.tally(s, 1);
      if (endAt !== Infinity) this.pushExpiry(endAt, s);
    }

    this.termStart[s] = this.termIds.length;
    // Heaviest first (make/model, then title, then description): ranking stops at a word's first
    // hit. One pass per weight, and a stamp per term for duplicates (no allocation per listing).
    const lexemes = listing.lexemes;
    const weights = listing.weights;
    for (let weight = 3; weight >= 0; weight--) {
      for (let i = 0; i < lexemes.length; i++) {
        if (Math.min(3, Math.max(0, weights[i] ?? 0)) !== weight) continue;
        const term = this.termOf(lexemes[i]!);
        if (this.termStamp[term] === s + 1) continue;
        this.termStamp[term] = s + 1;
        this.termIds.push(term);
        if (this.termWeights.length < this.termIds.data.length) {
          const next = new Uint8Array(this.termIds.data.length);
          next.set(this.termWeights);
          this.termWeights = next;
        }
        this.termWeights[this.termIds.length - 1] = weight;
        this.terms[term]!.add(s, cap, min);
      }
    }
    this.termStart[s + 1] = this.termIds.length;
    if (this.wordBits.size > 0) {
      const ids = this.termIds.data;
      for (const word of this.wordBits.values()) {
        for (let i = this.termStart[s]!; i < this.termIds.length; i++) {
          if (word.terms.has(ids[i]!)) {
            word.bits[s >>> 5]! |= 1 << (s & 31);
            break;
          }
        }
      }
    }
    this.slotOf.set(listing.id, s);
    this.liveCount++;
    return s;
  }

  private codeOf(codes: Map<string, number>, postings: Postings[], value: string): number {
    let code = codes.get(value);
    if (code === undefined) {
      code = postings.length;
      codes.set(value, code);
      postings.push(new Postings());
    }
    return code;
  }

  private termOf(lexeme: string): number {
    let term = this.vocabulary.get(lexeme);
    if (term === undefined) {
      term = this.termNames.length;
      this.vocabulary.set(lexeme, term);
      this.termNames.push(lexeme);
      this.terms.push(new Postings());
      if (term >= this.termStamp.length) {
        const grown = new Int32Array(this.termStamp.length * 2);
        grown.set(this.termStamp);
        this.termStamp = grown;
      }
      this.sortedTerms = null;
    }
    return term;
  }

  private grow(): void {
    const c = this.capacity * 2;
    const grown = <T extends Int32Array | Uint8Array | Float64Array | Uint32Array>(a: T, make: (n: number) => T, size = c): T => {
      const next = make(size);
      next.set(a as never);
      return next;
    };
    this.mapSlotArrays((a) => {
      const next = sameKind(a, c);
      next.set(a);
      return next;
    });
    this.listed = grown(this.listed, (n) => new Uint32Array(n), c >>> 5);
    this.termStart = grown(this.termStart, (n) => new Int32Array(n), c + 1);
    for (const p of [...this.terms, ...this.categories.values(), ...this.states, ...this.cities]) p.resize(c);
    this.wordBits.clear();
    this.position = this.position.map((p) => {
      const next = new Int32Array(c).fill(-1);
      next.set(p);
      return next;
    });
    this.stamp = new Uint32Array(c);
    this.epoch = 0;
    this.capacity = c;
  }

  /** Replaces every array holding one value per slot (renumbering and growing go through here). */
  private mapSlotArrays(f: <T extends SlotArray>(a: T) => T): void {
    this.ids = f(this.ids);
    this.alive = f(this.alive);
    this.score = f(this.score);
    this.price = f(this.price);
    this.category = f(this.category);
    this.stateCode = f(this.stateCode);
    this.cityCode = f(this.cityCode);
    this.endAt = f(this.endAt);
  }

  /** Order of two slots: the sort key (missing values last), then the listing id. */
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
    const categories = this.categoryCodes();
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
      this.byCategory[o] = this.splitByCategory(this.main[o]!, categories);
    }
    this.deltaFrom = this.slotCount;
    this.tail = this.tail.filter((t) => this.alive[t] === 1);
  }

  /** A dense code per slot's category (so splitting an order is two typed-array passes). */
  private categoryCodes(): { codes: Map<number, number>; slotCode: Int32Array } {
    const codes = new Map<number, number>();
    const slotCode = new Int32Array(this.slotCount);
    let last = NaN;
    let lastCode = 0;
    for (let s = 0; s < this.slotCount; s++) {
      const category = this.category[s]!;
      if (category !== last) {
        let code = codes.get(category);
        if (code === undefined) codes.set(category, (code = codes.size));
        last = category;
        lastCode = code;
      }
      slotCode[s] = lastCode;
    }
    return { codes, slotCode };
  }

  private splitByCategory(order: Int32Array, { codes, slotCode }: { codes: Map<number, number>; slotCode: Int32Array }): Map<number, Int32Array> {
    const sizes = new Int32Array(codes.size);
    for (let i = 0; i < order.length; i++) sizes[slotCode[order[i]!]!]!++;
    const parts = Array.from(sizes, (size) => new Int32Array(size));
    const filled = new Int32Array(codes.size);
    for (let i = 0; i < order.length; i++) {
      const s = order[i]!;
      const code = slotCode[s]!;
      parts[code]![filled[code]!++] = s;
    }
    return new Map([...codes].map(([category, code]) => [category, parts[code]!]));
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

  private compile(filter: IndexFilter, now: number): Compiled {
    this.finishLoad();
    this.expire(now);
    const c: Compiled = {
      required: [this.listed],
      category: -1,
      state: -1,
      city: -1,
      hasMin: filter.minPrice !== undefined,
      min: filter.minPrice ?? 0,
      hasMax: filter.maxPrice !== undefined,
      max: filter.maxPrice ?? 0,
      groups: [],
      mask: null,
      impossible: false,
      driver: null,
      driverGroup: null,
      driverSize: this.slotCount,
      counted: null,
      categoryId: filter.categoryId,
      rankMask: null,
      words: filter.groups.length,
      touched: [],
    };
    const consider = (lists: IntList[], group: CompiledGroup | null = null) => {
      const size = lists.reduce((sum, l) => sum + l.length, 0);
      if (size < c.driverSize) {
        c.driver = lists;
        c.driverSize = size;
        c.driverGroup = group;
      }
    };
    /** An equality filter: its bitset if it has one, else a per-slot check. */
    const equal = (postings: Postings | undefined, code: number, check: 'category' | 'state' | 'city') => {
      if (!postings) {
        c.impossible = true;
        return;
      }
      consider([postings.list]);
      if (postings.bits) c.required.push(postings.bits);
      else c[check] = code;
    };
    const given: Postings[] = [];
    if (filter.categoryId !== undefined) {
      const postings = this.categories.get(filter.categoryId);
      equal(postings, filter.categoryId, 'category');
      if (postings) given.push(postings);
    }
    if (filter.state !== undefined) {
      const code = this.stateIds.get(filter.state);
      const postings = code === undefined ? undefined : this.states[code];
      equal(postings, code ?? -1, 'state');
      if (postings) given.push(postings);
    }
    if (filter.city !== undefined) {
      const code = this.cityIds.get(filter.city);
      const postings = code === undefined ? undefined : this.cities[code];
      equal(postings, code ?? -1, 'city');
      if (postings) given.push(postings);
    }
    if (filter.groups.length > 8) throw new Error('at most 8 search words');
    filter.groups.forEach((group, g) => {
      const terms = this.termsOf(group);
      c.rankMask ??= this.scratch(0);
      for (const t of terms) c.rankMask[t]! |= 1 << g;
      c.touched.push(...terms);
      if (terms.length === 0) {
        c.impossible = true;
        return;
      }
      const postings = terms.map((t) => this.terms[t]!);
      const compiled: CompiledGroup = { bit: 1 << g, bitsets: [], rare: [], terms };
      consider(postings.map((p) => p.list), compiled);
      for (const [i, p] of postings.entries()) {
        if (p.bits) compiled.bitsets.push(p.bits);
        else {
          compiled.rare.push(p);
          c.mask ??= this.scratch(1);
          c.mask[terms[i]!]! |= 1 << g;
        }
      }
      if (compiled.rare.length === 0 && compiled.bitsets.length === 1) c.required.push(compiled.bitsets[0]!);
      else c.groups.push(compiled);
    });
    if (filter.groups.length === 0 && !c.hasMin && !c.hasMax) {
      if (given.length === 0) c.counted = 'all';
      else if (given.length === 1) c.counted = given[0]!;
    }
    return c;
  }

  /** Folds a word into `required` as one bitset (its terms' bitsets ORed, its rare terms' slots set). */
  private materialise(c: Compiled, group: CompiledGroup): void {
    const key = [...group.terms].sort((a, b) => a - b).join(',');
    let cached = this.wordBits.get(key);
    if (cached) {
      // Most recently used last: the first entry is evicted.
      this.wordBits.delete(key);
      this.wordBits.set(key, cached);
    } else {
      const bits = new Uint32Array(this.capacity >>> 5);
      for (const b of group.bitsets) for (let w = 0; w < bits.length; w++) bits[w]! |= b[w]!;
      for (const p of group.rare) {
        for (let i = 0; i < p.list.length; i++) {
          const s = p.list.data[i]!;
          bits[s >>> 5]! |= 1 << (s & 31);
        }
      }
      cached = { terms: new Set(group.terms), bits };
      if (this.wordBits.size >= WORD_BITS_CACHED) this.wordBits.delete(this.wordBits.keys().next().value!);
      this.wordBits.set(key, cached);
    }
    c.required.push(cached.bits);
    c.groups = c.groups.filter((g) => g !== group);
    if (c.mask) for (const t of group.terms) c.mask[t]! &= ~group.bit;
  }

  /**
   * Before testing many candidates: a word whose rare lexemes would be looked for in each
   * candidate's terms is folded into one bitset (a pass over its postings) — cheaper from a few
   * hundred candidates on.
   */
  private materialiseFor(c: Compiled, candidates: number): void {
    if (candidates < 512) return;
    for (const group of [...c.groups]) if (group.rare.length > 0) this.materialise(c, group);
  }

  /** The per-slot checks after the required bitsets. */
  private passesRest(c: Compiled, s: number): boolean {
    if (c.category >= 0 && this.category[s] !== c.category) return false;
    if (c.state >= 0 && this.stateCode[s] !== c.state) return false;
    if (c.city >= 0 && this.cityCode[s] !== c.city) return false;
    if (c.hasMin && !(this.price[s]! >= c.min)) return false;
    if (c.hasMax && !(this.price[s]! <= c.max)) return false;
    if (c.groups.length === 0) return true;
    const word = s >>> 5;
    const bit = 1 << (s & 31);
    let got = -1;
    for (const group of c.groups) {
      let found = false;
      for (const bits of group.bitsets) {
        if ((bits[word]! & bit) !== 0) {
          found = true;
          break;
        }
      }
      if (!found && group.rare.length > 0) {
        if (got < 0) {
          got = 0;
          const mask = c.mask!;
          const ids = this.termIds.data;
          for (let i = this.termStart[s]!, end = this.termStart[s + 1]!; i < end; i++) got |= mask[ids[i]!]!;
        }
        found = (got & group.bit) !== 0;
      }
      if (!found) return false;
    }
    return true;
  }

  private matches(c: Compiled, s: number): boolean {
    const word = s >>> 5;
    const bit = 1 << (s & 31);
    const required = c.required;
    for (let k = 0; k < required.length; k++) if ((required[k]![word]! & bit) === 0) return false;
    return this.passesRest(c, s);
  }

  /** Calls `visit` once for every slot that may match (the driver's, deduplicated), in any order. */
  private forEachCandidate(c: Compiled, visit: (slot: number) => void): void {
    const words = (this.slotCount + 31) >>> 5;
    if (c.required.length > 1 && c.driverSize > words) {
      // The required bitsets, ANDed 32 slots at a time, name fewer candidates than any list.
      const required = c.required;
      for (let w = 0; w < words; w++) {
        let v = required[0]![w]!;
        for (let k = 1; k < required.length && v !== 0; k++) v &= required[k]![w]!;
        while (v !== 0) {
          const low = v & -v;
          visit((w << 5) + (31 - Math.clz32(low)));
          v ^= low;
        }
      }
      return;
    }
    if (!c.driver) {
      for (let s = 0; s < this.slotCount; s++) visit(s);
      return;
    }
    // The driver's own word holds for every candidate it names: not checked again per slot.
    const groups = c.groups;
    if (c.driverGroup && groups.includes(c.driverGroup)) c.groups = groups.filter((g) => g !== c.driverGroup);
    try {
      this.visitDriver(c.driver, visit);
    } finally {
      c.groups = groups;
    }
  }

  private visitDriver(driver: IntList[], visit: (slot: number) => void): void {
    if (driver.length === 1) {
      const list = driver[0]!;
      for (let i = 0; i < list.length; i++) visit(list.data[i]!);
      return;
    }
    // Several posting lists (a word's lexemes): a slot may be in more than one.
    const epoch = this.nextEpoch();
    const stamp = this.stamp;
    for (const list of driver) {
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

  /**
   * Two per-term arrays reused by every query (the rank and search masks): allocating them per
   * search cost more than the search. Zeroed again where the query set them (release).
   */
  private scratchMasks: [Uint8Array, Uint8Array] = [new Uint8Array(0), new Uint8Array(0)];

  private scratch(which: 0 | 1): Uint8Array {
    if (this.scratchMasks[which].length < this.termNames.length) this.scratchMasks[which] = new Uint8Array(this.termNames.length * 2);
    return this.scratchMasks[which];
  }

  private release(c: Compiled): void {
    for (const t of c.touched) {
      if (c.rankMask) c.rankMask[t] = 0;
      if (c.mask) c.mask[t] = 0;
    }
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

  private countCompiled(c: Compiled): number {
    if (c.impossible) return 0;
    if (c.counted === 'all') return this.listedCount;
    if (c.counted) return c.counted.listed;
    const onlyPrice = c.required.length === 1 && c.groups.length === 0 && c.category < 0 && c.state < 0 && c.city < 0;
    if (onlyPrice && (c.hasMin || c.hasMax)) return this.countPriceRange(c);
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
   * A price-only count: the price order is sorted by price (dead slots keep theirs), so the bounds
   * are two binary searches and only the listings in between are checked; the delta separately.
   */
  private countPriceRange(c: Compiled): number {
    const main = this.main[ORDER_INDEX.price_low]!;
    const price = this.price;
    // The first position whose price is ≥ bound (> bound when `after`); missing prices sort last.
    const firstFrom = (bound: number, after: boolean) => {
      let lo = 0;
      let hi = main.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const p = price[main[mid]!]!;
        if (p === p && (after ? p <= bound : p < bound)) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    const from = c.hasMin ? firstFrom(c.min, false) : 0;
    const to = firstFrom(c.hasMax ? c.max : Infinity, true);
    let n = 0;
    const listed = this.listed;
    for (let i = from; i < to; i++) {
      const s = main[i]!;
      if ((listed[s >>> 5]! & (1 << (s & 31))) !== 0) n++;
    }
    for (const s of this.delta[ORDER_INDEX.price_low]!) if (this.matches(c, s)) n++;
    return n;
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

  private pageCompiled(c: Compiled, filter: IndexFilter, sort: IndexSort, offset: number, limit: number, total?: number): number[] {
    if (c.impossible || limit <= 0) return [];
    if (sort === 'relevance' && filter.groups.length > 0) return this.relevancePage(c, offset, limit, total);
    const order = ORDER_INDEX[sort === 'relevance' ? 'deal_score_high' : sort];
    return this.topSlots(c, order, offset + limit, total, offset).map((s) => this.ids[s]!);
  }

  /** The first `need` matching slots in an order, less the first `skip` of them. */
  private topSlots(c: Compiled, order: number, need: number, total?: number, skip = 0): number[] {
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
  private walk(c: Compiled, order: number, need: number, skip: number): number[] {
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
    while (out.length < need && (i < main.length || j < delta.length)) {
      let s: number;
      if (j >= delta.length || (i < main.length && this.compare(order, main[i]!, delta[j]!) < 0)) s = main[i++]!;
      else s = delta[j++]!;
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
   * deal_score_high's first `need` matches, less the first `skip`: the renumbered slots are read in
   * slot order, 32 at a time through the required bitsets (so a page stops as soon as it is full),
   * and merged with the tail's matches.
   */
  private scoreScan(c: Compiled, need: number, skip: number): number[] {
    const out: number[] = [];
    const want = need - skip;
    let skipped = 0;
    const required = c.required;
    const rest = this.hasRest(c);
    const tail = this.tail;
    let j = 0;
    const ordered = this.ordered;
    const words = (ordered + 31) >>> 5;
    // The last word's bits from `ordered` on are tail slots, merged from the tail list instead.
    const lastMask = (ordered & 31) === 0 ? -1 : (1 << (ordered & 31)) - 1;
    const take = (s: number) => {
      if (skipped < skip) skipped++;
      else out.push(s);
    };
    for (let w = 0; w < words && out.length < want; w++) {
      let v = required[0]![w]!;
      for (let k = 1; k < required.length && v !== 0; k++) v &= required[k]![w]!;
      if (w === words - 1) v &= lastMask;
      if (v === 0) continue;
      // Deep pages: a word whose matches are all skipped (no per-slot check, no tail slot among them) is counted at once.
      if (skipped < skip && !rest) {
        const n = popcount(v);
        if (skipped + n <= skip && (j >= tail.length || this.compare(ORDER_INDEX.deal_score_high, tail[j]!, (w << 5) + 31 - Math.clz32(v)) > 0)) {
          skipped += n;
          continue;
        }
      }
      while (v !== 0 && out.length < want) {
        const low = v & -v;
        const s = (w << 5) + (31 - Math.clz32(low));
        v ^= low;
        if (rest && !this.passesRest(c, s)) continue;
        while (j < tail.length && out.length < want && this.compare(ORDER_INDEX.deal_score_high, tail[j]!, s) < 0) {
          const t = tail[j++]!;
          if (this.matches(c, t)) take(t);
        }
        if (out.length < want) take(s);
      }
    }
    for (; j < tail.length && out.length < want; j++) if (this.matches(c, tail[j]!)) take(tail[j]!);
    return out;
  }

  private hasRest(c: Compiled): boolean {
    return c.category >= 0 || c.state >= 0 || c.city >= 0 || c.hasMin || c.hasMax || c.groups.length > 0;
  }

  private collect(c: Compiled, order: number, need: number): number[] {
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
  private relevancePage(c: Compiled, offset: number, limit: number, total?: number): number[] {
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
  private rank(c: Compiled, s: number): number {
    const mask = c.rankMask!;
    const ids = this.termIds.data;
    const all = (1 << c.words) - 1;
    let found = 0;
    let sum = 0;
    for (let i = this.termStart[s]!, end = this.termStart[s + 1]!; i < end && found !== all; i++) {
      const fresh = mask[ids[i]!]! & ~found;
      if (fresh === 0) continue;
      found |= fresh;
      // the words this term is the first (so the best) hit of
      sum += RANK_WEIGHTS[this.termWeights[i]!]! * popcount(fresh);
    }
    return sum;
  }
}

/**
 * How many matches `relevance` ranks: the best-scored ones. Past them, matches follow in
 * deal-score order — still one total order, so pages never repeat or skip a listing.
 */
export const RELEVANCE_CANDIDATES = 300;
