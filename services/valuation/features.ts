/**
 * Feature engineering for the fair-value model. One input shape serves sales history (imported
 * Fast Iron records, crawled sold results) and listings being scored, so the model sees the same
 * features at training and at scoring time.
 */
import type { FeatureMatrix, FeatureSpec } from './gbdt.js';
import { saleMarket } from './market.js';

export type ValuationInput = {
  categoryId: number | null;
  make: string | null;
  /** Full model designation, e.g. `950FII`. */
  model: string | null;
  /** The model family, e.g. `950`. */
  modelFamily: string | null;
  year: number | null;
  hours: number | null;
  condition: string | null;
  /** USPS code. */
  state: string | null;
  saleChannel: string | null;
  /** When it sold (history) or the valuation date (listings). */
  soldAt: Date;
  /** Source-specific extras: Fast Iron option columns, ModelID, datasource, auctioneerID; `source`, `machine_kind`, `odometer`, `unused`… */
  attributes: Record<string, string | number | null | undefined>;
  /** The lot's title (plain text, bounded): sizes and ratings are read from it. */
  title?: string | null;
  /** The start of the lot's description (plain text): online lots' nearest sold lots are found by it and the title. */
  description?: string | null;
};

export type TrainingSale = ValuationInput & { price: number };

/** `950 F-II` and `950FII` are the same model. */
export function normaliseModel(value: string | null | undefined): string | null {
  if (!value) return null;
  const v = value.toUpperCase().replace(/[^A-Z0-9]/g, '');
  return v.length ? v : null;
}

function normaliseText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const v = String(value).trim().toLowerCase();
  return v.length && v !== 'none or unspecified' && v !== 'unspecified' ? v : null;
}

/** `Wheel Loader - 150.0 to 175.0 Horsepower` → {low 150, high 175, unit 'horsepower'}. */
export function parseClassRange(desc: string | null | undefined): { low: number; high: number; unit: string } | null {
  if (!desc) return null;
  const m = /([\d.]+)\s*(?:to\s*([\d.]+))?\s*\+?\s*([A-Za-z][A-Za-z .]*)$/.exec(desc.trim());
  if (!m) return null;
  const low = Number(m[1]);
  const high = m[2] ? Number(m[2]) : low;
  if (!Number.isFinite(low) || !Number.isFinite(high)) return null;
  return { low, high, unit: m[3]!.trim().toLowerCase() };
}

/** Option and descriptive columns used as categorical features when a record carries them. */
export const ATTRIBUTE_FEATURES = [
  'datasource', 'auctioneerID', 'fiSecondaryDesc', 'fiModelSeries', 'fiModelDescriptor', 'ProductSize',
  'fiProductClassDesc', 'UsageBand', 'Drive_System', 'Enclosure', 'Forks', 'Pad_Type', 'Ride_Control', 'Stick',
  'Transmission', 'Turbocharged', 'Blade_Extension', 'Blade_Width', 'Enclosure_Type', 'Engine_Horsepower',
  'Hydraulics', 'Pushblock', 'Ripper', 'Scarifier', 'Tip_Control', 'Tire_Size', 'Coupler', 'Coupler_System',
  'Grouser_Tracks', 'Hydraulics_Flow', 'Track_Type', 'Undercarriage_Pad_Width', 'Stick_Length', 'Thumb',
  'Pattern_Changer', 'Grouser_Type', 'Backhoe_Mounting', 'Blade_Type', 'Travel_Controls', 'Differential_Type',
  'Steering_Controls',
] as const;

const PRODUCT_SIZE_RANK: Record<string, number> = { mini: 1, compact: 2, small: 3, medium: 4, 'large / medium': 5, large: 6 };

type Extract = (r: ValuationInput) => number | string | null;

const YEAR_MS = 365.25 * 24 * 3600 * 1000;
const saleYears = (d: Date) => d.getUTCFullYear() + d.getUTCMonth() / 12 + (d.getUTCDate() - 1) / 365;

/** Every feature: its kind and how it is read from an input. */
const FEATURES: { spec: FeatureSpec; read: Extract }[] = [
  { spec: { name: 'category', kind: 'categorical' }, read: (r) => (r.categoryId === null ? null : String(r.categoryId)) },
  { spec: { name: 'make', kind: 'categorical' }, read: (r) => normaliseText(r.make) },
  // The model, its family and Fast Iron's ModelID enter as target encodings (target-encoding.ts):
  // as raw categories (thousands of values on 16k sales) their splits overfit, 0.286 → 0.270 RMSLE.
  // Monotone: all else equal, a newer machine is never worth less, more hours never worth more.
  { spec: { name: 'year', kind: 'numeric', monotone: 1 }, read: (r) => r.year },
  {
    spec: { name: 'age', kind: 'numeric', monotone: -1 },
    read: (r) => (r.year === null ? null : saleYears(r.soldAt) - r.year),
  },
  { spec: { name: 'hours', kind: 'numeric', monotone: -1 }, read: (r) => r.hours },
  {
    spec: { name: 'hours_per_year', kind: 'numeric' },
    read: (r) => (r.hours === null || r.year === null ? null : r.hours / Math.max(0.5, saleYears(r.soldAt) - r.year)),
  },
  { spec: { name: 'condition', kind: 'categorical' }, read: (r) => normaliseText(r.condition) },
  { spec: { name: 'state', kind: 'categorical' }, read: (r) => normaliseText(r.state) },
  { spec: { name: 'sale_channel', kind: 'categorical' }, read: (r) => normaliseText(r.saleChannel) },
  { spec: { name: 'sale_time', kind: 'numeric' }, read: (r) => r.soldAt.getTime() / YEAR_MS },
  { spec: { name: 'sale_month', kind: 'numeric' }, read: (r) => r.soldAt.getUTCMonth() + 1 },
  { spec: { name: 'sale_weekday', kind: 'numeric' }, read: (r) => r.soldAt.getUTCDay() },
  {
    spec: { name: 'class_low', kind: 'numeric' },
    read: (r) => parseClassRange(r.attributes.fiProductClassDesc as string | undefined)?.low ?? null,
  },
  {
    spec: { name: 'class_high', kind: 'numeric' },
    read: (r) => parseClassRange(r.attributes.fiProductClassDesc as string | undefined)?.high ?? null,
  },
  {
    spec: { name: 'product_size_rank', kind: 'numeric' },
    read: (r) => PRODUCT_SIZE_RANK[normaliseText(r.attributes.ProductSize) ?? ''] ?? null,
  },
  ...ATTRIBUTE_FEATURES.map((name) => ({
    spec: { name: `attr_${name}`, kind: 'categorical' as const },
    read: (r: ValuationInput) => normaliseText(r.attributes[name]),
  })),
];

export const FEATURE_SPECS: FeatureSpec[] = FEATURES.map((f) => f.spec);

/** `20 KW`, `5-Ton`, `3,600 lb`, `53’`: a size read from a title, in its unit, or null. */
export function titleSize(title: string | null | undefined, unit: 'ton' | 'lb' | 'kw' | 'ft' | 'kva'): number | null {
  if (!title) return null;
  const patterns = {
    ton: /(\d+(?:\.\d+)?)\s*-?\s*tons?\b/i,
    lb: /(\d{1,3}(?:,\d{3})+|\d+)\s*-?\s*(?:lbs?|pounds?)\b/i,
    kw: /(\d+(?:\.\d+)?)\s*-?\s*kw\b/i,
    ft: /(\d+(?:\.\d+)?)\s*(?:'|’|ft\b|foot\b|feet\b)/i,
    kva: /(\d+(?:\.\d+)?)\s*-?\s*kva\b/i,
  } as const;
  const m = patterns[unit].exec(title);
  if (!m) return null;
  const v = Number(m[1]!.replace(/,/g, ''));
  return Number.isFinite(v) && v > 0 && v < 1_000_000 ? v : null;
}

/**
 * Features added for issue #18 (any source, any type). They come after the target-encoded columns
 * so models stored before them keep their column positions.
 */
const LATER_FEATURES: { spec: FeatureSpec; read: Extract }[] = [
  // Fast Iron records carry its product group; crawled and imported lots name their source.
  { spec: { name: 'source', kind: 'categorical' }, read: (r) => normaliseText(r.attributes.source) ?? (r.attributes.ProductGroup ? 'fastiron' : null) },
  { spec: { name: 'machine_kind', kind: 'categorical' }, read: (r) => normaliseText(r.attributes.machine_kind) },
  { spec: { name: 'unused', kind: 'categorical' }, read: (r) => normaliseText(r.attributes.unused) },
  { spec: { name: 'odometer', kind: 'numeric', monotone: -1 }, read: (r) => (typeof r.attributes.odometer === 'number' ? r.attributes.odometer : null) },
  { spec: { name: 'title_tons', kind: 'numeric' }, read: (r) => titleSize(r.title, 'ton') },
  { spec: { name: 'title_lb', kind: 'numeric' }, read: (r) => titleSize(r.title, 'lb') },
  { spec: { name: 'title_kw', kind: 'numeric' }, read: (r) => titleSize(r.title, 'kw') },
  { spec: { name: 'title_ft', kind: 'numeric' }, read: (r) => titleSize(r.title, 'ft') },
];

export const LATER_FEATURE_SPECS: FeatureSpec[] = LATER_FEATURES.map((f) => f.spec);

/** A size the conversion stated (`attributes[name]`, a positive number), else null. */
const statedSize = (r: ValuationInput, name: string): number | null => {
  const v = Number(r.attributes[name]);
  return Number.isFinite(v) && v > 0 ? v : null;
};

/**
 * Features added for issue 37 (one valuation over every history), after the title-word columns so
 * models stored before them keep their column positions: the market the sale or listing belongs to
 * (market.ts: dealer auction or online surplus), and the size the name states where the type is
 * priced by it — a generator's kVA, a crane's lifting tons, a mini excavator's tonnage class (the
 * Ritchie Bros. conversion's `kva`, `tons`, `tons_class`; kVA else read from the title).
 */
const MARKET_FEATURES: { spec: FeatureSpec; read: Extract }[] = [
  { spec: { name: 'market', kind: 'categorical' }, read: (r) => saleMarket(r) },
  { spec: { name: 'size_kva', kind: 'numeric' }, read: (r) => statedSize(r, 'kva') ?? titleSize(r.title, 'kva') },
  { spec: { name: 'size_tons', kind: 'numeric' }, read: (r) => statedSize(r, 'tons') },
  { spec: { name: 'tons_class', kind: 'numeric' }, read: (r) => statedSize(r, 'tons_class') },
];

export const MARKET_FEATURE_SPECS: FeatureSpec[] = MARKET_FEATURES.map((f) => f.spec);

/** String values of each categorical feature → integer codes; fixed at training, stored with the model. */
export type Vocabulary = Record<string, string[]>;

export function buildVocabulary(records: ValuationInput[]): Vocabulary {
  const vocab: Vocabulary = {};
  [...FEATURES, ...LATER_FEATURES, ...MARKET_FEATURES].forEach(({ spec, read }) => {
    if (spec.kind !== 'categorical') return;
    const seen = new Set<string>();
    for (const r of records) {
      const v = read(r);
      if (v !== null) seen.add(String(v));
    }
    vocab[spec.name] = [...seen].sort();
  });
  return vocab;
}

/** Each categorical feature's value → code lookups, built once per vocabulary (a model's lifetime). */
const vocabularyIndexes = new WeakMap<Vocabulary, Map<string, Map<string, number>>>();

function vocabularyIndex(vocab: Vocabulary, name: string): Map<string, number> {
  let byName = vocabularyIndexes.get(vocab);
  if (!byName) vocabularyIndexes.set(vocab, (byName = new Map()));
  let index = byName.get(name);
  if (!index) byName.set(name, (index = new Map((vocab[name] ?? []).map((v, i) => [v, i]))));
  return index;
}

/** Encodes inputs as a column matrix; unseen categories and absent values are NaN (missing). */
export function encode(records: ValuationInput[], vocab: Vocabulary): FeatureMatrix {
  return encodeWith(FEATURES, records, vocab);
}

/** The later features' columns (after the target encodings in the model's matrix). */
export function encodeLater(records: ValuationInput[], vocab: Vocabulary): FeatureMatrix {
  return encodeWith(LATER_FEATURES, records, vocab);
}

/** The market features' columns (after the title-word columns in the model's matrix). */
export function encodeMarket(records: ValuationInput[], vocab: Vocabulary): FeatureMatrix {
  return encodeWith(MARKET_FEATURES, records, vocab);
}

function encodeWith(features: { spec: FeatureSpec; read: Extract }[], records: ValuationInput[], vocab: Vocabulary): FeatureMatrix {
  const columns = features.map(({ spec, read }) => {
    const col = new Float64Array(records.length);
    const index = spec.kind === 'categorical' ? vocabularyIndex(vocab, spec.name) : null;
    for (let i = 0; i < records.length; i++) {
      const v = read(records[i]!);
      if (v === null || v === undefined) col[i] = NaN;
      else if (index) col[i] = index.get(String(v)) ?? NaN;
      else col[i] = typeof v === 'number' && Number.isFinite(v) ? v : NaN;
    }
    return col;
  });
  return { columns, rows: records.length };
}
