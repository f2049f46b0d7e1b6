/**
 * Splitting a sort order by category: each category's slots in the same order (a category's pages
 * walk these). Pure functions over typed arrays; the sort-order layer calls them after a load or
 * a merge, and a stepped merge pauses between slices.
 */

/** A dense code per category, and each slot's code. */
export type CategoryCodes = { codes: Map<number, number>; slotCode: Int32Array };

/** A dense code per slot's category (so splitting an order is two typed-array passes). */
export function categoryCodes(category: Int32Array, slotCount: number): CategoryCodes {
  const steps = categoryCodeSteps(category, slotCount, Infinity);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** categoryCodes, yielding after each `slice` slots (a stepped merge pauses there). */
export function* categoryCodeSteps(category: Int32Array, slotCount: number, slice: number): Generator<void, CategoryCodes> {
  const codes = new Map<number, number>();
  const slotCode = new Int32Array(slotCount);
  let last = NaN;
  let lastCode = 0;
  for (let from = 0; from < slotCount; from += slice) {
    for (let s = from, end = Math.min(slotCount, from + slice); s < end; s++) {
      const c = category[s]!;
      if (c !== last) {
        let code = codes.get(c);
        if (code === undefined) codes.set(c, (code = codes.size));
        last = c;
        lastCode = code;
      }
      slotCode[s] = lastCode;
    }
    if (from + slice < slotCount) yield;
  }
  return { codes, slotCode };
}

export function splitByCategory(order: Int32Array, categories: CategoryCodes): Map<number, Int32Array> {
  const steps = splitSteps(order, categories, Infinity);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** splitByCategory, yielding after each `slice` slots of work (a stepped merge pauses there). */
export function* splitSteps(order: Int32Array, { codes, slotCode }: CategoryCodes, slice: number): Generator<void, Map<number, Int32Array>> {
  const sizes = new Int32Array(codes.size);
  for (let from = 0; from < order.length; from += slice) {
    for (let i = from, end = Math.min(order.length, from + slice); i < end; i++) sizes[slotCode[order[i]!]!]!++;
    yield;
  }
  const parts = Array.from(sizes, (size) => new Int32Array(size));
  const filled = new Int32Array(codes.size);
  for (let from = 0; from < order.length; from += slice) {
    for (let i = from, end = Math.min(order.length, from + slice); i < end; i++) {
      const s = order[i]!;
      const code = slotCode[s]!;
      parts[code]![filled[code]!++] = s;
    }
    yield;
  }
  return new Map([...codes].map(([category, code]) => [category, parts[code]!]));
}
