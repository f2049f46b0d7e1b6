/**
 * Posting lists and terms, the second layer. Each term, category, state and city keeps its slots
 * (a posting list, sorted by slot since slots are only appended) and, once frequent, a bitset too:
 * a count ANDs the bitsets 32 slots at a time, a page tests a slot with a few bit reads. Per slot,
 * its terms are kept heaviest first in a CSR (for relevance ranking and rare-term checks), and the
 * bitsets of recent search words follow new slots. Pure: no I/O.
 */
import { IntList, TermList } from './bits.js';
import { SlotStore } from './slot-store.js';
import type { IndexedListing, IndexOptions, WordGroup } from './types.js';

/** Slots of one value from which it also keeps a bitset (a bit test instead of a term scan). */
const MIN_BITSET_POSTINGS = 2048;
/** Search words whose bitsets are kept (about 128 KB each at a million listings). */
const WORD_BITS_CACHED = 64;

/** The slots holding one value (a term, a category, a state, a city): a list, and once frequent a bitset too. */
const NO_SLOTS = new Int32Array(0);

export class Postings {
  readonly list = new IntList(4);
  bits: Uint32Array | null = null;
  /** Listed slots holding the value (kept for categories, states and cities). */
  listed = 0;

  /**
   * `keepList: false` (terms): once the bitset exists, the list only counts its slots. A frequent
   * term's list is the bulk of the index's memory (four bytes per listing holding it, against a
   * bit per listing); a query that would have visited it ANDs the bitsets instead.
   */
  constructor(readonly keepList = true) {}

  /** Whether `list.data` holds the slots (else only `list.length` counts them). */
  get hasList(): boolean {
    return this.keepList || this.bits === null;
  }

  add(slot: number, capacity: number, minForBits: number): void {
    if (this.bits) {
      this.bits[slot >>> 5]! |= 1 << (slot & 31);
      if (this.keepList) this.list.push(slot);
      else this.list.length++;
      return;
    }
    this.list.push(slot);
    if (this.list.length >= minForBits) {
      const bits = new Uint32Array(capacity >>> 5);
      for (let i = 0; i < this.list.length; i++) {
        const s = this.list.data[i]!;
        bits[s >>> 5]! |= 1 << (s & 31);
      }
      this.bits = bits;
      this.dropList();
    }
  }

  /** Frees a term's list once its bitset holds the slots (its length still counts them). */
  dropList(): void {
    if (!this.hasList) this.list.data = NO_SLOTS;
  }

  resize(capacity: number): void {
    if (!this.bits) return;
    const bits = new Uint32Array(capacity >>> 5);
    bits.set(this.bits);
    this.bits = bits;
  }
}

export class PostingStore extends SlotStore {
  /**
   * CSR: the terms of slot s are termIds[termStart[s] .. termStart[s + 1]), each stored as
   * `term << 2 | weight` (3 = A … 0 = D): no array of weights beside it.
   */
  protected termStart: Int32Array;
  protected termIds = new TermList(1024);
  /** Per term: 1 + the slot that last took it (so appending a listing skips a repeated term). */
  protected termStamp = new Int32Array(1024);
  protected readonly vocabulary = new Map<string, number>();
  protected readonly termNames: string[] = [];
  protected sortedTerms: string[] | null = null;
  protected readonly terms: Postings[] = [];
  protected readonly categories = new Map<number, Postings>();
  protected readonly stateIds = new Map<string, number>();
  protected readonly states: Postings[] = [];
  protected readonly cityIds = new Map<string, number>();
  protected readonly cities: Postings[] = [];
  /**
   * The distinct places listings are at (a ZIP code's, a city's or a state's centroid: tens of
   * thousands at most, against a million listings): a query measures each place's distance once,
   * and a listing's distance is a lookup by its place code. Places are never removed (a reload
   * starts the dictionary again).
   */
  protected readonly placeIds = new Map<string, number>();
  protected placeLat: number[] = [];
  protected placeLon: number[] = [];
  /**
   * Per place, its slots, and the unplaced ones: the distance order walks places nearest first and
   * reads their slots, instead of measuring every listing. No object per place (at tens of
   * thousands of places those were most of what places cost): slots below `placeBase` (the load's)
   * are grouped by place in one CSR — group 0 the unplaced, group p + 1 place p — and slots
   * appended since are chained per place (head per place, then each slot's previous one).
   */
  protected placeStart = new Int32Array(2);
  protected placeSlots = new Int32Array(0);
  protected placeBase = 0;
  /** Per place + 1 (0: unplaced), the last slot appended there since the CSR, or -1. */
  protected placeHead = new Int32Array(64).fill(-1);
  /** Per slot from placeBase on (at s - placeBase), the slot appended before it at its place, or -1. */
  protected placeNext = new IntList();

  /**
   * The bitsets of recent search words (their terms ORed), kept up to date as listings are
   * appended: a word searched again costs no pass over its postings. A derived structure of the
   * index, exact at all times — not a cache of answers.
   */
  protected readonly wordBits = new Map<string, { terms: Set<number>; bits: Uint32Array }>();
  protected readonly minBitsetPostings: number;

  constructor(opts: IndexOptions) {
    super(opts);
    this.minBitsetPostings = opts.minBitsetPostings ?? MIN_BITSET_POSTINGS;
    this.termStart = new Int32Array(this.capacity + 1);
  }

  /** Every posting list (terms, categories, states, cities). */
  protected allPostings(): Postings[] {
    return [...this.terms, ...this.categories.values(), ...this.states, ...this.cities];
  }

  protected override tally(s: number, delta: 1 | -1): void {
    super.tally(s, delta);
    this.categories.get(this.category[s]!)!.listed += delta;
    if (this.stateCode[s]! >= 0) this.states[this.stateCode[s]!]!.listed += delta;
    if (this.cityCode[s]! >= 0) this.cities[this.cityCode[s]!]!.listed += delta;
  }

  /** Files a new slot under its category, state, city and terms. */
  protected appendPostings(s: number, listing: IndexedListing): void {
    const cap = this.capacity;
    const min = this.minBitsetPostings;
    let byCategory = this.categories.get(listing.categoryId);
    if (!byCategory) this.categories.set(listing.categoryId, (byCategory = new Postings()));
    // Categories are few: a bitset each from the start.
    byCategory.add(s, cap, 0);
    this.stateCode[s] = listing.state ? this.codeOf(this.stateIds, this.states, listing.state) : -1;
    this.cityCode[s] = listing.city ? this.codeOf(this.cityIds, this.cities, listing.city) : -1;
    if (this.stateCode[s]! >= 0) this.states[this.stateCode[s]!]!.add(s, cap, min);
    if (this.cityCode[s]! >= 0) this.cities[this.cityCode[s]!]!.add(s, cap, min);
    this.placeCode[s] = listing.lat !== null && listing.lon !== null && Number.isFinite(listing.lat) && Number.isFinite(listing.lon) ? this.placeOf(listing.lat, listing.lon) : -1;
    this.chainPlace(s);
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
        this.termIds.push((term << 2) | weight);
        this.terms[term]!.add(s, cap, min);
      }
    }
    this.termStart[s + 1] = this.termIds.length;
    if (this.wordBits.size > 0) {
      const ids = this.termIds.data;
      for (const word of this.wordBits.values()) {
        for (let i = this.termStart[s]!; i < this.termIds.length; i++) {
          if (word.terms.has(ids[i]! >>> 2)) {
            word.bits[s >>> 5]! |= 1 << (s & 31);
            break;
          }
        }
      }
    }
  }

  protected codeOf(codes: Map<string, number>, postings: Postings[], value: string): number {
    let code = codes.get(value);
    if (code === undefined) {
      code = postings.length;
      codes.set(value, code);
      postings.push(new Postings());
    }
    return code;
  }

  protected placeOf(lat: number, lon: number): number {
    const key = `${lat},${lon}`;
    let code = this.placeIds.get(key);
    if (code === undefined) {
      code = this.placeLat.length;
      this.placeIds.set(key, code);
      this.placeLat.push(lat);
      this.placeLon.push(lon);
      if (code + 2 > this.placeHead.length) {
        const grown = new Int32Array(Math.max(64, (code + 2) * 2)).fill(-1);
        grown.set(this.placeHead);
        this.placeHead = grown;
      }
    }
    return code;
  }

  /** Files an appended slot under its place (placeCode set) in the chains. */
  protected chainPlace(s: number): void {
    const group = this.placeCode[s]! + 1;
    // Slots are appended in order: s - placeBase is the chain's next index.
    this.placeNext.push(this.placeHead[group]!);
    this.placeHead[group] = s;
  }

  /**
   * Groups slots 0 … n - 1 by place (a counting sort of their codes) into the CSR, and empties
   * the chains: after a load or a renumbering, when slots below n are all there are.
   */
  protected buildPlaceGroups(n: number): void {
    const groups = this.placeLat.length + 1;
    const start = new Int32Array(groups + 1);
    const codes = this.placeCode;
    for (let s = 0; s < n; s++) start[codes[s]! + 2]!++;
    for (let g = 1; g <= groups; g++) start[g]! += start[g - 1]!;
    const slots = new Int32Array(n);
    const at = start.slice(0, groups);
    for (let s = 0; s < n; s++) slots[at[codes[s]! + 1]!++] = s;
    this.placeStart = start;
    this.placeSlots = slots;
    this.placeBase = n;
    this.placeHead.fill(-1);
    this.placeNext = new IntList();
  }

  /** Calls `visit` with every slot at a place (-1: the unplaced), dead ones included, in no particular order. */
  protected forEachAtPlace(code: number, visit: (slot: number) => void): void {
    const group = code + 1;
    if (group + 1 < this.placeStart.length) {
      for (let i = this.placeStart[group]!, end = this.placeStart[group + 1]!; i < end; i++) visit(this.placeSlots[i]!);
    }
    const next = this.placeNext.data;
    for (let s = this.placeHead[group]!; s >= 0; s = next[s - this.placeBase]!) visit(s);
  }

  /** Calls `visit` with every slot appended at a place (-1: the unplaced) from slot `from` (≥ placeBase) on, newest first, dead ones included. */
  protected forEachAppendedAtPlace(code: number, from: number, visit: (slot: number) => void): void {
    const next = this.placeNext.data;
    const base = this.placeBase;
    for (let s = this.placeHead[code + 1]!; s >= from; s = next[s - base]!) visit(s);
  }

  protected termOf(lexeme: string): number {
    let term = this.vocabulary.get(lexeme);
    if (term === undefined) {
      term = this.termNames.length;
      this.vocabulary.set(lexeme, term);
      this.termNames.push(lexeme);
      this.terms.push(new Postings(false));
      if (term >= this.termStamp.length) {
        const grown = new Int32Array(this.termStamp.length * 2);
        grown.set(this.termStamp);
        this.termStamp = grown;
      }
      this.sortedTerms = null;
    }
    return term;
  }

  protected override grow(to?: number): void {
    super.grow(to);
    const c = this.capacity;
    if (this.termStart.length !== c + 1) {
      const termStart = new Int32Array(c + 1);
      termStart.set(this.termStart);
      this.termStart = termStart;
    }
    for (const p of this.allPostings()) p.resize(c);
    this.wordBits.clear();
  }

  protected sortedVocabulary(): string[] {
    if (!this.sortedTerms) this.sortedTerms = [...this.termNames].sort();
    return this.sortedTerms;
  }

  /** The term ids a word group names (its exact lexemes, and every term starting with a prefix). */
  protected termsOf(group: WordGroup): number[] {
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
}
