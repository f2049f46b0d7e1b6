/**
 * The predictive distribution of a machine's market value around its fair value: how far, in log
 * price, later sales landed from the fair value shown for them. It is read from the errors of the
 * fair value as the scorer writes it (the model's value resting on its comparables) on the latest
 * sales the model did not train on (the time holdout, per source; before 2026-11-27 the trees' own
 * errors there: services/scorer/final-value-calibration.ts), at fixed probabilities ("knots"); between knots it is interpolated on the normal-score scale, beyond the
 * outer knots extended along the outer segments' slope. The deal score asks it one question: how
 * likely is the market value above what the buyer pays?
 *
 * Where a source's window is large, its lower tail is a spread per lot (ScaleModel): wider for a
 * lot whose model the model has seen few sales of, or listed without a year or hours; sharper for
 * a well-known one. A tail knot is read from the order statistics only where enough residuals lie
 * beyond it (TAIL_MIN_LOTS), else extended from the knots that are (extendTails).
 */

/** The probabilities the residual quantiles are stored at: dense in the tails, where the claims live. */
export const KNOT_PROBS = [0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.925, 0.95, 0.97, 0.98, 0.99, 0.995] as const;

/**
 * Below this many held-out sales a source's calibration window is small: its distribution is
 * floored by the spread of its own lots around their type's median (atLeastAsWide). Chosen on the
 * training-period fold (docs/valuation.md, "Deal flags"): 49 West lots held out before April 2025
 * spread ±0.1 log in their middle half, and the next quarter's lots, valued no better than by the
 * type's median, were called good 1 time in 9 at their own price.
 */
export const FEW_HELD_OUT = 200;

/** The standard normal's distribution function (Abramowitz–Stegun 7.1.26 via erf; |error| < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

/** The standard normal's quantile function (Acklam's rational approximation; relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) return p <= 0 ? -Infinity : Infinity;
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

const KNOT_Z = KNOT_PROBS.map(normalQuantile);

/** The outer slopes: from the outer knot to the third from the end, steadier than the last gap alone. */
const TAIL_SPAN = 3;

function quantileOf(sorted: number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/**
 * A tail knot is read from the order statistics only where at least this many residuals lie
 * beyond it (p × n for a lower knot at probability p); further out it is extended from the
 * outermost knot that is (extendTails). Below it a knot is one or two lots, and cannot lie beyond
 * the lowest lot seen: from 60 draws of a normal the 1% point read so sits 0.25 log too narrow on
 * average (tests/unit/valuation-lot-scale.test.ts); the demo's floor, read from about 75 sold
 * lots, moved its 1% point from −1.24 to −1.72 log with three more lots. Chosen on the West folds
 * of the training period (docs/valuation.md, "Deal flags"): at 3 the Jan–Mar 2025 fold's false
 * Excellent at market price fell from 1.6% to 0% and the Apr–Jun fold found 16.4% of quarter-price
 * lots (11.4% reading every knot from the order statistics), its k = 1 claims within a lot; at 5
 * the Apr–Jun fold called 3.6% Excellent at market price. Fast Iron's windows (1,600+ held-out
 * sales: 8 or more beyond the 0.5% knot) are read as before.
 */
export const TAIL_MIN_LOTS = 3;

/**
 * The knots with those too far out for `n` residuals to tell (fewer than `minLots` beyond them)
 * extended from the outermost estimable knot along the normal-score slope of the estimable tail:
 * from the median (0) through that knot, so a 1% point read from 60 lots is the 5% point's
 * distance times Φ⁻¹(0.01) / Φ⁻¹(0.05), not the lowest lot or two.
 */
export function extendTails(knots: number[], n: number, minLots = TAIL_MIN_LOTS): number[] {
  const out = [...knots];
  const last = KNOT_PROBS.length - 1;
  let lo = 0;
  while (lo < last && KNOT_PROBS[lo]! * n < minLots) lo++;
  let hi = last;
  while (hi > 0 && (1 - KNOT_PROBS[hi]!) * n < minLots) hi--;
  if (lo > 0 && KNOT_PROBS[lo]! < 0.5) for (let i = 0; i < lo; i++) out[i] = (knots[lo]! * KNOT_Z[i]!) / KNOT_Z[lo]!;
  if (hi < last && KNOT_PROBS[hi]! > 0.5) for (let i = hi + 1; i <= last; i++) out[i] = (knots[hi]! * KNOT_Z[i]!) / KNOT_Z[hi]!;
  return out;
}

/**
 * The knots of a set of log residuals (log true − log predicted), at KNOT_PROBS, centred on their
 * median; made strictly increasing so the distribution can be inverted. null with fewer than 20
 * residuals. Centred: the residuals come from the holdout fit, which never saw the latest sales'
 * price level (on Fast Iron's 2011–12 holdout it under-valued by a median 0.28 log), while the
 * final model is refitted on them; the fair value is the distribution's median, its spread is
 * what the holdout tells. A tail knot with fewer than TAIL_MIN_LOTS residuals beyond it is
 * extended from the knots that have them (extendTails).
 */
export function residualKnots(residuals: number[]): number[] | null {
  if (residuals.length < 20) return null;
  const sorted = [...residuals].sort((a, b) => a - b);
  const median = quantileOf(sorted, 0.5);
  const knots = extendTails(
    KNOT_PROBS.map((p) => quantileOf(sorted, p) - median),
    sorted.length,
  );
  for (let i = 1; i < knots.length; i++) if (knots[i]! <= knots[i - 1]!) knots[i] = knots[i - 1]! + 1e-4;
  return knots.map((v) => Math.round(v * 1e4) / 1e4);
}

/**
 * What the per-lot spread reads of a lot, all known when it is listed: how many sales of its
 * model the model was trained on (log(1 + n)), and whether its year and its hours are missing.
 * On Fast Iron's held-out sales before 2012 the middle half of errors spread 0.41 log for the
 * third of lots with the fewest sales of their model and 0.25 for the third with the most, 0.42
 * without a year and 0.28 with one (docs/valuation.md, "Deal flags").
 */
export const SCALE_FEATURES = ['log_model_sales', 'no_year', 'no_hours'] as const;

export function scaleFeatures(lot: { year: number | null; hours: number | null }, modelSales: number): number[] {
  return [Math.log1p(Math.max(0, modelSales)), lot.year === null ? 1 : 0, lot.hours === null ? 1 : 0];
}

/**
 * A lot's spread against its source's: exp(coef · (x − mean)), so the held-out sales' scales
 * have a geometric mean of 1 and the knots read from residual / scale keep their units.
 */
export type ScaleModel = {
  features: string[];
  mean: number[];
  coef: number[];
  /**
   * The training sales the model sales were counted in when it was fitted (the holdout fit's): a
   * listing's count, taken from the final model's larger training set, is brought to that size
   * (× rows / trained rows), so a model with 17% more sales does not read every lot as better known.
   */
  rows?: number;
};

/** A lot's scale is kept within these bounds: no lot is claimed 2.5 times as sure, or as unsure, as its source's typical one. */
const SCALE_BOUNDS = [0.4, 2.5] as const;

/** Shrinkage of the scale's coefficients towards 0, in residuals' worth: a few dozen residuals barely move it. */
const SCALE_PRIOR_LOTS = 50;

/**
 * The scale model of a source's held-out residuals: least squares of log |residual − median| on
 * the lot's features (the log of a residual's size is its scale's log plus noise of fixed
 * distribution), ridge-shrunk by SCALE_PRIOR_LOTS. null with fewer than 20 residuals or no
 * feature that varies.
 */
export function fitScaleModel(x: number[][], residuals: number[]): ScaleModel | null {
  const n = residuals.length;
  if (n < 20 || x.length !== n) return null;
  const d = x[0]!.length;
  const median = quantileOf([...residuals].sort((a, b) => a - b), 0.5);
  // |residual| floored at 0.01 log: a sale right on the median says nothing of a scale of 0
  const y = residuals.map((r) => Math.log(Math.max(0.01, Math.abs(r - median))));
  const mean = Array.from({ length: d }, (_, j) => x.reduce((a, row) => a + row[j]!, 0) / n);
  const yMean = y.reduce((a, v) => a + v, 0) / n;
  const xtx = Array.from({ length: d }, () => new Array<number>(d).fill(0));
  const xty = new Array<number>(d).fill(0);
  x.forEach((row, i) => {
    for (let j = 0; j < d; j++) {
      const cj = row[j]! - mean[j]!;
      xty[j]! += cj * (y[i]! - yMean);
      for (let k = 0; k < d; k++) xtx[j]![k]! += cj * (row[k]! - mean[k]!);
    }
  });
  const kept = xtx.map((row, j) => row[j]! > 1e-9);
  if (!kept.some(Boolean)) return null;
  for (let j = 0; j < d; j++) xtx[j]![j]! += kept[j] ? (SCALE_PRIOR_LOTS * xtx[j]![j]!) / n : 1;
  const coef = solve(xtx, xty).map((c, j) => (kept[j] ? Math.round(c * 1e4) / 1e4 : 0));
  return { features: [...SCALE_FEATURES].slice(0, d), mean: mean.map((m) => Math.round(m * 1e4) / 1e4), coef };
}

/** Gaussian elimination with partial pivoting (a small symmetric positive definite system). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

/**
 * The knots with the lower tail (the deal claims' side: how far under its value such a lot may
 * sell) multiplied by a lot's scale; the median and upper tail as they are.
 */
export function withLowerTailScaled(knots: number[], scale: number): number[] {
  return scale === 1 ? knots : knots.map((k, i) => (KNOT_PROBS[i]! < 0.5 ? k * scale : k));
}

/** A lot's scale under a source's scale model (1 without one: a model stored before it scores as before). */
export function lotScale(model: ScaleModel | undefined, x: number[]): number {
  if (!model) return 1;
  const log = model.coef.reduce((a, c, j) => a + c * ((x[j] ?? model.mean[j]!) - model.mean[j]!), 0);
  return Math.min(SCALE_BOUNDS[1], Math.max(SCALE_BOUNDS[0], Math.exp(log)));
}

/** Each tail at least as wide as the floor's, knot by knot (both centred on 0). */
export function atLeastAsWide(knots: number[], floor: number[]): number[] {
  return knots.map((k, i) => (KNOT_PROBS[i]! < 0.5 ? Math.min(k, floor[i]!) : KNOT_PROBS[i]! > 0.5 ? Math.max(k, floor[i]!) : k));
}

/** A type needs this many lots of a source for its own baseline spread (else all its types pooled). */
export const MIN_BASELINE_LOTS = 20;

/**
 * How far a source's lots land from their type's median log price, as knots: per type with at
 * least MIN_BASELINE_LOTS lots, and pooled over all types. It is what the per-type median (the
 * baseline a valuation must beat) would claim: where the model has no measured skill over it, a
 * claim is no surer than it. 5–95% of West's excavators land within −0.2 to +0.8 log of their
 * type's median, its trailers, trucks and forklifts filed under Other within −3.0 to +2.2.
 */
export function baselineKnots(lots: { type: string; logPrice: number }[]): { byType: Record<string, number[]>; pooled: number[] | null } {
  const byType = new Map<string, number[]>();
  for (const lot of lots) {
    let list = byType.get(lot.type);
    if (!list) byType.set(lot.type, (list = []));
    list.push(lot.logPrice);
  }
  const gaps = new Map<string, number[]>();
  for (const [type, logs] of byType) {
    const median = quantileOf([...logs].sort((a, b) => a - b), 0.5);
    gaps.set(type, logs.map((l) => l - median));
  }
  const out: Record<string, number[]> = {};
  for (const [type, list] of gaps) {
    if (list.length < MIN_BASELINE_LOTS) continue;
    const knots = residualKnots(list);
    if (knots) out[type] = knots;
  }
  return { byType: out, pooled: residualKnots([...gaps.values()].flat()) };
}

/** Knots of a two-piece normal through a 10–90% range (for a model stored without knots). */
export function knotsFromRange(lowLog: number, highLog: number): number[] {
  const z90 = normalQuantile(0.9);
  return KNOT_Z.map((z) => (z < 0 ? (z / z90) * -lowLog : (z / z90) * highLog));
}

/**
 * The normal score of a log gap `d` (log price − log fair value) under the residual distribution:
 * Φ⁻¹(P(residual ≤ d)). −1.645 means 5% of such machines sell below the price, 95% above it.
 */
export function residualScore(knots: number[], d: number): number {
  const n = knots.length;
  if (d <= knots[0]!) {
    const slope = (KNOT_Z[TAIL_SPAN]! - KNOT_Z[0]!) / Math.max(1e-6, knots[TAIL_SPAN]! - knots[0]!);
    return KNOT_Z[0]! - (knots[0]! - d) * slope;
  }
  if (d >= knots[n - 1]!) {
    const slope = (KNOT_Z[n - 1]! - KNOT_Z[n - 1 - TAIL_SPAN]!) / Math.max(1e-6, knots[n - 1]! - knots[n - 1 - TAIL_SPAN]!);
    return KNOT_Z[n - 1]! + (d - knots[n - 1]!) * slope;
  }
  let i = 1;
  while (knots[i]! < d) i++;
  const t = (d - knots[i - 1]!) / (knots[i]! - knots[i - 1]!);
  return KNOT_Z[i - 1]! + t * (KNOT_Z[i]! - KNOT_Z[i - 1]!);
}

/** The log residual at normal score z (the inverse of residualScore). */
export function residualAt(knots: number[], z: number): number {
  const n = knots.length;
  if (z <= KNOT_Z[0]!) {
    const slope = (knots[TAIL_SPAN]! - knots[0]!) / (KNOT_Z[TAIL_SPAN]! - KNOT_Z[0]!);
    return knots[0]! - (KNOT_Z[0]! - z) * slope;
  }
  if (z >= KNOT_Z[n - 1]!) {
    const slope = (knots[n - 1]! - knots[n - 1 - TAIL_SPAN]!) / (KNOT_Z[n - 1]! - KNOT_Z[n - 1 - TAIL_SPAN]!);
    return knots[n - 1]! + (z - KNOT_Z[n - 1]!) * slope;
  }
  let i = 1;
  while (KNOT_Z[i]! < z) i++;
  const t = (z - KNOT_Z[i - 1]!) / (KNOT_Z[i]! - KNOT_Z[i - 1]!);
  return knots[i - 1]! + t * (knots[i]! - knots[i - 1]!);
}
