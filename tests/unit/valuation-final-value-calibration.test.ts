import { describe, expect, it } from 'vitest';
import { DEAL_FLAG_MULTIPLES, dealFlags } from '../../services/scorer/deal-flags.js';
import { scorerFinalValues, withFinalValueCalibration } from '../../services/scorer/final-value-calibration.js';
import { trainFairValueModel } from '../../services/valuation/fair-value-model.js';
import type { TrainingSale } from '../../services/valuation/features.js';
import { KNOT_PROBS, normalQuantile } from '../../services/valuation/market-distribution.js';
import { seededRandom } from '../../services/shared/seeded-random.js';

// A market with a known noise: four wheel-loader models whose price falls with age, each sale
// log-normally ±0.15 around its machine's value. The later sales are the test.
const random = seededRandom(21);
const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
const SIGMA = 0.15;
const MODELS = [['950G', '950', 60_000], ['980G', '980', 120_000], ['966H', '966', 90_000], ['938K', '938', 45_000]] as const;
const sales: TrainingSale[] = Array.from({ length: 900 }, (_, i) => {
  const [model, family, base] = MODELS[i % MODELS.length]!;
  const year = 1995 + Math.floor(random() * 15);
  const soldAt = new Date(Date.UTC(2005 + Math.floor((i / 900) * 6), Math.floor(random() * 12), 1 + Math.floor(random() * 27)));
  const age = soldAt.getUTCFullYear() - year;
  return {
    categoryId: 3, make: 'Caterpillar', model, modelFamily: family, year, hours: 1000 + age * 900, condition: null, state: 'TX', saleChannel: 'auction',
    soldAt, price: Math.round(base * Math.exp(-0.08 * age + SIGMA * normal())), attributes: {}, title: `${year} Caterpillar ${model} Wheel Loader`,
  };
});
const train = sales.slice(0, 750);
const test = sales.slice(750);
const params = { trees: 150, learningRate: 0.1 };
const knotAt = (knots: number[], p: number) => knots[KNOT_PROBS.indexOf(p as (typeof KNOT_PROBS)[number])]!;

describe('the deal score calibrated on the errors of the value the scorer writes', () => {
  it('reads its distribution from the values it is handed for the held-out sales, and keeps the trees\u2019 range', () => {
    // a stand-in for the scorer whose values miss by a known ±0.5 log: the distribution must be that wide
    const wide = seededRandom(5);
    const wideNormal = () => Math.sqrt(-2 * Math.log(1 - wide())) * Math.cos(2 * Math.PI * wide());
    let handed: { fit: number; holdout: number; latestFit: number; firstHeldOut: number } | null = null;
    const { model } = trainFairValueModel(train, {
      params,
      members: 1,
      finalValues: (holdoutModel, fit, holdout) => {
        handed = { fit: fit.length, holdout: holdout.length, latestFit: Math.max(...fit.map((s) => s.soldAt.getTime())), firstHeldOut: Math.min(...holdout.map((s) => s.soldAt.getTime())) };
        expect(holdoutModel.data.trainedRows).toBe(fit.length);
        return holdout.map((s) => s.price * Math.exp(0.5 * wideNormal()));
      },
    });
    const { model: onTrees } = trainFairValueModel(train, { params, members: 1 });
    // the holdout fit saw only the earlier sales; the held-out ones are the latest 15%
    expect(handed).not.toBeNull();
    expect(handed!.fit + handed!.holdout).toBe(train.length);
    expect(handed!.latestFit).toBeLessThanOrEqual(handed!.firstHeldOut);
    const knots = model.data.ranges.bySource!.fastiron!.knots!;
    const treeKnots = onTrees.data.ranges.bySource!.fastiron!.knots!;
    // 5% of the handed values' errors lie 1.645 × 0.5 under their median (sampling error on ~110 sales)
    expect(knotAt(knots, 0.05)).toBeLessThan(-0.6);
    expect(knotAt(knots, 0.05)).toBeGreaterThan(-1.1);
    expect(knotAt(knots, 0.95)).toBeGreaterThan(0.6);
    // the trees' own errors are the market's ±0.15: far narrower
    expect(knotAt(treeKnots, 0.05)).toBeGreaterThan(-0.45);
    // the range shown beside the value is the trees' (accuracy's), unchanged; the trees too
    expect(model.data.ranges.bySource!.fastiron!.low).toBe(onTrees.data.ranges.bySource!.fastiron!.low);
    expect(model.data.ranges.overall.high).toBe(onTrees.data.ranges.overall.high);
    const v = model.value(test[0]!);
    expect(v.fairValue).toBe(onTrees.value(test[0]!).fairValue);
    expect(v.knots).toEqual(knots);
  });

  it('keeps each level\u2019s promise on later sales of a market with a known noise', () => {
    const { model } = trainFairValueModel(train, withFinalValueCalibration({ params, members: 1 }));
    const knots = model.data.ranges.bySource!.fastiron!.knots!;
    // the scorer's values miss by about the market's own noise: the 5% point near −1.645 σ
    expect(knotAt(knots, 0.05)).toBeLessThan(-1.645 * SIGMA * 0.6);
    expect(knotAt(knots, 0.05)).toBeGreaterThan(-1.645 * SIGMA * 2);
    const flags = dealFlags(model, train, test);
    for (const k of DEAL_FLAG_MULTIPLES) expect(flags[String(k)]!.scored).toBe(1);
    // at market price: good or better about 1 in 20, excellent about 1 in 100, poor about 1 in 20
    expect(flags['1']!.good_or_better).toBeLessThanOrEqual(0.1);
    expect(flags['1']!.excellent).toBeLessThanOrEqual(0.03);
    expect(flags['1']!.poor).toBeLessThanOrEqual(0.1);
    // half price is 4.6 σ under: found almost always, and excellent mostly
    expect(flags['0.5']!.good_or_better).toBeGreaterThanOrEqual(0.9);
    expect(flags['0.5']!.excellent).toBeGreaterThanOrEqual(0.7);
    // twice the price: poor almost always, never good
    expect(flags['2']!.poor).toBeGreaterThanOrEqual(0.9);
    expect(flags['2']!.good_or_better).toBe(0);
  });

  it('the scorer\u2019s values of the held-out sales: one per sale, the fair value as written', () => {
    const { model } = trainFairValueModel(train, { params, members: 1, holdoutOnly: true });
    const values = scorerFinalValues(model, train.slice(0, 600), train.slice(600));
    expect(values).toHaveLength(150);
    const errors = values.map((v, i) => Math.log1p(train[600 + i]!.price) - Math.log1p(v!));
    const sorted = [...errors].sort((a, b) => a - b);
    // centred errors spread about as the market's noise (σ = 0.15; the value's own error adds a little)
    const iqr = sorted[Math.round(0.75 * 149)]! - sorted[Math.round(0.25 * 149)]!;
    expect(iqr / (2 * normalQuantile(0.75))).toBeGreaterThan(SIGMA * 0.7);
    expect(iqr / (2 * normalQuantile(0.75))).toBeLessThan(SIGMA * 1.8);
  });
});
