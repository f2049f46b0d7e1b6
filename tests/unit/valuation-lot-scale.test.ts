import { describe, expect, it } from 'vitest';
import { dealLevel, dealScore } from '../../services/valuation/deal-score.js';
import { FairValueModel, trainFairValueModel } from '../../services/valuation/fair-value-model.js';
import type { TrainingSale } from '../../services/valuation/features.js';
import { extendTails, fitScaleModel, KNOT_PROBS, lotScale, normalQuantile, residualKnots, scaleFeatures } from '../../services/valuation/market-distribution.js';
import { seededRandom } from '../../services/shared/seeded-random.js';

const random = seededRandom(47);
const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

// A dealer market with two segments the listing tells apart: machines with a known year sell
// within ±8% of their value, machines listed without one scatter ±0.35 log (their age unknown).
const QUIET = 0.08;
const NOISY = 0.35;
const sale = (i: number, n: number): TrainingSale => {
  const noisy = random() < 0.5;
  const year = 1998 + Math.floor(random() * 12);
  const soldAt = new Date(Date.UTC(2006 + Math.floor((i / n) * 5), Math.floor(random() * 12), 1 + Math.floor(random() * 27)));
  const price = 80_000 * Math.exp(-0.08 * (soldAt.getUTCFullYear() - year) + (noisy ? NOISY : QUIET) * normal());
  return {
    categoryId: 3, make: 'Caterpillar', model: '950G', modelFamily: '950', year: noisy ? null : year, hours: 4000, condition: null, state: 'TX',
    saleChannel: 'auction', soldAt, price: Math.round(price), attributes: {}, title: `Caterpillar 950G Wheel Loader`,
  };
};
const N = 1800;
const sales = Array.from({ length: N }, (_, i) => sale(i, N));
const { model } = trainFairValueModel(sales, { params: { trees: 80, learningRate: 0.1 }, members: 1, lotScale: true });
// fresh lots of both segments from the same market (not trained on), each offered at k × the price it sold for
const later = Array.from({ length: 800 }, (_, i) => sale(Math.floor((i * N) / 800), N));

function levels(m: FairValueModel, lots: TrainingSale[], k: number) {
  const valuations = m.valueAll(lots);
  return lots.map((s, i) => {
    const v = valuations[i]!;
    const r = dealScore({
      price: k * s.price, buyersPremiumPct: null, fairValue: v.fairValue, low: v.low, high: v.high, knots: v.knots, confidence: 1,
      status: 'closed', auctionEndAt: null, isAuction: false, now: new Date(Date.UTC(2011, 0, 6)),
    });
    return dealLevel(r!.score);
  });
}
const share = (ls: (string | null)[], ...which: string[]) => ls.filter((l) => l !== null && which.includes(l)).length / ls.length;

describe('a spread per lot (the deal score\u2019s distribution knows an unusual lot)', () => {
  const quiet = later.filter((s) => s.year !== null);
  const noisy = later.filter((s) => s.year === null);

  it('learns from the held-out errors that lots without a year spread wider, and scales each listing\u2019s distribution', () => {
    const scale = model.data.ranges.lotScale?.fastiron;
    expect(scale).toBeDefined();
    expect(scale!.coef[1]!).toBeGreaterThan(0.5);
    const [a, b] = model.valueAll([quiet[0]!, noisy[0]!]);
    const q05 = KNOT_PROBS.indexOf(0.05);
    // the noisy lot's 5% point lies several times further under its value than the quiet one's
    expect(b!.knots[q05]! / a!.knots[q05]!).toBeGreaterThan(2.5);
  });

  it('rarely flags a quiet lot at market price, finds it at 30% off; a noisy lot at half price is not Excellent', () => {
    expect(share(levels(model, quiet, 1), 'good', 'excellent')).toBeLessThan(0.1);
    expect(share(levels(model, quiet, 1), 'excellent')).toBeLessThan(0.03);
    expect(share(levels(model, noisy, 1), 'good', 'excellent')).toBeLessThan(0.1);
    expect(share(levels(model, quiet, 0.7), 'good', 'excellent')).toBeGreaterThan(0.8);
    expect(share(levels(model, quiet, 0.5), 'excellent')).toBeGreaterThan(0.8);
    // a noisy lot's own scatter (±0.35 log) is about half price's distance: most are not excellent
    expect(share(levels(model, noisy, 0.5), 'excellent')).toBeLessThan(0.4);
  });

  it('finds more of the quiet segment\u2019s bargains than one spread for all lots would, and falsely flags fewer noisy lots', () => {
    // the same model with one spread: its source's knots read from the raw errors (the scale's 1)
    const oneSpread = trainFairValueModel(sales, { params: { trees: 80, learningRate: 0.1 }, members: 1, lotScale: false }).model;
    expect(oneSpread.data.ranges.lotScale?.fastiron).toBeUndefined();
    expect(share(levels(model, quiet, 0.8), 'good', 'excellent')).toBeGreaterThan(share(levels(oneSpread, quiet, 0.8), 'good', 'excellent') + 0.3);
    expect(share(levels(model, noisy, 1), 'good', 'excellent')).toBeLessThan(share(levels(oneSpread, noisy, 1), 'good', 'excellent'));
  });

  it('reads a listing\u2019s model sales at the size of training its scale was fitted on', () => {
    // fitted on the holdout fit's sales, applied by the final model trained on all of them
    expect(model.data.ranges.lotScale!.fastiron!.rows).toBeLessThan(model.data.trainedRows);
    const lot = quiet[0]!;
    const rows = model.data.trainedRows / 4;
    const scale = { features: ['log_model_sales', 'no_year', 'no_hours'], mean: [Math.log1p(model.support(lot) / 4), 0, 0], coef: [-0.5, 0, 0], rows };
    const withScale = FairValueModel.fromJSON({ ...model.toJSON(), ranges: { ...model.data.ranges, lotScale: { fastiron: scale } } });
    const unscaled = FairValueModel.fromJSON({ ...model.toJSON(), ranges: { ...model.data.ranges, lotScale: undefined } });
    const q05 = KNOT_PROBS.indexOf(0.05);
    // a quarter of the training: its count read as a quarter, right at the scale model's mean (scale 1)
    expect(withScale.valueAll([lot])[0]!.knots[q05]!).toBeCloseTo(unscaled.valueAll([lot])[0]!.knots[q05]!, 10);
    // read at full size it would be e^(−0.5 · log 4) ≈ 0.5 as wide
    const full = FairValueModel.fromJSON({ ...model.toJSON(), ranges: { ...model.data.ranges, lotScale: { fastiron: { ...scale, rows: undefined } } } });
    expect(full.valueAll([lot])[0]!.knots[q05]! / unscaled.valueAll([lot])[0]!.knots[q05]!).toBeCloseTo(Math.exp(-0.5 * (Math.log1p(model.support(lot)) - Math.log1p(model.support(lot) / 4))), 6);
    // the upper tail is its source's
    expect(full.valueAll([lot])[0]!.knots.slice(12)).toEqual(unscaled.valueAll([lot])[0]!.knots.slice(12));
  });

  it('scores a model stored before the per-lot spread exactly as before: every lot its source\u2019s distribution', () => {
    const json = JSON.parse(JSON.stringify(model.toJSON()));
    delete json.ranges.lotScale;
    const old = FairValueModel.fromJSON(json);
    const [a, b] = old.valueAll([quiet[0]!, noisy[0]!]);
    expect(a!.knots).toEqual(b!.knots);
    const stored = json.ranges.bySource.fastiron.knots.map((k: number) => k * (json.ranges.typeScale['fastiron|3'] ?? 1));
    a!.knots.forEach((k, i) => expect(k).toBeCloseTo(stored[i]!, 10));
    // and the stored model round-trips with its scales
    const again = FairValueModel.fromJSON(JSON.parse(JSON.stringify(model.toJSON())));
    expect(again.valueAll([noisy[0]!])[0]!.knots).toEqual(model.valueAll([noisy[0]!])[0]!.knots);
  });
});

describe('the scale model', () => {
  it('recovers a scale that grows with a feature, shrinks nothing it cannot tell, and stays within its bounds', () => {
    const r = seededRandom(5);
    const g = () => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
    const x = Array.from({ length: 3000 }, (_, i) => scaleFeatures({ year: i % 3 === 0 ? null : 2000, hours: 100 }, i % 50));
    const residuals = x.map((row) => (row[1] ? 0.6 : 0.1) * g());
    const m = fitScaleModel(x, residuals)!;
    // log 6 ≈ 1.79 between the segments; no_hours never varies and keeps 0
    expect(m.coef[1]!).toBeGreaterThan(1.5);
    expect(m.coef[1]!).toBeLessThan(2.1);
    expect(Math.abs(m.coef[0]!)).toBeLessThan(0.1);
    expect(m.coef[2]).toBe(0);
    expect(lotScale(m, scaleFeatures({ year: null, hours: 1 }, 10))).toBeLessThanOrEqual(2.5);
    expect(lotScale(undefined, [1, 2, 3])).toBe(1);
    expect(fitScaleModel(x.slice(0, 10), residuals.slice(0, 10))).toBeNull();
  });
});

describe('tails read honestly from few lots', () => {
  const z = KNOT_PROBS.map(normalQuantile);
  it('reads a knot from the order statistics only with enough lots beyond it, else extends the estimable tail', () => {
    // 60 draws of a unit normal: 0.3, 0.6 and 1.2 lots lie beyond the 0.5%, 1% and 2% knots
    const r = seededRandom(11);
    const g = () => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
    const raw: number[][] = [];
    const extended: number[][] = [];
    for (let rep = 0; rep < 300; rep++) {
      const sample = Array.from({ length: 60 }, g).sort((a, b) => a - b);
      const median = (sample[29]! + sample[30]!) / 2;
      const q = KNOT_PROBS.map((p) => {
        const pos = 59 * p;
        const lo = Math.floor(pos);
        return sample[lo]! + (sample[Math.ceil(pos)]! - sample[lo]!) * (pos - lo) - median;
      });
      raw.push(q);
      extended.push(extendTails(q, 60, 3));
    }
    const i1 = KNOT_PROBS.indexOf(0.01);
    const i5 = KNOT_PROBS.indexOf(0.05);
    const mean = (rows: number[][], i: number) => rows.reduce((a, k) => a + k[i]!, 0) / rows.length;
    const sd = (rows: number[][], i: number) => Math.sqrt(rows.reduce((a, k) => a + (k[i]! - mean(rows, i)) ** 2, 0) / rows.length);
    // the lowest lot or two cannot lie beyond themselves: read from them the 1% point sits 0.25
    // log too narrow on average; extended from the 5% point it is near the truth, no less steady
    expect(mean(raw, i1) - z[i1]!).toBeGreaterThan(0.15);
    expect(Math.abs(mean(extended, i1) - z[i1]!)).toBeLessThan(0.15);
    expect(sd(extended, i1)).toBeLessThan(1.2 * sd(raw, i1));
    // the 5% knot has 3 lots beyond it: read as it is
    expect(extended.every((k, rep) => k[i5] === raw[rep]![i5])).toBe(true);
  });

  it('leaves the knots of a large sample as they are', () => {
    const r = seededRandom(12);
    const sample = Array.from({ length: 2000 }, () => r() - 0.5);
    const knots = residualKnots(sample)!;
    expect(extendTails(knots, 2000, 5)).toEqual(knots);
    // a heavy lower tail read from enough lots keeps its weight
    expect(extendTails(knots, 2000, 5)[0]).toBe(knots[0]);
  });
});
