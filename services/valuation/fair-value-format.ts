/**
 * The fair-value model's stored form and what training and prediction both read from it: the
 * feature matrix (plain, target-encoded, later and title-word columns), the support buckets the
 * range is read per, typical hours, the nearest-lots blend and which market a sale comes from.
 */
import { encode as encodeAll, encodeLater, encodeMarket, FEATURE_SPECS, LATER_FEATURE_SPECS, MARKET_FEATURE_SPECS, normaliseModel, type TrainingSale, type ValuationInput, type Vocabulary } from './features.js';
import type { GbdtModel, FeatureMatrix, SerializedGbdt } from './gbdt.js';
import { titleWordColumns, TITLE_WORD_SPECS, type TitleWords } from './title-words.js';
import type { LotNeighbours } from './lot-neighbours.js';
import type { PriceIndex } from './price-index.js';
import type { ScaleModel } from './market-distribution.js';
import { DEALER_AUCTION, saleMarket } from './market.js';
import { TARGET_FEATURE_SPECS, targetColumns, type TargetEncoding } from './target-encoding.js';

export const ALL_SPECS = [...FEATURE_SPECS, ...TARGET_FEATURE_SPECS, ...LATER_FEATURE_SPECS, ...TITLE_WORD_SPECS, ...MARKET_FEATURE_SPECS];

/**
 * The model's input matrix: the plain features, the target-encoded ones, then the later ones. A
 * model stored before the later features has fewer columns: it reads only its own.
 */
export function encodeFull(
  rows: ValuationInput[],
  vocab: Vocabulary,
  te: TargetEncoding,
  outOfFold?: TrainingSale[],
  hoursPerYear?: Record<string, number>,
  tw?: TitleWords,
): FeatureMatrix {
  const plain = hoursPerYear ? withImputedHours(rows, hoursPerYear) : rows;
  const m = encodeAll(plain, vocab);
  return {
    rows: m.rows,
    columns: [...m.columns, ...targetColumns(rows, te, outOfFold), ...encodeLater(plain, vocab).columns, ...titleWordColumns(rows, tw, outOfFold), ...encodeMarket(plain, vocab).columns],
  };
}


/** How much sales history a machine's model has: the range widens when it has little. */
export const SUPPORT_BUCKETS = [0, 1, 5, 20] as const;
export function supportBucket(count: number): number {
  let bucket = 0;
  SUPPORT_BUCKETS.forEach((edge, i) => {
    if (count >= edge) bucket = i;
  });
  return bucket;
}

const YEAR_MS = 365.25 * 24 * 3600 * 1000;
const ageAtSale = (r: ValuationInput) => (r.year === null ? null : r.soldAt.getTime() / YEAR_MS + 1970 - r.year);
const hoursKeys = (r: ValuationInput) => {
  const model = normaliseModel(r.model);
  const family = normaliseModel(r.modelFamily);
  return [model && `${r.categoryId}|${model}`, family && `${r.categoryId}|F:${family}`, `${r.categoryId}`].filter((k): k is string => !!k);
};
const MIN_HOURS_SAMPLES = 3;

/** Median hours per year of age, per model, family and type, over sales that report hours and year. */
export function typicalHoursPerYear(rows: ValuationInput[]): Record<string, number> {
  const rates = new Map<string, number[]>();
  for (const r of rows) {
    const age = ageAtSale(r);
    if (r.hours === null || age === null) continue;
    const rate = r.hours / Math.max(0.5, age);
    for (const key of hoursKeys(r)) {
      let list = rates.get(key);
      if (!list) rates.set(key, (list = []));
      list.push(rate);
    }
  }
  const out: Record<string, number> = {};
  for (const [key, list] of rates) {
    if (list.length < MIN_HOURS_SAMPLES) continue;
    list.sort((a, b) => a - b);
    out[key] = list[list.length >> 1]!;
  }
  return out;
}

/**
 * Sales without hours get their model's (else family's, else type's) typical hours for their age.
 * Left missing, the trees learn where missing hours go from the sales that lacked them in the past
 * (older records of one auction house), which says nothing about a listing, or a later sale, that
 * does not state them.
 */
function withImputedHours(rows: ValuationInput[], hoursPerYear: Record<string, number>): ValuationInput[] {
  return rows.map((r) => {
    const age = ageAtSale(r);
    if (r.hours !== null || age === null) return r;
    const rate = hoursKeys(r).map((k) => hoursPerYear[k]).find((v) => v !== undefined);
    return rate === undefined ? r : { ...r, hours: Math.round(rate * Math.max(0.5, age)) };
  });
}

/**
 * A range in log residuals, and the residuals' quantiles at KNOT_PROBS (market-distribution.ts):
 * the predictive distribution the deal score reads (absent in models stored before it).
 */
export type RangeQuantiles = { low: number; high: number; samples: number; knots?: number[] };

export type SerializedFairValueModel = {
  format: 'fair-value-v1';
  vocabulary: Vocabulary;
  targetEncoding: TargetEncoding;
  gbdt: SerializedGbdt;
  /** Further boosted models (other seeds: their own row and column samples); the fair value averages all. */
  extraGbdts?: SerializedGbdt[];
  /** log-residual quantiles per support bucket (index) and overall. */
  ranges: {
    overall: RangeQuantiles;
    byBucket: (RangeQuantiles | null)[];
    bySource?: Record<string, RangeQuantiles>;
    /**
     * Per `source|category id`, how wide that type's held-out errors spread against its source's
     * (ratio of interquartile ranges): the deal score's distribution is its source's, scaled by it.
     */
    typeScale?: Record<string, number>;
    /**
     * Per `source|category id`, the deal score's distribution for that type where it differs from
     * its source's: a source with few held-out sales floors each type's by that type's own spread
     * around its median price (market-distribution.ts, baselineKnots).
     */
    typeKnots?: Record<string, number[]>;
    /**
     * Per source without held-out sales of its own (`source|category id`, and `source` for all its
     * types pooled): its sold lots' spread around their type's median, the least width its borrowed
     * distribution is given (market-distribution.ts, baselineKnots).
     */
    sourceFloor?: Record<string, number[]>;
    /**
     * Per source with enough held-out sales (FEW_HELD_OUT), how a lot's spread departs from its
     * source's by what is known of it at listing time (market-distribution.ts, ScaleModel): the
     * lower tail's knots (and the type scales) are read from the held-out errors divided by their
     * lot's scale, and a listing's lower-tail knots are multiplied by its own. Absent in models
     * stored before it: every lot its source's distribution, as before.
     */
    lotScale?: Record<string, ScaleModel>;
  };
  /** Title words' mean log prices (title-words.ts). */
  titleWords?: TitleWords;
  /** Training sales per type (category id): a type with too few is not valued. */
  typeSales?: Record<string, number>;
  /** Sales per (category, normalised model) in training, for the support bucket of a new input. */
  modelSupport: Record<string, number>;
  coverage: number;
  trainedRows: number;
  /**
   * Per model (`category|MODEL`) and family (`category|F:FAMILY`), the most common value of each
   * attribute in its sales: what a listing that carries no such details most likely has.
   */
  typicalAttributes?: Record<string, Record<string, string>>;
  /** Typical hours per year of age (per `category|MODEL`, `category|F:FAMILY`, `category`), to fill in missing hours. */
  typicalHoursPerYear?: Record<string, number>;
  /** The latest sale trained on (ISO): the model knows the market up to here. */
  latestSaleAt?: string;
  holdout: { rows: number; rmsle: number; trees: number; bySource?: Record<string, { rows: number; rmsle: number; medianLogError: number }> };
  /** Added to every log prediction: a share of the holdout's median error (drift the trees cannot extrapolate). */
  logOffset?: number;
  /** How prices moved over time: training prices are brought to the latest sale's dollars with it. */
  priceIndex?: PriceIndex;
  /** Online lots' nearest sold lots by title and description (absent in older models: trees alone). */
  lotNeighbours?: LotNeighbours;
  /** The share of an online lot's log value taken from its nearest sold lots (`lotNeighbours`). */
  neighbourBlend?: number;
};

/**
 * `knots`: the predictive distribution of log(1 + market value) − logPrice (market-distribution.ts);
 * `ownMarket`: whether it was measured on the listing's own source (else borrowed from all sales).
 */
export type Valuation = { fairValue: number; low: number; high: number; logPrice: number; support: number; knots: number[]; ownMarket: boolean };

export const supportKey = (r: ValuationInput) => `${r.categoryId ?? ''}|${normaliseModel(r.model) ?? normaliseModel(r.modelFamily) ?? ''}`;

export function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function averagePrediction(members: GbdtModel[], m: FeatureMatrix): Float64Array {
  const sum = new Float64Array(m.rows);
  for (const member of members) {
    const p = member.predict(m);
    for (let i = 0; i < m.rows; i++) sum[i] = sum[i]! + p[i]!;
  }
  for (let i = 0; i < m.rows; i++) sum[i] = sum[i]! / members.length;
  return sum;
}

/**
 * The share of an online lot's log value its nearest sold lots give (the trees give the rest).
 * Chosen on the two West folds of the training period: trees alone 1.067 / 1.404, nearest lots
 * alone 1.146 / 1.415, half each 1.054 / 1.347 (docs/valuation.md).
 */
export const NEIGHBOUR_BLEND = 0.5;

/**
 * The share of a lot's log value its nearest sold lots give: `share` for an online surplus lot,
 * none for a dealer auction's (Fast Iron, Ritchie Bros.): their titles are year, make, model and
 * type, so the nearest titles are the same model at any age, and the trees know the machine.
 */
export function neighbourShare(r: ValuationInput, share = NEIGHBOUR_BLEND): number {
  return saleMarket(r) === DEALER_AUCTION ? 0 : share;
}

export function blendNeighbours(treeLog: number, neighbourLog: number, share = NEIGHBOUR_BLEND): number {
  return Number.isFinite(neighbourLog) ? (1 - share) * treeLog + share * neighbourLog : treeLog;
}

/** Fewer training sales of a type than this and its listings are not valued ("not enough sales of this type yet"). */
export const MIN_TYPE_SALES = 20;

/** Which market a sale comes from: its source, Fast Iron for its records (which carry no source). */
export function saleSource(r: ValuationInput): string {
  const source = r.attributes.source;
  return typeof source === 'string' && source ? source : 'fastiron';
}
