/**
 * Slot storage, the index's bottom layer. Every listing version takes a *slot*; a change kills the
 * old slot and appends a new one. Per slot, typed arrays hold the id, whether it is alive, the sort
 * keys, the filter codes and the end time; a *listed* bitset holds the slots alive and not yet
 * ended, and an end-time heap clears bits as a query's clock passes them. Pure: no I/O.
 */
import { IdSlots, sameKind, type SlotArray } from './bits.js';
import type { IndexedListing, IndexOptions } from './types.js';
import { discountDollarsUp, weightCode } from '../delivered-total.js';
import type { WeightClass } from '../../shared/rules/freight-rates.js';

/** No fair value or no price: never worth the trip. */
export const NO_DISCOUNT = -0x80000000;

/** A slot's weight class and stated premium as one Int32 (see SlotStore.freight). */
export function packFreight(weight: WeightClass, buyersPremiumPct: number | null): number {
  const code = weightCode(weight);
  if (buyersPremiumPct === null || !Number.isFinite(buyersPremiumPct)) return code;
  // numeric(6,3): thousandths are exact, and k / 1000 is the same double as the column's value.
  const k = Math.round(buyersPremiumPct * 1000);
  return ((k >= 0 ? k + 1 : k) << 2) | code;
}

/** The stated premium (percent) of a packed freight value, or null. */
export function premiumOf(freight: number): number | null {
  const u = freight >> 2;
  return u === 0 ? null : (u > 0 ? u - 1 : u) / 1000;
}

export class SlotStore {
  protected capacity: number;
  protected slotCount = 0;
  protected liveCount = 0;
  protected ids: Int32Array;
  protected alive: Uint8Array;
  /** Bit per slot: alive and not ended as of `clock` (see expire). */
  protected listed: Uint32Array;
  protected listedCount = 0;
  protected score: Float64Array;
  protected price: Float64Array;
  protected category: Int32Array;
  protected stateCode: Int32Array;
  protected cityCode: Int32Array;
  /** Per slot, its place (a distinct lat/lon in the place dictionary), or -1 when unplaced. */
  protected placeCode: Int32Array;
  protected endAt: Float64Array;
  /**
   * Per slot, what its haul and premium need (issue 30): the weight class's code (freight.ts
   * WEIGHT_CLASSES) in the low two bits, above them the stated buyer's premium in thousandths of a
   * percent, plus one (0: none stated). One Int32 instead of a class byte and a premium double.
   */
  protected freight: Int32Array;
  /** Per slot, its discount under fair value in whole dollars rounded up (delivered-total.ts), or NO_DISCOUNT. */
  protected discount: Int32Array;
  /**
   * Min-heap of listed slots that have an end time, keyed by `endAt` (a slot's end time never
   * changes: a change takes a new slot). Slots only: a copy of each time beside them would be
   * another 7 MiB at a million listings.
   */
  protected heapSlot = new Int32Array(1024);
  protected heapSize = 0;
  /** The latest `now` the index has expired listings at. */
  protected clock = -Infinity;
  /** The live slot of each listing id. */
  protected slotOf = new IdSlots((s) => this.ids[s]!);
  /** Per slot, a query's visit mark (see nextEpoch); also marks positions in collect(). */
  protected stamp: Uint32Array;
  protected epoch = 0;

  constructor(opts: IndexOptions) {
    this.capacity = Math.max(64, opts.capacity ?? 1024);
    const c = this.capacity;
    this.ids = new Int32Array(c);
    this.alive = new Uint8Array(c);
    this.listed = new Uint32Array(c >>> 5);
    this.score = new Float64Array(c);
    this.price = new Float64Array(c);
    this.category = new Int32Array(c);
    this.stateCode = new Int32Array(c);
    this.cityCode = new Int32Array(c);
    this.placeCode = new Int32Array(c);
    this.endAt = new Float64Array(c);
    this.freight = new Int32Array(c);
    this.discount = new Int32Array(c);
    this.stamp = new Uint32Array(c);
  }

  /** Live listings (ended ones included until their end passes a query's clock). */
  get size(): number {
    return this.liveCount;
  }

  /** Slots of replaced or removed listings, until the next reload. */
  get dead(): number {
    return this.slotCount - this.liveCount;
  }

  protected isListed(s: number): boolean {
    return (this.listed[s >>> 5]! & (1 << (s & 31))) !== 0;
  }

  protected unlist(s: number): void {
    if (!this.isListed(s)) return;
    this.listed[s >>> 5]! &= ~(1 << (s & 31));
    this.tally(s, -1);
  }

  /** Counts a slot in or out of the listed ones (the postings layer keeps its counters too). */
  protected tally(_s: number, delta: 1 | -1): void {
    this.listedCount += delta;
  }

  /** Unlists every listing whose end time is not after `now` (time only moves forward here). */
  protected expire(now: number): void {
    if (now <= this.clock) return;
    this.clock = now;
    const time = this.endAt;
    const slots = this.heapSlot;
    while (this.heapSize > 0 && time[slots[0]!]! <= now) {
      const s = slots[0]!;
      // Pop: move the last entry to the root and sift it down.
      const n = --this.heapSize;
      const last = slots[n]!;
      const t = time[last]!;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const child = r < n && time[slots[r]!]! < time[slots[l]!]! ? r : l;
        if (time[slots[child]!]! >= t) break;
        slots[i] = slots[child]!;
        i = child;
      }
      slots[i] = last;
      if (this.alive[s] === 1 && this.endAt[s]! <= now) this.unlist(s);
    }
  }

  /** Files listed slot `s` in the end-time heap, by its `endAt`. */
  protected pushExpiry(s: number): void {
    if (this.heapSize === this.heapSlot.length) {
      const slots = new Int32Array(this.heapSlot.length * 2);
      slots.set(this.heapSlot);
      this.heapSlot = slots;
    }
    const time = this.endAt;
    const endAt = time[s]!;
    let i = this.heapSize++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (time[this.heapSlot[parent]!]! <= endAt) break;
      this.heapSlot[i] = this.heapSlot[parent]!;
      i = parent;
    }
    this.heapSlot[i] = s;
  }

  /** Fills a new slot's own arrays and lists it if it has not ended (the terms are the next layer's). */
  protected appendSlot(listing: IndexedListing): number {
    if (this.slotCount === this.capacity) this.grow();
    const s = this.slotCount++;
    this.ids[s] = listing.id;
    this.alive[s] = 1;
    this.score[s] = listing.dealScore ?? NaN;
    this.price[s] = listing.priceUsd ?? NaN;
    this.category[s] = listing.categoryId;
    this.stateCode[s] = -1;
    this.cityCode[s] = -1;
    this.placeCode[s] = -1;
    this.endAt[s] = listing.endAt ?? Infinity;
    this.freight[s] = packFreight(listing.weightClass ?? 'mid', listing.buyersPremiumPct ?? null);
    const discount = discountDollarsUp(listing.priceUsd, listing.fairValue ?? null);
    this.discount[s] = discount === null ? NO_DISCOUNT : Math.max(NO_DISCOUNT + 1, Math.min(0x7fffffff, discount));
    return s;
  }

  /** Lists a new slot unless its end time has passed the clock (after every layer has filed it). */
  protected listIfOpen(s: number): void {
    const endAt = this.endAt[s]!;
    if (endAt > this.clock) {
      this.listed[s >>> 5]! |= 1 << (s & 31);
      this.tally(s, 1);
      if (endAt !== Infinity) this.pushExpiry(s);
    }
  }

  /**
   * Grows the capacity by a quarter (a multiple of 1024, so bitsets stay whole words); the layers
   * above extend it to their own per-slot arrays. Not doubling: at a million listings every
   * per-slot array and every bitset would take a million slots more for the writes of a few minutes.
   */
  protected grow(to?: number): void {
    const c = to ?? Math.ceil((this.capacity * 1.25) / 1024) * 1024;
    // Arrays already that long (a restore adopts its columns first) are kept as they are.
    this.mapSlotArrays((a) => {
      if (a.length === c) return a;
      const next = sameKind(a, c);
      next.set(a);
      return next;
    });
    const listed = new Uint32Array(c >>> 5);
    listed.set(this.listed);
    this.listed = listed;
    this.stamp = new Uint32Array(c);
    this.epoch = 0;
    this.capacity = c;
  }

  /** Replaces every array holding one value per slot (renumbering and growing go through here). */
  protected mapSlotArrays(f: <T extends SlotArray>(a: T) => T): void {
    this.ids = f(this.ids);
    this.alive = f(this.alive);
    this.score = f(this.score);
    this.price = f(this.price);
    this.category = f(this.category);
    this.stateCode = f(this.stateCode);
    this.cityCode = f(this.cityCode);
    this.placeCode = f(this.placeCode);
    this.endAt = f(this.endAt);
    this.freight = f(this.freight);
    this.discount = f(this.discount);
  }

  /** Order of two slots: the sort key (missing values last), then the listing id. */
  protected compare(order: number, a: number, b: number): number {
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

  protected nextEpoch(): number {
    this.epoch = (this.epoch + 1) >>> 0;
    if (this.epoch === 0) {
      this.stamp.fill(0);
      this.epoch = 1;
    }
    return this.epoch;
  }
}
