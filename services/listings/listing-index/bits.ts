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
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = value;
  }
}
