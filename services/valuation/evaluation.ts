/** Accuracy figures for a fair-value model on sales it did not train on, and the baseline to beat. */
import { normaliseModel, type TrainingSale } from './features.js';
import type { Valuation } from './fair-value-model.js';

export type EvaluationFigures = {
  rows: number;
  /** Root mean squared error of log(1 + price): the Kaggle metric. */
  rmsle: number;
  /** Median of |predicted − true| / true. */
  medianApe: number;
  /** Share of true prices inside the predicted 10–90% range. */
  coverage: number;
  /** Median of high / low − 1: how wide the range is. */
  medianRangeWidth: number;
};

function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function evaluate(truth: number[], valuations: Pick<Valuation, 'fairValue' | 'low' | 'high'>[]): EvaluationFigures {
  if (truth.length !== valuations.length) throw new Error('one valuation per true price');
  let se = 0;
  let inside = 0;
  const ape: number[] = [];
  const widths: number[] = [];
  truth.forEach((price, i) => {
    const v = valuations[i]!;
    se += (Math.log1p(v.fairValue) - Math.log1p(price)) ** 2;
    ape.push(Math.abs(v.fairValue - price) / price);
    if (price >= v.low && price <= v.high) inside++;
    widths.push(v.high / Math.max(1, v.low) - 1);
  });
  const n = truth.length;
  return { rows: n, rmsle: Math.sqrt(se / n), medianApe: median(ape), coverage: inside / n, medianRangeWidth: median(widths) };
}

/**
 * The baseline: each model's median training price (by full model designation, then by family,
 * then by equipment type, then overall), with a 10–90% range from that model's prices.
 */
export function modelMedianBaseline(train: TrainingSale[], test: TrainingSale[]): Pick<Valuation, 'fairValue' | 'low' | 'high'>[] {
  const groups = new Map<string, number[]>();
  const add = (key: string, price: number) => {
    let list = groups.get(key);
    if (!list) groups.set(key, (list = []));
    list.push(price);
  };
  const keys = (s: TrainingSale) => [
    `m|${s.categoryId}|${normaliseModel(s.model)}`,
    `f|${s.categoryId}|${normaliseModel(s.modelFamily)}`,
    `c|${s.categoryId}`,
    'all',
  ];
  for (const s of train) for (const k of keys(s)) add(k, s.price);
  const summary = new Map<string, { fairValue: number; low: number; high: number }>();
  for (const [k, prices] of groups) {
    const sorted = [...prices].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    summary.set(k, { fairValue: median(sorted), low: at(0.1), high: at(0.9) });
  }
  return test.map((s) => {
    for (const k of keys(s)) {
      const found = summary.get(k);
      if (found && (k === 'all' || (groups.get(k)?.length ?? 0) >= 1)) return found;
    }
    return { fairValue: NaN, low: NaN, high: NaN };
  });
}

export type ProtocolFigures = {
  rows: number;
  rmsle: number;
  median_ape: number;
  range_coverage: number;
  /** Shares of the valued rows whose true price fell below the low end / above the high end. */
  below_range: number;
  above_range: number;
  valued_share: number;
  baselines: { global_median: number; per_type_median: number };
  per_type: Record<string, { rows: number; rmsle: number; valued_share: number; median_log_error: number }>;
};

export type ProtocolRow = { type: string; truth: number; valuation: Pick<Valuation, 'fairValue' | 'low' | 'high'> | null; globalMedian: number; typeMedian: number };

const rmsleOf = (pairs: [number, number][]) => Math.sqrt(pairs.reduce((a, [p, t]) => a + (Math.log1p(p) - Math.log1p(t)) ** 2, 0) / Math.max(1, pairs.length));

/**
 * The figures of one evaluation protocol. Accuracy is measured on the rows the model values (a
 * `null` valuation is an abstention, counted in `valued_share`); the baselines on the same rows,
 * so the two compare like for like. Median log error is log(predicted) − log(true): below 0, the
 * type is undervalued.
 */
export function protocolFigures(rows: ProtocolRow[]): ProtocolFigures {
  const valued = rows.filter((r) => r.valuation !== null);
  const pairs = valued.map((r): [number, number] => [r.valuation!.fairValue, r.truth]);
  const below = valued.filter((r) => r.truth < r.valuation!.low).length;
  const above = valued.filter((r) => r.truth > r.valuation!.high).length;
  const n = Math.max(1, valued.length);
  const perType: ProtocolFigures['per_type'] = {};
  for (const type of [...new Set(rows.map((r) => r.type))].sort()) {
    const all = rows.filter((r) => r.type === type);
    const v = all.filter((r) => r.valuation !== null);
    perType[type] = {
      rows: all.length,
      rmsle: rmsleOf(v.map((r) => [r.valuation!.fairValue, r.truth])),
      valued_share: v.length / all.length,
      median_log_error: median(v.map((r) => Math.log1p(r.valuation!.fairValue) - Math.log1p(r.truth))),
    };
  }
  return {
    rows: rows.length,
    rmsle: rmsleOf(pairs),
    median_ape: median(pairs.map(([p, t]) => Math.abs(p - t) / t)),
    range_coverage: (valued.length - below - above) / n,
    below_range: below / n,
    above_range: above / n,
    valued_share: valued.length / Math.max(1, rows.length),
    baselines: {
      global_median: rmsleOf(valued.map((r) => [r.globalMedian, r.truth])),
      per_type_median: rmsleOf(valued.map((r) => [r.typeMedian, r.truth])),
    },
    per_type: perType,
  };
}
