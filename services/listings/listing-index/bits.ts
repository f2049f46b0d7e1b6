/** Small typed-array helpers the index's parts share: a growable int list, bit counting. */

export type SlotArray = Int32Array | Uint8Array | Float64Array;

/** An empty array of the same kind as `a`. */
export function sameKind<T extends SlotArray>(a: T, length: number): T {
  return new (a.constructor as new (length: number) => T)(length);
}


/** Set bits in a 32-bit word. */
export function popcount(v: number): number {
  v -= (v >>> 1) & 0x55555555;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

export class IntList {
  data: Int32Array;
  length = 0;
  constructor(capacity = 8) {
    this.data = new Int32Array(capacity);
  }
  push(value: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(Math.max(8, this.data.length * 2));
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }
}

/**
 * The terms of every slot, one after another, each with its weight in the low two bits: two
 * bytes a term while the vocabulary has fewer than 16,384 terms (equipment listings hold a few
 * thousand), four from the first term past it. About twenty terms a listing: at a million
 * listings, 60 MB less than a four-byte id and a weight byte.
 */
export class TermList {
  data: Uint16Array | Int32Array;
  length = 0;
  constructor(capacity = 8, wide = false) {
    this.data = wide ? new Int32Array(capacity) : new Uint16Array(capacity);
  }
  /** Takes `terms` as its data (a view's whole buffer: the room behind it is for later pushes). */
  static adopt(terms: Uint16Array | Int32Array): TermList {
    const list = new TermList(0);
    list.data = terms instanceof Uint16Array ? new Uint16Array(terms.buffer, terms.byteOffset) : new Int32Array(terms.buffer, terms.byteOffset);
    list.length = terms.length;
    return list;
  }

  push(value: number): void {
    if (this.length === this.data.length || (value > 0xffff && this.data instanceof Uint16Array)) {
      // A quarter more (not double: at a million listings this list is tens of MB).
      const size = Math.max(8, Math.ceil(this.data.length * 1.25));
      const next = value > 0xffff || this.data instanceof Int32Array ? new Int32Array(size) : new Uint16Array(size);
      next.set(this.data.subarray(0, this.length));
      this.data = next;
    }
    this.data[this.length++] = value;
  }
}

/**
 * Listing id → slot, in one typed array (open addressing, linear probing): a JavaScript Map of a
 * million numbers costs 40–50 MB and is rebuilt entry by entry. Only the slots are stored: a
 * slot's id is read from the index's own per-slot ids (`idOf`), so the table is 8 MB at a million
 * listings instead of 16 with a column of keys beside it. Ids are non-negative 32-bit integers
 * (the listings table's serial key); a slot must hold its id before it is set here, and keep it
 * while it is.
 */
export class IdSlots {
  private slots: Int32Array;
  private used = 0;
  /** Live entries. */
  size = 0;
  private static readonly EMPTY = -1;
  private static readonly GONE = -2;

  constructor(
    private readonly idOf: (slot: number) => number,
    expected = 1024,
  ) {
    let capacity = 1024;
    while (capacity < expected * 2) capacity *= 2;
    this.slots = new Int32Array(capacity).fill(IdSlots.EMPTY);
  }

  private home(id: number): number {
    return Math.imul(id, 0x9e3779b1) >>> 0;
  }

  /** The slot of `id`, or -1. */
  get(id: number): number {
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let i = this.home(id) & mask; ; i = (i + 1) & mask) {
      const s = slots[i]!;
      if (s === IdSlots.EMPTY) return -1;
      if (s >= 0 && this.idOf(s) === id) return s;
    }
  }

  set(id: number, slot: number): void {
    if (id < 0) throw new Error(`listing id must be non-negative: ${id}`);
    if (this.idOf(slot) !== id) throw new Error(`slot ${slot} does not hold listing ${id}`);
    if ((this.used + 1) * 2 > this.slots.length) this.rehash(this.size * 2 + 2 > this.slots.length / 2 ? this.slots.length * 2 : this.slots.length);
    const slots = this.slots;
    const mask = slots.length - 1;
    let free = -1;
    for (let i = this.home(id) & mask; ; i = (i + 1) & mask) {
      const s = slots[i]!;
      if (s >= 0 && this.idOf(s) === id) {
        slots[i] = slot;
        return;
      }
      if (s === IdSlots.GONE && free < 0) free = i;
      if (s === IdSlots.EMPTY) {
        if (free < 0) {
          free = i;
          this.used++;
        }
        slots[free] = slot;
        this.size++;
        return;
      }
    }
  }

  delete(id: number): boolean {
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let i = this.home(id) & mask; ; i = (i + 1) & mask) {
      const s = slots[i]!;
      if (s === IdSlots.EMPTY) return false;
      if (s >= 0 && this.idOf(s) === id) {
        slots[i] = IdSlots.GONE;
        this.size--;
        return true;
      }
    }
  }

  /** Replaces every slot by `f(slot)` (renumbering: `idOf` must already give each new slot its id). */
  remap(f: (slot: number) => number): void {
    for (let i = 0; i < this.slots.length; i++) if (this.slots[i]! >= 0) this.slots[i] = f(this.slots[i]!);
  }

  private rehash(capacity: number): void {
    const old = this.slots;
    this.slots = new Int32Array(capacity).fill(IdSlots.EMPTY);
    this.used = 0;
    this.size = 0;
    for (let i = 0; i < old.length; i++) if (old[i]! >= 0) this.set(this.idOf(old[i]!), old[i]!);
  }
}
