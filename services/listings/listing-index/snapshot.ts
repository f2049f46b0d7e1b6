/**
 * Snapshots, the fifth layer: the index's content as a few flat arrays, and an index brought back
 * from them with linear work only. A load from PostgreSQL at a million listings spends tens of
 * seconds reading rows, parsing search vectors and sorting; a snapshot holds the listings already
 * in deal_score_high order (slot k is the k-th best), their terms as the CSR the index keeps, the
 * three other orders as permutations, and the dictionaries — so restoring is copying arrays and
 * refilling the posting lists in one pass. Any state can be written (dead slots, delta and tail
 * are folded in first). Pure: no I/O (listing-index-snapshot-file.ts writes and reads the file).
 */
import { IdSlots, TermList } from './bits.js';
import { Postings } from './posting-store.js';
import { QueryCompiler } from './query-compile.js';
import { ORDERS, ORDER_INDEX } from './sort-orders.js';

/** An index's content; every array holds exactly its elements (no spare capacity). */
export type IndexColumns = {
  ids: Int32Array;
  score: Float64Array;
  price: Float64Array;
  category: Int32Array;
  stateCode: Int32Array;
  cityCode: Int32Array;
  /** Per slot, its place in placeLat/placeLon, or -1. */
  placeCode: Int32Array;
  endAt: Float64Array;
  /** Per slot, its weight class and stated premium (SlotStore.freight). */
  freight: Int32Array;
  /** Per slot, its discount under fair value in whole dollars rounded up, or NO_DISCOUNT. */
  discount: Int32Array;
  placeLat: Float64Array;
  placeLon: Float64Array;
  /** CSR over slots: n + 1 offsets into `terms`. */
  termStart: Int32Array;
  /** Every slot's terms, each `term << 2 | weight` (as the index keeps them): two bytes while there are fewer than 16,384 terms. */
  terms: Uint16Array | Int32Array;
  /** Per order after deal_score_high (deal_score_low, price_low, price_high): the slots in that order. */
  orders: Int32Array[];
  termNames: string[];
  stateNames: string[];
  cityNames: string[];
};

/** Throws unless every array has its length and every code its dictionary entry (a damaged file must not become an index). */
function checkColumns(cols: IndexColumns): void {
  const n = cols.ids.length;
  const fail = (what: string) => {
    throw new Error(`listing index snapshot: ${what}`);
  };
  for (const a of [cols.score, cols.price, cols.category, cols.stateCode, cols.cityCode, cols.placeCode, cols.endAt, cols.freight, cols.discount]) if (a.length !== n) fail('column lengths differ');
  if (cols.placeLat.length !== cols.placeLon.length) fail('place lengths differ');
  if (cols.termStart.length !== n + 1 || cols.termStart[0] !== 0 || cols.termStart[n] !== cols.terms.length) fail('bad term offsets');
  if (cols.termNames.length > 0x3fff && !(cols.terms instanceof Int32Array)) fail('bad term width');
  for (let k = 0; k < n; k++) {
    if (cols.termStart[k + 1]! < cols.termStart[k]!) fail('bad term offsets');
    if (cols.stateCode[k]! >= cols.stateNames.length || cols.cityCode[k]! >= cols.cityNames.length) fail('bad state or city code');
    if (cols.placeCode[k]! >= cols.placeLat.length || cols.placeCode[k]! < -1) fail('bad place code');
  }
  for (let i = 0; i < cols.terms.length; i++) if (cols.terms[i]! < 0 || cols.terms[i]! >>> 2 >= cols.termNames.length) fail('bad term id');
  if (cols.orders.length !== ORDERS.length - 1) fail('missing orders');
  const seen = new Uint8Array(n);
  for (const order of cols.orders) {
    if (order.length !== n) fail('order lengths differ');
    seen.fill(0);
    for (let i = 0; i < n; i++) {
      const s = order[i]!;
      if (s < 0 || s >= n || seen[s]) fail('an order is not a permutation');
      seen[s] = 1;
    }
  }
}

/** Room for n listings and a sixteenth more (the writes of the next minutes), a multiple of 1024 (bitsets are whole words). */
function capacityFor(n: number): number {
  return Math.ceil((n + Math.max(1024, n >>> 4)) / 1024) * 1024;
}

export class SnapshotIndex extends QueryCompiler {
  /**
   * The content as flat arrays, renumbered in deal_score_high order, live listings only (the
   * index itself is left as it is and keeps answering).
   */
  toColumns(): IndexColumns {
    const steps = this.columnSteps();
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * The same, about 16k listings of work at a time with `pause()` between: the index keeps
   * answering and taking upserts meanwhile, and the columns are its content as of the call
   * (slots are never changed in place, only killed; which were alive is copied first).
   */
  async toColumnsInSteps(pause: () => Promise<void>): Promise<IndexColumns> {
    const steps = this.columnSteps();
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
      await pause();
    }
  }

  private *columnSteps(): Generator<void, IndexColumns> {
    // A slice is a few milliseconds of one core: each is a pause in the requests this process answers.
    const SLICE = 16_384;
    this.finishLoad();
    // Each order as of now, its main part merged with its delta here (the index's own merge is
    // left to the sync's stepped merges: at a million listings a merge in one go is a stall of
    // hundreds of milliseconds, seconds on a loaded machine). Taken by reference now: merges
    // replace main orders and deltas rather than change them, and upserts splice deltas, so the
    // deltas are copied; `alive` as of now picks the same listings from every order.
    const alive = this.alive.slice(0, this.slotCount);
    const mains = this.main.slice();
    const deltas = this.delta.map((d) => d.filter((s) => alive[s] === 1));
    // deal_score_high: the numbered slots, with the tail merged in by rank.
    const numbered = this.ordered;
    const tail = this.tail.filter((s) => alive[s] === 1);
    const rank = this.tailRank.data.slice(0, this.slotCount - numbered);
    const byScore = new Int32Array(this.liveCount);
    let n = 0;
    for (let s = 0, j = 0; s < numbered || j < tail.length; ) {
      for (let c = 0; c < SLICE && (s < numbered || j < tail.length); c++) {
        if (j < tail.length && (s >= numbered || rank[tail[j]! - numbered]! <= s)) byScore[n++] = tail[j++]!;
        else if (alive[s++] === 1) byScore[n++] = s - 1;
      }
      yield;
    }
    if (n !== byScore.length) throw new Error(`listing index: ${n} listings in score order, ${byScore.length} alive`);
    const ordered: Int32Array[] = [];
    for (let o = ORDER_INDEX.deal_score_high + 1; o < mains.length; o++) {
      const main = mains[o]!;
      const delta = deltas[o]!;
      const out = new Int32Array(main.length + delta.length);
      let i = 0;
      let j = 0;
      let k = 0;
      while (i < main.length || j < delta.length) {
        for (let c = 0; c < SLICE && (i < main.length || j < delta.length); c++) {
          let s: number;
          if (j >= delta.length || (i < main.length && this.compare(o, main[i]!, delta[j]!) < 0)) s = main[i++]!;
          else s = delta[j++]!;
          if (alive[s] === 1) out[k++] = s;
        }
        yield;
      }
      ordered.push(out.subarray(0, k));
    }
    const newOf = new Int32Array(this.slotCount).fill(-1);
    for (let k = 0; k < n; k++) {
      newOf[byScore[k]!] = k;
      if ((k & (SLICE - 1)) === SLICE - 1) yield;
    }
    yield;
    function* pick<T extends Int32Array | Float64Array>(get: () => T): Generator<void, T> {
      const out = new (get().constructor as new (length: number) => T)(n);
      for (let from = 0; from < n; from += SLICE) {
        const a = get();
        for (let k = from; k < Math.min(n, from + SLICE); k++) out[k] = a[byScore[k]!]!;
        yield;
      }
      return out;
    }
    let terms = 0;
    for (let k = 0; k < n; k++) {
      terms += this.termStart[byScore[k]! + 1]! - this.termStart[byScore[k]!]!;
      if ((k & (SLICE - 1)) === SLICE - 1) yield;
    }
    const termStart = new Int32Array(n + 1);
    const packedTerms = this.termNames.length > 0x3fff ? new Int32Array(terms) : new Uint16Array(terms);
    let t = 0;
    for (let k = 0; k < n; k++) {
      const s = byScore[k]!;
      termStart[k] = t;
      const from = this.termStart[s]!;
      const to = this.termStart[s + 1]!;
      packedTerms.set(this.termIds.data.subarray(from, to), t);
      t += to - from;
      if ((k & (SLICE - 1)) === SLICE - 1) yield;
    }
    termStart[n] = t;
    const orders: Int32Array[] = [];
    for (const main of ordered) {
      const order = new Int32Array(n);
      let k = 0;
      for (let i = 0; i < main.length; i++) {
        order[k++] = newOf[main[i]!]!;
        if ((i & (SLICE - 1)) === SLICE - 1) yield;
      }
      orders.push(order);
      yield;
    }
    return {
      ids: yield* pick(() => this.ids),
      score: yield* pick(() => this.score),
      price: yield* pick(() => this.price),
      category: yield* pick(() => this.category),
      stateCode: yield* pick(() => this.stateCode),
      cityCode: yield* pick(() => this.cityCode),
      placeCode: yield* pick(() => this.placeCode),
      endAt: yield* pick(() => this.endAt),
      freight: yield* pick(() => this.freight),
      discount: yield* pick(() => this.discount),
      placeLat: Float64Array.from(this.placeLat),
      placeLon: Float64Array.from(this.placeLon),
      termStart,
      terms: packedTerms,
      orders,
      termNames: [...this.termNames],
      stateNames: [...this.stateIds.keys()],
      cityNames: [...this.cityIds.keys()],
    };
  }

  /** Fills a new, empty index from columns (see toColumns): copies, then one pass to refile postings. */
  protected restoreColumns(cols: IndexColumns): void {
    if (this.slotCount > 0 || !this.loading) throw new Error('restoreColumns() is for a new index');
    const n = cols.ids.length;
    checkColumns(cols);
    const cap = Math.max(this.capacity, capacityFor(n));
    // The reader leaves room for the capacity behind each column: those arrays are taken as they
    // are, as views of `cap` elements (no second copy of the index in memory while it starts);
    // others are copied. Adopted before growing, so growing allocates only what is not adopted:
    // every array allocated and dropped here stays in the process's RSS as allocator free space.
    const adopt = <T extends Int32Array | Float64Array>(column: T, size: number): T => {
      const Type = column.constructor as { new (buffer: ArrayBufferLike, offset: number, length: number): T; new (length: number): T };
      if (column.byteOffset === 0 && column.buffer.byteLength >= size * column.BYTES_PER_ELEMENT) return new Type(column.buffer, 0, size);
      const copy = new Type(size);
      copy.set(column);
      return copy;
    };
    this.ids = adopt(cols.ids, cap);
    this.score = adopt(cols.score, cap);
    this.price = adopt(cols.price, cap);
    this.category = adopt(cols.category, cap);
    this.stateCode = adopt(cols.stateCode, cap);
    this.cityCode = adopt(cols.cityCode, cap);
    this.placeCode = adopt(cols.placeCode, cap);
    this.endAt = adopt(cols.endAt, cap);
    this.freight = adopt(cols.freight, cap);
    this.discount = adopt(cols.discount, cap);
    this.termStart = adopt(cols.termStart, cap + 1);
    if (cap > this.capacity) this.grow(cap);
    this.alive.fill(1, 0, n);
    for (let p = 0; p < cols.placeLat.length; p++) this.placeOf(cols.placeLat[p]!, cols.placeLon[p]!);
    this.termIds = TermList.adopt(cols.terms);

    for (const name of cols.termNames) this.termOf(name);
    for (const name of cols.stateNames) this.codeOf(this.stateIds, this.states, name);
    for (const name of cols.cityNames) this.codeOf(this.cityIds, this.cities, name);
    // Posting lists, sized exactly (a count pass, then a fill pass: no doubling, no spare room).
    // A frequent term (a bitset, where add() would have made one) gets its bitset filled straight
    // from the terms: its list would only be dropped (at a million listings most of the terms'
    // postings are of frequent terms: tens of MB allocated and freed at every start).
    const termCount = new Int32Array(cols.termNames.length);
    for (let i = 0; i < cols.terms.length; i++) termCount[cols.terms[i]! >>> 2]!++;
    const sized = (p: Postings, size: number) => {
      p.list.data = new Int32Array(Math.max(4, size));
      return p;
    };
    this.terms.forEach((p, term) => {
      const count = termCount[term]!;
      if (count >= this.minBitsetPostings) {
        p.bits = new Uint32Array(this.capacity >>> 5);
        p.dropList();
        p.list.length = count;
      } else sized(p, count);
    });
    const countBy = (codes: Int32Array, size: number) => {
      const counts = new Int32Array(size);
      for (let k = 0; k < n; k++) if (codes[k]! >= 0) counts[codes[k]!]!++;
      return counts;
    };
    const stateCount = countBy(cols.stateCode, this.states.length);
    this.states.forEach((p, code) => sized(p, stateCount[code]!));
    const cityCount = countBy(cols.cityCode, this.cities.length);
    this.cities.forEach((p, code) => sized(p, cityCount[code]!));
    const categoryCount = new Map<number, number>();
    for (let k = 0; k < n; k++) categoryCount.set(cols.category[k]!, (categoryCount.get(cols.category[k]!) ?? 0) + 1);
    for (const [id, count] of categoryCount) this.categories.set(id, sized(new Postings(), count));
    const terms = this.terms;
    for (let k = 0; k < n; k++) {
      const word = k >>> 5;
      const bit = 1 << (k & 31);
      for (let i = cols.termStart[k]!, end = cols.termStart[k + 1]!; i < end; i++) {
        const p = terms[cols.terms[i]! >>> 2]!;
        if (p.bits) p.bits[word]! |= bit;
        else p.list.data[p.list.length++] = k;
      }
      const byCategory = this.categories.get(cols.category[k]!)!;
      byCategory.list.data[byCategory.list.length++] = k;
      const state = cols.stateCode[k]!;
      if (state >= 0) {
        const p = this.states[state]!;
        p.list.data[p.list.length++] = k;
      }
      const city = cols.cityCode[k]!;
      if (city >= 0) {
        const p = this.cities[city]!;
        p.list.data[p.list.length++] = k;
      }
    }
    // Bitsets where add() would have made them: every category, frequent states and cities.
    for (const p of this.categories.values()) this.fillBits(p);
    for (const p of [...this.states, ...this.cities]) if (p.list.length >= this.minBitsetPostings) this.fillBits(p);

    this.buildPlaceGroups(n);
    this.slotCount = n;
    this.liveCount = n;
    this.slotOf = new IdSlots((s) => this.ids[s]!, n);
    for (let k = 0; k < n; k++) {
      this.slotOf.set(cols.ids[k]!, k);
      this.listIfOpen(k);
    }
    this.main = [new Int32Array(0), ...cols.orders];
    for (let o = ORDER_INDEX.deal_score_high + 1; o < this.main.length; o++) {
      const position = this.position[o]!;
      const main = this.main[o]!;
      for (let i = 0; i < main.length; i++) position[main[i]!] = i;
    }
    const categories = this.categoryCodes();
    this.byCategory = this.main.map((main, o) => (o === ORDER_INDEX.deal_score_high ? new Map() : this.splitByCategory(main, categories)));
    this.delta = ORDERS.map(() => []);
    this.deltaFrom = n;
    this.tail = [];
    this.ordered = n;
    this.loading = false;
    this.countBlocks();
  }

  private fillBits(p: Postings): void {
    const bits = new Uint32Array(this.capacity >>> 5);
    for (let i = 0; i < p.list.length; i++) {
      const s = p.list.data[i]!;
      bits[s >>> 5]! |= 1 << (s & 31);
    }
    p.bits = bits;
  }
}
