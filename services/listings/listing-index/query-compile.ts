/**
 * Query compilation and matching, the fourth layer: a filter is resolved against the dictionaries
 * into the bitsets every match is in, the checks left per slot, and the smallest posting list(s)
 * to visit when few slots can match; search words are folded into bitsets once a query would
 * test many candidates. Pure: no I/O.
 */
import { distanceMiles } from '../../shared/geo/distance.js';
import { WEIGHT_CLASSES, haulEstimate } from '../../shared/rules/freight-rates.js';
import type { IntList } from './bits.js';
import type { Postings } from './posting-store.js';
import { SortOrders } from './sort-orders.js';
import type { IndexFilter } from './types.js';

/** Search words whose bitsets are kept (about 128 KB each at a million listings). */
const WORD_BITS_CACHED = 64;
/** Buyers' points whose place distances are kept (a few hundred KB each at most). */
const PLACE_DISTANCES_CACHED = 32;

/** A buyer's point: its places' distances, their order nearest first, and hauls per weight class. */
type PlaceEntry = { dist: Float64Array; filled: number; order: Int32Array | null; haul: Float64Array | null; haulFilled: number };

/** One search word: its frequent terms' bitsets, and whether rarer terms (the mask) also satisfy it. */
export type CompiledGroup = { bit: number; bitsets: Uint32Array[]; rare: Postings[]; terms: number[] };

/** A query resolved against the index's dictionaries. */
export type Compiled = {
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
  /** The smallest candidate set is a word whose lists are not kept (frequent terms): its bitsets are ANDed instead. */
  driverBits: boolean;
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
  /** With `near`: per place code, its distance in miles (a tenth); null without `near`. */
  placeDist: Float64Array | null;
  near: { lat: number; lon: number } | null;
  /** With a radius: only slots whose place is within `radius` miles pass. */
  hasRadius: boolean;
  radius: number;
  /**
   * With `near` and a delivered filter or order: per place code × 4 + weight class code, the haul's
   * high estimate (USD) from that place (haulEstimate), measured once per buyer's point.
   */
  haulHigh: Float64Array | null;
  hasMaxDelivered: boolean;
  maxDelivered: number;
  worthTheTrip: boolean;
};

export class QueryCompiler extends SortOrders {
  protected compile(filter: IndexFilter, now: number): Compiled {
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
      driverBits: false,
      driverGroup: null,
      driverSize: this.slotCount,
      counted: null,
      categoryId: filter.categoryId,
      rankMask: null,
      words: filter.groups.length,
      touched: [],
      placeDist: filter.near ? this.distancesFrom(filter.near.lat, filter.near.lon) : null,
      near: filter.near ? { lat: filter.near.lat, lon: filter.near.lon } : null,
      hasRadius: filter.near?.radiusMiles !== undefined,
      radius: filter.near?.radiusMiles ?? Infinity,
      haulHigh: null,
      // Delivered filters need a point; without one they filter nothing (the route answers 400 first).
      hasMaxDelivered: filter.near !== undefined && filter.maxDelivered !== undefined,
      maxDelivered: filter.maxDelivered ?? Infinity,
      worthTheTrip: filter.near !== undefined && filter.worthTheTrip === true,
    };
    if (c.hasMaxDelivered || c.worthTheTrip) c.haulHigh = this.haulsFrom(filter.near!.lat, filter.near!.lon);
    const consider = (postings: Postings[], group: CompiledGroup | null = null) => {
      const size = postings.reduce((sum, p) => sum + p.list.length, 0);
      if (size < c.driverSize) {
        const listed = postings.every((p) => p.hasList);
        c.driver = listed ? postings.map((p) => p.list) : null;
        c.driverBits = !listed;
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
      consider([postings]);
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
      consider(postings, compiled);
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
    if (filter.groups.length === 0 && !c.hasMin && !c.hasMax && !c.hasRadius && !c.haulHigh) {
      if (given.length === 0) c.counted = 'all';
      else if (given.length === 1) c.counted = given[0]!;
    }
    return c;
  }

  /** Folds a word into `required` as one bitset (its terms' bitsets ORed, its rare terms' slots set). */
  protected materialise(c: Compiled, group: CompiledGroup): void {
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
  protected materialiseFor(c: Compiled, candidates: number): void {
    if (candidates < 512) return;
    for (const group of [...c.groups]) if (group.rare.length > 0) this.materialise(c, group);
  }

  /** The per-slot checks after the required bitsets. */
  protected passesRest(c: Compiled, s: number): boolean {
    if (c.category >= 0 && this.category[s] !== c.category) return false;
    if (c.state >= 0 && this.stateCode[s] !== c.state) return false;
    if (c.city >= 0 && this.cityCode[s] !== c.city) return false;
    if (c.hasMin && !(this.price[s]! >= c.min)) return false;
    if (c.hasMax && !(this.price[s]! <= c.max)) return false;
    // An unplaced slot (code -1) reads undefined: never within a radius.
    if (c.hasRadius && !(c.placeDist![this.placeCode[s]!]! <= c.radius)) return false;
    if (c.haulHigh && !this.passesDelivered(c, s)) return false;
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
          for (let i = this.termStart[s]!, end = this.termStart[s + 1]!; i < end; i++) got |= mask[ids[i]! >>> 2]!;
        }
        found = (got & group.bit) !== 0;
      }
      if (!found) return false;
    }
    return true;
  }

  /** max_delivered and worth_the_trip: the slot's haul from its place by its weight class, high end. */
  protected passesDelivered(c: Compiled, s: number): boolean {
    const place = this.placeCode[s]!;
    if (place < 0) return false;
    const freight = this.freight[s]!;
    const haul = c.haulHigh![(place << 2) | (freight & 3)]!;
    if (c.worthTheTrip && !(this.discount[s]! > haul)) return false;
    if (c.hasMaxDelivered) {
      const price = this.price[s]!;
      // The total is at least the price (premiums and hauls are not negative): most fail here.
      if (!(price <= c.maxDelivered)) return false;
      if (!(this.deliveredHigh(s, haul) <= c.maxDelivered)) return false;
    }
    return true;
  }

  /** The slot's delivered total with a haul (NaN without a price): delivered-total.ts's arithmetic. */
  protected deliveredHigh(s: number, haul: number): number {
    const price = this.price[s]!;
    const u = this.freight[s]! >> 2;
    const base = u === 0 ? price : price + Math.round(price * ((u > 0 ? u - 1 : u) / 1000)) / 100;
    return Math.round((base + haul) * 100) / 100;
  }

  protected matches(c: Compiled, s: number): boolean {
    const word = s >>> 5;
    const bit = 1 << (s & 31);
    const required = c.required;
    for (let k = 0; k < required.length; k++) if ((required[k]![word]! & bit) === 0) return false;
    return this.passesRest(c, s);
  }

  /** Calls `visit` once for every slot that may match (the driver's, deduplicated), in any order. */
  protected forEachCandidate(c: Compiled, visit: (slot: number) => void): void {
    const words = (this.slotCount + 31) >>> 5;
    // A frequent word (no lists): its bitsets join the required ones, which are then ANDed.
    if (c.driverBits) for (const group of [...c.groups]) if (group.bitsets.length > 0) this.materialise(c, group);
    if (c.required.length > 1 && (c.driverSize > words || c.driverBits)) {
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

  protected visitDriver(driver: IntList[], visit: (slot: number) => void): void {
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

  /**
   * Two per-term arrays reused by every query (the rank and search masks): allocating them per
   * search cost more than the search. Zeroed again where the query set them (release).
   */
  protected scratchMasks: [Uint8Array, Uint8Array] = [new Uint8Array(0), new Uint8Array(0)];

  protected scratch(which: 0 | 1): Uint8Array {
    if (this.scratchMasks[which].length < this.termNames.length) this.scratchMasks[which] = new Uint8Array(this.termNames.length * 2);
    return this.scratchMasks[which];
  }

  protected release(c: Compiled): void {
    for (const t of c.touched) {
      if (c.rankMask) c.rankMask[t] = 0;
      if (c.mask) c.mask[t] = 0;
    }
  }

  protected hasRest(c: Compiled): boolean {
    return c.category >= 0 || c.state >= 0 || c.city >= 0 || c.hasMin || c.hasMax || c.hasRadius || c.haulHigh !== null || c.groups.length > 0;
  }

  /**
   * Every place's distance from a point (distanceMiles), measured once per place: a buyer's
   * pages, counts and sorts reuse the array, and places added since are measured when next asked.
   */
  protected distancesFrom(lat: number, lon: number): Float64Array {
    return this.placeEntry(lat, lon).dist;
  }

  /**
   * Every place's haul from a point, high end, per weight class (at place × 4 + class code): 4 ×
   * places numbers, measured with the place distances and cached beside them.
   */
  protected haulsFrom(lat: number, lon: number): Float64Array {
    const entry = this.placeEntry(lat, lon);
    if (!entry.haul || entry.haulFilled < entry.filled) {
      if (!entry.haul || entry.haul.length < entry.dist.length * 4) {
        const grown = new Float64Array(entry.dist.length * 4);
        if (entry.haul) grown.set(entry.haul.subarray(0, entry.haulFilled * 4));
        entry.haul = grown;
      }
      for (let p = entry.haulFilled; p < entry.filled; p++) {
        for (let w = 0; w < WEIGHT_CLASSES.length; w++) entry.haul[(p << 2) | w] = haulEstimate(WEIGHT_CLASSES[w]!, entry.dist[p]!).high;
      }
      entry.haulFilled = entry.filled;
    }
    return entry.haul;
  }

  /** Place codes nearest first (ties by code), for a point whose distances are cached; recomputed when places were added. */
  protected placesByDistance(lat: number, lon: number): Int32Array {
    const entry = this.placeEntry(lat, lon);
    if (!entry.order || entry.order.length !== entry.filled) {
      const dist = entry.dist;
      entry.order = Int32Array.from({ length: entry.filled }, (_, p) => p).sort((a, b) => dist[a]! - dist[b]! || a - b);
    }
    return entry.order;
  }

  private placeEntry(lat: number, lon: number): PlaceEntry {
    const key = `${lat},${lon}`;
    let entry = this.placeDistances.get(key);
    if (entry) {
      this.placeDistances.delete(key);
    } else {
      entry = { dist: new Float64Array(Math.max(64, Math.ceil(this.placeLat.length * 1.25))), filled: 0, order: null, haul: null, haulFilled: 0 };
      if (this.placeDistances.size >= PLACE_DISTANCES_CACHED) this.placeDistances.delete(this.placeDistances.keys().next().value!);
    }
    this.placeDistances.set(key, entry);
    const places = this.placeLat.length;
    if (entry.filled < places) {
      if (entry.dist.length < places) {
        const grown = new Float64Array(Math.ceil(places * 1.25));
        grown.set(entry.dist.subarray(0, entry.filled));
        entry.dist = grown;
      }
      const from = { lat, lon };
      for (let p = entry.filled; p < places; p++) entry.dist[p] = distanceMiles(from, { lat: this.placeLat[p]!, lon: this.placeLon[p]! });
      entry.filled = places;
    }
    return entry;
  }

  /** Recent buyers' points → their places' distances (most recently used last). */
  protected readonly placeDistances = new Map<string, PlaceEntry>();
}
