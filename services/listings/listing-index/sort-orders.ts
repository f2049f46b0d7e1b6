/**
 * Sort orders, the third layer, and loading. Per sort order a *main* permutation of slots is kept
 * sorted; slots appended since it was built form a small *delta* kept sorted by binary insertion,
 * and a page walks both in step. When the delta grows, it is merged into the main permutation in
 * one linear pass. Killed slots are skipped and go away when the index is rebuilt.
 *
 * The load numbers slots in deal_score_high order (the default sort, and relevance's candidates):
 * there, slot order *is* the order, so a page ANDs bitsets from slot 0 and stops when full; slots
 * appended later (a *tail*, kept sorted) are merged in. Pure: no I/O.
 */
import { IntList, TermList, popcount, sameKind } from './bits.js';
import { PostingStore, type Postings } from './posting-store.js';
import type { IndexedListing, IndexOptions, IndexSort } from './types.js';
import { categoryCodeSteps, categoryCodes, splitByCategory, splitSteps, type CategoryCodes } from './category-split.js';

export const ORDERS: readonly Exclude<IndexSort, 'relevance' | 'distance' | 'delivered'>[] = ['deal_score_high', 'deal_score_low', 'price_low', 'price_high'];
type Order = (typeof ORDERS)[number];
export const ORDER_INDEX: Record<Order, number> = { deal_score_high: 0, deal_score_low: 1, price_low: 2, price_high: 3 };
/** Slots per block of the listed counts (2,048: 64 bitset words), as a shift. */
export const BLOCK_SHIFT = 11;
/** deal_score_high: its order is the slot numbers and the tail (no permutation kept). */
const BY_SCORE = 0;

export class SortOrders extends PostingStore {
  /**
   * Per order: the main permutation (sorted slots < deltaFrom, dead ones included until merged).
   * Not kept for deal_score_high (empty, like its position, category split and delta): there the
   * slot numbers are the order, and the tail holds the slots appended since.
   */
  protected main: Int32Array[] = ORDERS.map(() => new Int32Array(0));
  /** Per order and category: the category's slots of `main`, in the same order (a category's pages walk these). */
  protected byCategory: Array<Map<number, Int32Array>> = ORDERS.map(() => new Map());
  /** Per order: the position of each slot in `main`, or -1. */
  protected position: Int32Array[];
  protected deltaFrom = 0;
  /** Per order: slots ≥ deltaFrom, sorted. */
  protected delta: number[][] = ORDERS.map(() => []);
  protected loading = true;
  /**
   * Slots below this are numbered in deal_score_high order (the load renumbers them so): a page in
   * that order — the default sort, and relevance's candidates — reads them by ANDing bitsets from
   * slot 0 and stops when it has enough, instead of visiting slots in a permutation's order.
   */
  protected ordered = 0;
  /** Slots from `ordered` on (appended since the load), in deal_score_high order; dead ones until a merge. */
  protected tail: number[] = [];
  /**
   * Per slot from `ordered` on (at slot - ordered): its *rank*, how many score-numbered slots come
   * before it in deal_score_high order. Those slots never change (a change appends a new slot), so
   * a slot's rank is fixed when it is appended, and merging the tail into the numbered slots is an
   * integer comparison: tail slot t comes before numbered slot s exactly when rank(t) <= s.
   */
  protected tailRank = new IntList();
  /**
   * Listed slots per block of 2^BLOCK_SHIFT score positions: numbered slots by their number, tail
   * slots by their rank. A deep page of the unfiltered default order — the list's main page, paged
   * far — skips whole blocks by these counts instead of counting bits through every word before it.
   */
  protected listedPerBlock = new Int32Array(1);

  /** The delta is merged into the main orders once it holds this many slots (a linear pass). */
  readonly maxDelta: number;

  constructor(opts: IndexOptions) {
    super(opts);
    this.maxDelta = opts.maxDelta ?? 4096;
    this.position = ORDERS.map((_, o) => new Int32Array(o === BY_SCORE ? 0 : this.capacity).fill(-1));
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

  protected steps: Generator<void> | null = null;

  protected *loadSteps(): Generator<void> {
    yield* this.renumberByScore();
    const fresh = new Int32Array(this.slotCount);
    for (let s = 0; s < fresh.length; s++) fresh[s] = s;
    for (let o = BY_SCORE + 1; o < ORDERS.length; o++) {
      this.delta[o] = Array.from(fresh.slice().sort((a, b) => this.compare(o, a, b)));
      yield;
    }
    this.loading = false;
    this.mergeDelta();
    this.ordered = this.slotCount;
    this.countBlocks();
  }

  /**
   * Moves every live slot to its rank in deal_score_high order (dead ones are dropped): per-slot
   * arrays are permuted, the terms' CSR copied in the new order, posting lists mapped and sorted,
   * bitsets, the id map and the end-time heap rebuilt.
   */
  protected *renumberByScore(): Generator<void> {
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
    const termIds = new TermList(Math.max(8, this.termIds.length), this.termNames.length > 0x3fff);
    for (let k = 0; k < n; k++) {
      const s = perm[k]!;
      termStart[k] = termIds.length;
      for (let i = this.termStart[s]!, end = this.termStart[s + 1]!; i < end; i++) {
        const packed = this.termIds.data[i]!;
        termIds.push(packed);
        post(this.terms[packed >>> 2]!, k);
      }
      post(this.categories.get(this.category[k]!)!, k);
      if (this.stateCode[k]! >= 0) post(this.states[this.stateCode[k]!]!, k);
      if (this.cityCode[k]! >= 0) post(this.cities[this.cityCode[k]!]!, k);
    }
    termStart[n] = termIds.length;
    this.termStart = termStart;
    this.termIds = termIds;
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
      p.dropList();
    }
    yield;
    this.slotOf.remap((s) => newOf[s]!);
    // The heap: its listed entries renamed, then heapified again (dead ones dropped).
    const slots: number[] = [];
    for (let i = 0; i < this.heapSize; i++) {
      const k = newOf[this.heapSlot[i]!]!;
      if (k >= 0) slots.push(k);
    }
    this.heapSize = 0;
    for (const k of slots) this.pushExpiry(k);
    this.wordBits.clear();
    this.stamp.fill(0);
    this.epoch = 0;
    // Slot numbers start again below the old ones: stamps of old slots would be taken for new ones.
    this.termStamp.fill(0);
    this.buildPlaceGroups(n);
    this.slotCount = n;
  }


  /** How many score-numbered slots come before slot `s` in deal_score_high order (a binary search). */
  protected rankAmongOrdered(s: number): number {
    let lo = 0;
    let hi = this.ordered;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(ORDER_INDEX.deal_score_high, mid, s) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The score position a slot is counted at: its number, or its rank for a tail slot. */
  protected scorePosition(s: number): number {
    return s < this.ordered ? s : this.tailRank.data[s - this.ordered]!;
  }

  protected override tally(s: number, delta: 1 | -1): void {
    super.tally(s, delta);
    // While loading, slots are not numbered yet: counted once numbered (countBlocks).
    if (!this.loading) this.listedPerBlock[this.scorePosition(s) >>> BLOCK_SHIFT]! += delta;
  }

  /** Counts the listed slots per block from scratch, once the slots are numbered (the tail is empty). */
  protected countBlocks(): void {
    this.tailRank = new IntList();
    // Blocks up to the one holding position `ordered` (a tail slot ranked after every numbered one).
    const counts = new Int32Array((this.ordered >>> BLOCK_SHIFT) + 1);
    const listed = this.listed;
    const words = (this.ordered + 31) >>> 5;
    for (let w = 0; w < words; w++) if (listed[w] !== 0) counts[w >>> (BLOCK_SHIFT - 5)]! += popcount(listed[w]!);
    this.listedPerBlock = counts;
  }

  /** Slots appended since the load, outside the score-numbered range (dead ones until a merge). */
  get unordered(): number {
    return this.tail.length;
  }

  /** Adds or replaces a listing (an open one: closed listings are removed, not upserted). */
  upsert(listing: IndexedListing): void {
    this.finishLoad();
    this.remove(listing.id);
    const slot = this.append(listing);
    for (let o = BY_SCORE + 1; o < ORDERS.length; o++) this.insertSorted(this.delta[o]!, o, slot);
    this.insertSorted(this.tail, BY_SCORE, slot);
    // With a background merger the delta may grow well past maxDelta while a merge runs in steps.
    if (this.slotCount - this.deltaFrom >= this.maxDelta * (this.backgroundMerge ? 16 : 1)) this.mergeDelta();
  }

  /**
   * upsert for a batch (a sync's changes): the new slots are sorted once per order and merged into
   * each delta and the tail in one linear pass, instead of one binary insertion (an array splice)
   * per listing and order — at a restart, catching up thousands of changes, that was quadratic.
   */
  upsertMany(listings: readonly IndexedListing[]): void {
    if (listings.length < 32) {
      for (const listing of listings) this.upsert(listing);
      return;
    }
    this.finishLoad();
    const added: number[] = [];
    for (const listing of listings) {
      this.remove(listing.id);
      added.push(this.append(listing));
    }
    for (let o = BY_SCORE + 1; o < ORDERS.length; o++) this.delta[o] = this.mergeSorted(this.delta[o]!, added, o);
    this.tail = this.mergeSorted(this.tail, added, BY_SCORE);
    if (this.slotCount - this.deltaFrom >= this.maxDelta * (this.backgroundMerge ? 16 : 1)) this.mergeDelta();
  }

  /** A new list: `list` (sorted in `order`) with `slots` sorted in. */
  private mergeSorted(list: readonly number[], slots: readonly number[], order: number): number[] {
    const sorted = [...slots].sort((a, b) => this.compare(order, a, b));
    const out = new Array<number>(list.length + sorted.length);
    let i = 0;
    let j = 0;
    let k = 0;
    // Ties (a dead slot and its listing's new one) as binary insertion places them: the new slot first.
    while (i < list.length || j < sorted.length) {
      if (j >= sorted.length || (i < list.length && this.compare(order, list[i]!, sorted[j]!) < 0)) out[k++] = list[i++]!;
      else out[k++] = sorted[j++]!;
    }
    return out;
  }

  /**
   * Set by a caller that merges with mergeDeltaInSteps (the sync): upsert then merges at once only
   * as a last resort. At a million listings a merge is a few hundred milliseconds of one core:
   * done in one go on a request's path it would be every request's p99.
   */
  backgroundMerge = false;
  /** Bumped by every merge installed: a merge built in steps from older orders is dropped. */
  private mergeEpoch = 0;
  private merging = false;

  /** The delta has outgrown maxDelta and no merge is running. */
  get needsMerge(): boolean {
    return !this.loading && !this.merging && this.slotCount - this.deltaFrom >= this.maxDelta;
  }

  /**
   * mergeDelta, `slice` slots of work at a time with `pause()` between: the merged orders are
   * built aside from the orders and the delta as they stand at the start, while the index keeps
   * answering and taking upserts (those stay in the delta; slots killed meanwhile stay in the main
   * orders, skipped like any dead slot, until the next merge). Installed in one short step.
   */
  async mergeDeltaInSteps(pause: () => Promise<void>, slice = 16_384): Promise<boolean> {
    if (this.loading || this.merging) return false;
    this.merging = true;
    try {
      const epoch = this.mergeEpoch;
      const frozen = this.slotCount;
      let budget = slice;
      const step = async (cost: number) => {
        budget -= cost;
        if (budget > 0) return true;
        budget = slice;
        await pause();
        return epoch === this.mergeEpoch;
      };
      const merged: Int32Array[] = [new Int32Array(0)];
      for (let o = BY_SCORE + 1; o < ORDERS.length; o++) {
        const main = this.main[o]!;
        const delta = this.delta[o]!.filter((s) => s < frozen);
        const out = new Int32Array(main.length + delta.length);
        let i = 0;
        let j = 0;
        let k = 0;
        while (i < main.length || j < delta.length) {
          for (let n = 0; n < 4096 && (i < main.length || j < delta.length); n++) {
            let s: number;
            if (j >= delta.length || (i < main.length && this.compare(o, main[i]!, delta[j]!) < 0)) s = main[i++]!;
            else s = delta[j++]!;
            if (this.alive[s] === 1) out[k++] = s;
          }
          if (!(await step(4096))) return false;
        }
        merged.push(k === out.length ? out : out.slice(0, k));
      }
      const codeSteps = categoryCodeSteps(this.category, frozen, 4096);
      let r = codeSteps.next();
      for (; !r.done; r = codeSteps.next()) if (!(await step(4096))) return false;
      const categories = r.value;
      const byCategory: Array<Map<number, Int32Array>> = [new Map()];
      for (const order of merged.slice(BY_SCORE + 1)) {
        const split = splitSteps(order, categories, 4096);
        for (let r = split.next(); ; r = split.next()) {
          if (r.done) {
            byCategory.push(r.value);
            break;
          }
          if (!(await step(4096))) return false;
        }
      }
      // Positions built aside too (the index may grow meanwhile: then they are widened at install).
      const positions: Int32Array[] = [new Int32Array(0)];
      for (const order of merged.slice(BY_SCORE + 1)) {
        const position = new Int32Array(this.capacity).fill(-1);
        for (let p = 0; p < order.length; p++) {
          position[order[p]!] = p;
          if ((p & 4095) === 4095 && !(await step(4096))) return false;
        }
        positions.push(position);
      }
      for (let o = BY_SCORE + 1; o < ORDERS.length; o++) {
        let position = positions[o]!;
        if (position.length < this.capacity) {
          const wider = new Int32Array(this.capacity).fill(-1);
          wider.set(position);
          position = wider;
        }
        this.position[o] = position;
        const order = merged[o]!;
        this.main[o] = order;
        this.delta[o] = this.delta[o]!.filter((s) => s >= frozen);
        this.byCategory[o] = byCategory[o]!;
      }
      this.deltaFrom = frozen;
      this.tail = this.tail.filter((t) => this.alive[t] === 1);
      this.mergeEpoch++;
      return true;
    } finally {
      this.merging = false;
    }
  }

  /** Binary insertion into a list sorted in an order. */
  protected insertSorted(list: number[], order: number, slot: number): void {
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
    if (slot < 0) return false;
    this.slotOf.delete(id);
    this.alive[slot] = 0;
    this.unlist(slot);
    this.liveCount--;
    return true;
  }

  /** Appends a slot without placing it in any order (build and upsert do). */
  protected append(listing: IndexedListing): number {
    const s = this.appendSlot(listing);
    this.appendPostings(s, listing);
    // Its rank among the numbered slots, before it is listed (the block counts need it).
    if (!this.loading) this.tailRank.push(this.rankAmongOrdered(s));
    this.listIfOpen(s);
    this.slotOf.set(listing.id, s);
    this.liveCount++;
    return s;
  }

  protected override grow(to?: number): void {
    super.grow(to);
    const c = this.capacity;
    this.position = this.position.map((p, o) => {
      if (o === BY_SCORE) return p;
      const next = new Int32Array(c).fill(-1);
      next.set(p);
      return next;
    });
  }

  /** Folds the delta (and drops dead slots) into each main order: one linear merge per order. */
  mergeDelta(): void {
    if (this.loading) return this.finishLoad();
    this.mergeEpoch++;
    const categories = this.categoryCodes();
    for (let o = BY_SCORE + 1; o < ORDERS.length; o++) {
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

  /** A dense code per slot's category (see category-split.ts). */
  protected categoryCodes(): CategoryCodes {
    return categoryCodes(this.category, this.slotCount);
  }

  protected splitByCategory(order: Int32Array, categories: CategoryCodes): Map<number, Int32Array> {
    return splitByCategory(order, categories);
  }
}
