/**
 * The listing index's orders computed per listing from the buyer's point — nearest first and
 * cheapest delivered first — rather than stored: their walks (places nearest first, the price
 * order cut off by the least haul), their scans over few candidates, and the first pages kept per
 * filter and rolled forward under writes (pointPage). The layer under ListingIndex
 * (listing-index.ts), over the snapshots (snapshot.ts). Pure: no I/O.
 */
import { WEIGHT_CLASSES, haulEstimate } from '../../shared/rules/freight-rates.js';
import type { Compiled } from './query-compile.js';
import { SnapshotIndex } from './snapshot.js';
import { ORDER_INDEX } from './sort-orders.js';
import type { IndexFilter, IndexOptions } from './types.js';

export class PointOrders extends SnapshotIndex {
  protected readonly distanceScanBelow: number;
  protected readonly pastKept: number;

  constructor(opts: IndexOptions = {}) {
    super(opts);
    this.distanceScanBelow = opts.distanceScanBelow ?? 4096;
    this.pastKept = opts.pastKept ?? PAST_KEPT;
  }

  /**
   * Nearest first (distance in tenths of a mile, then id; unplaced listings last, by id). Places
   * are walked nearest first and their slots checked until the page is full and the next place
   * is farther: a first page reads the slots of a few places. A filter naming few candidates
   * scans them instead (distancePageByScan).
   */
  protected distanceSlots(c: Compiled, need: number): number[] {
    if (c.driverSize < Math.max(this.distanceScanBelow, need * 8)) return this.distanceSlotsByScan(c, need);
    const dist = c.placeDist!;
    const order = this.placesByDistance(c.near!.lat, c.near!.lon);
    const ids = this.ids;
    const byId = (a: number, b: number) => ids[a]! - ids[b]!;
    const found: number[] = [];
    const group: number[] = [];
    for (let i = 0; i < order.length && found.length < need; ) {
      const d = dist[order[i]!]!;
      if (c.hasRadius && !(d <= c.radius)) break;
      // Every place at this distance: their matches in id order.
      group.length = 0;
      for (; i < order.length && dist[order[i]!] === d; i++) {
        this.forEachAtPlace(order[i]!, (s) => {
          if (this.matches(c, s)) group.push(s);
        });
      }
      group.sort(byId);
      for (const s of group) found.push(s);
    }
    if (found.length < need && !c.hasRadius) {
      group.length = 0;
      this.forEachAtPlace(-1, (s) => {
        if (this.matches(c, s)) group.push(s);
      });
      group.sort(byId);
      for (const s of group) found.push(s);
    }
    return found.slice(0, need);
  }

  /**
   * The same order over a few candidates: every match is visited once and the best
   * `offset + limit` kept in a max-heap.
   */
  protected distanceSlotsByScan(c: Compiled, need: number): number[] {
    const dist = c.placeDist!;
    const place = this.placeCode;
    const ids = this.ids;
    // Unplaced: Infinity (after every distance), then by id.
    const key = (s: number) => {
      const p = place[s]!;
      return p >= 0 ? dist[p]! : Infinity;
    };
    const heapKey = new Float64Array(need);
    const heapSlot = new Int32Array(need);
    let size = 0;
    // a comes after b (the heap's root is the last of the kept ones)
    const after = (ka: number, sa: number, kb: number, sb: number) => ka > kb || (ka === kb && ids[sa]! > ids[sb]!);
    const siftDown = (i: number) => {
      const k = heapKey[i]!;
      const s = heapSlot[i]!;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= size) break;
        const r = l + 1;
        const child = r < size && after(heapKey[r]!, heapSlot[r]!, heapKey[l]!, heapSlot[l]!) ? r : l;
        if (!after(heapKey[child]!, heapSlot[child]!, k, s)) break;
        heapKey[i] = heapKey[child]!;
        heapSlot[i] = heapSlot[child]!;
        i = child;
      }
      heapKey[i] = k;
      heapSlot[i] = s;
    };
    this.forEachMatch(c, (s) => {
      const k = key(s);
      if (size < need) {
        let i = size++;
        while (i > 0) {
          const parent = (i - 1) >> 1;
          if (!after(k, s, heapKey[parent]!, heapSlot[parent]!)) break;
          heapKey[i] = heapKey[parent]!;
          heapSlot[i] = heapSlot[parent]!;
          i = parent;
        }
        heapKey[i] = k;
        heapSlot[i] = s;
      } else if (need > 0 && after(heapKey[0]!, heapSlot[0]!, k, s)) {
        heapKey[0] = k;
        heapSlot[0] = s;
        siftDown(0);
      }
    });
    const kept = Array.from({ length: size }, (_, i) => i).sort((a, b) => (after(heapKey[a]!, heapSlot[a]!, heapKey[b]!, heapSlot[b]!) ? 1 : -1));
    return kept.map((i) => heapSlot[i]!);
  }

  /**
   * Cheapest delivered first (the total with the haul's high estimate, delivered-total.ts, then
   * id; lots without a price or a place last, by id). The total is never below the price (hauls
   * are at least MIN_HAUL_HIGH, premiums not negative), so the price order is walked and the walk
   * stops once a price plus the least haul passes the page's worst total: a first page reads the
   * cheap lots only. A filter naming few candidates scans them instead.
   */
  protected deliveredSlots(c: Compiled, need: number): number[] {
    const price = this.price;
    const key = this.deliveredKey(c);
    const best = new BestSlots(need, this.ids);
    if (c.driverSize < Math.max(this.distanceScanBelow, need * 8)) {
      this.forEachMatch(c, (s) => best.offer(key(s), s));
      return best.sorted();
    }
    const order = ORDER_INDEX.price_low;
    const main = c.categoryId !== undefined ? (this.byCategory[order]!.get(c.categoryId) ?? new Int32Array(0)) : this.main[order]!;
    // Slots changed since the last merge: at most a few thousand, each checked.
    for (const s of this.delta[order]!) if (this.matches(c, s)) best.offer(key(s), s);
    const margin = MIN_HAUL_HIGH - 0.01;
    for (let i = 0; i < main.length; i++) {
      const s = main[i]!;
      const p = price[s]!;
      // Past every price within reach of the worst kept total (unpriced lots come last in this
      // order: they are needed only while the page is not full of priced ones).
      if (best.full() && (p !== p ? best.worst() < Infinity : p + margin > best.worst())) break;
      if (this.matches(c, s)) best.offer(key(s), s);
    }
    return best.sorted();
  }

  /** A slot's delivered total from the compiled point (Infinity without a price or a place). */
  protected deliveredKey(c: Compiled): (s: number) => number {
    const hauls = c.haulHigh ?? this.haulsFrom(c.near!.lat, c.near!.lon);
    const place = this.placeCode;
    const freight = this.freight;
    return (s) => {
      const p = place[s]!;
      if (p < 0) return Infinity;
      const total = this.deliveredHigh(s, hauls[(p << 2) | (freight[s]! & 3)]!);
      return total === total ? total : Infinity;
    };
  }

  /** A slot's distance from the compiled point (Infinity when unplaced). */
  protected distanceKey(c: Compiled): (s: number) => number {
    const dist = c.placeDist!;
    const place = this.placeCode;
    return (s) => {
      const p = place[s]!;
      return p >= 0 ? dist[p]! : Infinity;
    };
  }

  /**
   * A page of an order computed per listing from the buyer's point (distance, delivered). Its
   * first TOP_KEPT slots are kept per filter (a buyer's point and filters: the dashboard asks for
   * page 1, then 2, then sorts again): later pages and requests read the kept slots still listed —
   * a listing changed or ended since leaves its slot unlisted, and every slot appended since is
   * checked and merged in — instead of walking the order again. Exact: slots are never listed
   * again once unlisted, so what the kept slots miss is only what was appended since. Once
   * PAST_KEPT slots were appended after it, the list is rolled forward (rollForward: the appended
   * slots merged in once) rather than computed again — at a million listings the cheapest-delivered
   * walk is ~100 ms of one core, under writes once per point every 4,096 writes; it is computed
   * again only when too few of its slots are still listed.
   */
  protected pointPage(c: Compiled, filter: IndexFilter, sort: 'distance' | 'delivered', offset: number, limit: number): number[] {
    const need = offset + limit;
    const compute = (n: number) => (sort === 'distance' ? this.distanceSlots(c, n) : this.deliveredSlots(c, n));
    if (need > TOP_KEPT) return compute(need).slice(offset).map((s) => this.ids[s]!);
    const cacheKey = `${sort}:${JSON.stringify(filter)}`;
    let kept = this.pointPages.get(cacheKey);
    const key = sort === 'distance' ? this.distanceKey(c) : this.deliveredKey(c);
    // Slot numbers never change after the load (a reload builds another index): kept slots stay valid.
    if (kept && this.slotCount - kept.upTo > this.pastKept) kept = this.rollForward(c, kept, key);
    for (let attempt = 0; attempt < 2; attempt++) {
      if (!kept) {
        const slots = compute(TOP_KEPT);
        // Fewer than asked for: every match there was (none lies past the list).
        kept = { slots: Int32Array.from(slots), upTo: this.slotCount, complete: slots.length < TOP_KEPT };
        if (this.pointPages.size >= POINT_PAGES_KEPT) this.pointPages.delete(this.pointPages.keys().next().value!);
      } else this.pointPages.delete(cacheKey);
      this.pointPages.set(cacheKey, kept);
      const best = new BestSlots(need, this.ids);
      // The kept slots in order: the first `need` still listed are the best of the slots before upTo.
      let listed = 0;
      for (let i = 0; i < kept.slots.length && listed < need; i++) {
        const s = kept.slots[i]!;
        if (!this.matches(c, s)) continue;
        listed++;
        best.offer(key(s), s);
      }
      // Too few left of a list that is not every match: slots past it may now be among the best.
      if (listed < need && !kept.complete) {
        kept = undefined;
        continue;
      }
      const offer = (s: number) => {
        if (this.matches(c, s)) best.offer(key(s), s);
      };
      if (sort === 'distance' && best.full() && best.worst() < Infinity && kept.upTo >= this.placeBase) {
        // Nearest first, the page full: only a slot at a place no farther than its worst can
        // enter. Those places' appended slots (their chains, newest first) are read back to upTo,
        // instead of checking every slot appended since (thousands under writes).
        const dist = c.placeDist!;
        const places = this.placesByDistance(c.near!.lat, c.near!.lon);
        for (let i = 0; i < places.length && dist[places[i]!]! <= best.worst(); i++) this.forEachAppendedAtPlace(places[i]!, kept.upTo, offer);
      } else for (let s = kept.upTo; s < this.slotCount; s++) offer(s);
      return best.sorted().slice(offset).map((s) => this.ids[s]!);
    }
    return compute(need).slice(offset).map((s) => this.ids[s]!);
  }

  /**
   * A kept list brought up to now: its slots still matching and the slots appended since, merged
   * in order, up to its own last slot (by key, then id) when it was not every match — past that
   * the list never looked, so only what lies before it is known to be all there is. Exact:
   * matching slots below upTo before its last were all in it (a slot is never listed again), and
   * each appended one is checked. Shorter than TOP_KEPT then, yet not `complete`.
   */
  protected rollForward(c: Compiled, kept: KeptPoints, key: (s: number) => number): KeptPoints {
    const ids = this.ids;
    const last = kept.complete || kept.slots.length === 0 ? -1 : kept.slots[kept.slots.length - 1]!;
    const lastKey = last >= 0 ? key(last) : Infinity;
    const lastId = last >= 0 ? ids[last]! : 0;
    const keys: number[] = [];
    const slots: number[] = [];
    const take = (s: number) => {
      if (!this.matches(c, s)) return;
      const k = key(s);
      if (last >= 0 && (k > lastKey || (k === lastKey && ids[s]! > lastId))) return;
      keys.push(k);
      slots.push(s);
    };
    for (const s of kept.slots) take(s);
    for (let s = kept.upTo; s < this.slotCount; s++) take(s);
    const order = Array.from(slots, (_, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : ids[slots[a]!]! - ids[slots[b]!]!));
    const rolled = order.slice(0, TOP_KEPT).map((i) => slots[i]!);
    return { slots: Int32Array.from(rolled), upTo: this.slotCount, complete: kept.complete && order.length <= TOP_KEPT };
  }

  /** Kept first pages of the orders from a buyer's point (pointPage), most recently used last. */
  protected readonly pointPages = new Map<string, KeptPoints>();

  /** Calls `visit` for every listed slot that matches, in no particular order. */
  protected forEachMatch(c: Compiled, visit: (slot: number) => void): void {
    const words = Math.ceil(this.slotCount / 32);
    if (c.driverSize < words) {
      this.materialiseFor(c, c.driverSize);
      this.forEachCandidate(c, (s) => {
        if (this.matches(c, s)) visit(s);
      });
      return;
    }
    for (const group of [...c.groups]) if (group.bitsets.length > 0) this.materialise(c, group);
    const rest = this.hasRest(c);
    const required = c.required;
    for (let w = 0; w < words; w++) {
      let v = required[0]![w]!;
      for (let k = 1; k < required.length && v !== 0; k++) v &= required[k]![w]!;
      while (v !== 0) {
        const low = v & -v;
        const s = (w << 5) + (31 - Math.clz32(low));
        v ^= low;
        if (!rest || this.passesRest(c, s)) visit(s);
      }
    }
  }
}

/** A point order's first slots, as of slot `upTo`; `complete` when they are every match there was. */
type KeptPoints = { slots: Int32Array; upTo: number; complete: boolean };

/** How many first slots of a point's order are kept per filter (a page of 100 at offset 500). */
const TOP_KEPT = 600;
/** Kept orders are rolled forward once this many slots were appended after them (each is checked per request). */
const PAST_KEPT = 4096;
/** Filters whose point orders are kept. */
const POINT_PAGES_KEPT = 64;

/** The least haul any lot costs (the compact class's minimum charge, high end). */
export const MIN_HAUL_HIGH = Math.min(...WEIGHT_CLASSES.map((w) => haulEstimate(w, 0).high));

/**
 * The best `size` slots by (key, id), in a max-heap whose root is the worst kept: a page of an
 * order computed per slot (delivered totals) keeps only what it shows.
 */
class BestSlots {
  private readonly keys: Float64Array;
  private readonly slots: Int32Array;
  private n = 0;

  constructor(
    private readonly size: number,
    private readonly ids: Int32Array,
  ) {
    this.keys = new Float64Array(size);
    this.slots = new Int32Array(size);
  }

  full(): boolean {
    return this.n === this.size;
  }

  /** The worst kept key (Infinity while not full). */
  worst(): number {
    return this.n === this.size && this.size > 0 ? this.keys[0]! : Infinity;
  }

  /** a comes after b: a larger key, or the same key and a larger id. */
  private after(ka: number, sa: number, kb: number, sb: number): boolean {
    return ka > kb || (ka === kb && this.ids[sa]! > this.ids[sb]!);
  }

  offer(key: number, slot: number): void {
    const { keys, slots } = this;
    if (this.n < this.size) {
      let i = this.n++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.after(key, slot, keys[parent]!, slots[parent]!)) break;
        keys[i] = keys[parent]!;
        slots[i] = slots[parent]!;
        i = parent;
      }
      keys[i] = key;
      slots[i] = slot;
      return;
    }
    if (this.size === 0 || !this.after(keys[0]!, slots[0]!, key, slot)) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.n) break;
      const r = l + 1;
      const child = r < this.n && this.after(keys[r]!, slots[r]!, keys[l]!, slots[l]!) ? r : l;
      if (!this.after(keys[child]!, slots[child]!, key, slot)) break;
      keys[i] = keys[child]!;
      slots[i] = slots[child]!;
      i = child;
    }
    keys[i] = key;
    slots[i] = slot;
  }

  /** The kept slots, best first. */
  sorted(): number[] {
    const order = Array.from({ length: this.n }, (_, i) => i);
    order.sort((a, b) => (this.after(this.keys[a]!, this.slots[a]!, this.keys[b]!, this.slots[b]!) ? 1 : -1));
    return order.map((i) => this.slots[i]!);
  }
}
