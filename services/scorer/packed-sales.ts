/**
 * Training sales in a compact, transferable form for the training thread: numbers in one
 * Float64Array, text as indexes into one table of distinct strings, attributes as indexes into the
 * distinct attribute sets. A structured clone of a million sale objects copies every string and
 * object (gigabytes, and the sender's copy lives on beside it); packed, the arrays' buffers are
 * transferred without a copy and a make, model or attribute set shared by ten thousand sales is
 * sent once. Unpacked, sales sharing an attribute set share one attributes object (training only
 * reads them; everything that adds an attribute copies first).
 */
import type { TrainingSale } from '../valuation/features.js';

type Attributes = TrainingSale['attributes'];
type AttributeValue = Attributes[string];

export type PackedSales = {
  packed: 'training-sales-v1';
  count: number;
  /** categoryId, year, hours, soldAt (ms), price per sale; NaN is null. */
  numbers: Float64Array;
  /** make, model, modelFamily, condition, state, saleChannel, title, description per sale: an index into `strings`, −1 null, −2 absent. */
  text: Int32Array;
  /** The attribute set (index into `attributeSets`) of each sale. */
  attributes: Int32Array;
  strings: string[];
  /** Each distinct attribute set as [key, value] entries, in the sales' key order. */
  attributeSets: [string, AttributeValue][][];
};

const NUMBERS = 5;
const TEXT = ['make', 'model', 'modelFamily', 'condition', 'state', 'saleChannel', 'title', 'description'] as const;
const NULL = -1;
const ABSENT = -2;

export function isPackedSales(value: unknown): value is PackedSales {
  return typeof value === 'object' && value !== null && (value as PackedSales).packed === 'training-sales-v1';
}

const num = (v: number | null) => (v === null ? NaN : v);

/** Packs sales one at a time into arrays sized for `count` (a stream need not be held whole). */
export class SalePacker {
  private readonly numbers: Float64Array;
  private readonly text: Int32Array;
  private readonly attributes: Int32Array;
  private readonly strings: string[] = [];
  private readonly stringIds = new Map<string, number>();
  private readonly attributeSets: [string, AttributeValue][][] = [];
  private readonly setIds = new Map<string, number>();
  private i = 0;

  constructor(private readonly count: number) {
    if (!Number.isInteger(count) || count < 0) throw new Error('packing sales needs their count (a stream of sales cannot tell it)');
    this.numbers = new Float64Array(count * NUMBERS);
    this.text = new Int32Array(count * TEXT.length);
    this.attributes = new Int32Array(count);
  }

  private intern(v: string | null | undefined): number {
    if (v === undefined) return ABSENT;
    if (v === null) return NULL;
    let id = this.stringIds.get(v);
    if (id === undefined) this.stringIds.set(v, (id = this.strings.push(v) - 1));
    return id;
  }

  add(s: TrainingSale): void {
    const i = this.i;
    if (i >= this.count) throw new Error(`more than the ${this.count} sales announced`);
    const n = i * NUMBERS;
    this.numbers[n] = num(s.categoryId);
    this.numbers[n + 1] = num(s.year);
    this.numbers[n + 2] = num(s.hours);
    this.numbers[n + 3] = s.soldAt.getTime();
    this.numbers[n + 4] = s.price;
    TEXT.forEach((field, f) => (this.text[i * TEXT.length + f] = this.intern(s[field])));
    const entries = Object.entries(s.attributes);
    const key = entries.map(([k, v]) => `${k}\u0000${v === undefined ? 'u' : v === null ? 'n' : typeof v === 'number' ? `d${v}` : `s${v}`}`).join('\u0001');
    let set = this.setIds.get(key);
    if (set === undefined) this.setIds.set(key, (set = this.attributeSets.push(entries) - 1));
    this.attributes[i] = set;
    this.i++;
  }

  finish(): PackedSales {
    if (this.i !== this.count) throw new Error(`${this.i} sales, not the ${this.count} announced`);
    const { count, numbers, text, attributes, strings, attributeSets } = this;
    return { packed: 'training-sales-v1', count, numbers, text, attributes, strings, attributeSets };
  }
}

/** Packs sales; from any iterable (a stream of `count` sales need not be held whole). */
export function packSales(sales: Iterable<TrainingSale>, count = Array.isArray(sales) ? sales.length : NaN): PackedSales {
  const packer = new SalePacker(count);
  for (const s of sales) packer.add(s);
  return packer.finish();
}

/** The buffers to transfer with a packed history (they are unusable in the sender afterwards). */
export function packedTransferList(p: PackedSales): ArrayBuffer[] {
  return [p.numbers.buffer as ArrayBuffer, p.text.buffer as ArrayBuffer, p.attributes.buffer as ArrayBuffer];
}

export function unpackSales(p: PackedSales): TrainingSale[] {
  const sets = p.attributeSets.map((entries) => Object.fromEntries(entries) as Attributes);
  const str = (id: number) => (id >= 0 ? p.strings[id]! : null);
  const nullable = (v: number) => (Number.isNaN(v) ? null : v);
  const out: TrainingSale[] = new Array(p.count);
  for (let i = 0; i < p.count; i++) {
    const n = i * NUMBERS;
    const t = i * TEXT.length;
    const sale: TrainingSale = {
      categoryId: nullable(p.numbers[n]!),
      make: str(p.text[t]!),
      model: str(p.text[t + 1]!),
      modelFamily: str(p.text[t + 2]!),
      year: nullable(p.numbers[n + 1]!),
      hours: nullable(p.numbers[n + 2]!),
      condition: str(p.text[t + 3]!),
      state: str(p.text[t + 4]!),
      saleChannel: str(p.text[t + 5]!),
      soldAt: new Date(p.numbers[n + 3]!),
      price: p.numbers[n + 4]!,
      attributes: sets[p.attributes[i]!]!,
    };
    if (p.text[t + 6] !== ABSENT) sale.title = str(p.text[t + 6]!);
    if (p.text[t + 7] !== ABSENT) sale.description = str(p.text[t + 7]!);
    out[i] = sale;
  }
  return out;
}
