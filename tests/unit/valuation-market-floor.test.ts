import { describe, expect, it } from 'vitest';
import { trainFairValueModel } from '../../services/valuation/fair-value-model.js';
import type { TrainingSale, ValuationInput } from '../../services/valuation/features.js';
import { baselineKnots, KNOT_PROBS } from '../../services/valuation/market-distribution.js';
import { seededRandom } from '../../services/shared/seeded-random.js';

// A dealer market the model learns well (±10%), and a small online site whose lots of the same
// machines scatter ±1.5 log around their type's price: too few lots for a calibration window of its own.
const random = seededRandom(31);
const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
const sale = (i: number, source: string | null, noise: number): TrainingSale => {
  const year = 1998 + Math.floor(random() * 12);
  const soldAt = new Date(Date.UTC(2008 + Math.floor((i / 600) * 4), Math.floor(random() * 12), 1 + Math.floor(random() * 27)));
  const price = 80_000 * Math.exp(-0.08 * (soldAt.getUTCFullYear() - year) + noise * normal());
  return {
    categoryId: 3, make: 'Caterpillar', model: '950G', modelFamily: '950', year, hours: null, condition: null, state: 'TX', saleChannel: 'auction',
    soldAt, price: Math.round(price), attributes: source ? { source } : {}, title: `${year} Caterpillar 950G Wheel Loader`,
  };
};
const dealer = Array.from({ length: 600 }, (_, i) => sale(i, null, 0.1));
const online = Array.from({ length: 60 }, (_, i) => sale(300 + i * 5, 'smallsite', 1.5));
const { model } = trainFairValueModel([...dealer, ...online], { params: { trees: 120, learningRate: 0.1 }, members: 1 });
const q05 = KNOT_PROBS.indexOf(0.05);
const listing = (source: string | null): ValuationInput => ({ ...dealer[599]!, attributes: source ? { source } : {} });

describe('the deal score\u2019s distribution for a site without a calibration window of its own', () => {
  it('claims no more than its own lots\u2019 spread around the type\u2019s median allows; the dealer market keeps its own', () => {
    expect(model.data.ranges.bySource?.smallsite).toBeUndefined();
    const [own, small] = model.valueAll([listing(null), listing('smallsite')]);
    expect(own!.ownMarket).toBe(true);
    expect(small!.ownMarket).toBe(false);
    const floor = baselineKnots(online.map((s) => ({ type: '3', logPrice: Math.log1p(s.price) }))).byType['3']!;
    // the online lots scatter ±1.5 log: 5% of them land about 2.5 log under the type's median
    expect(floor[q05]!).toBeLessThan(-1.8);
    expect(small!.knots[q05]!).toBeLessThanOrEqual(floor[q05]! + 0.05);
    expect(own!.knots[q05]!).toBeGreaterThan(-0.5);
    // every knot of the borrowed distribution is at least as wide as the floor, each tail
    small!.knots.forEach((k, i) => {
      if (KNOT_PROBS[i]! < 0.5) expect(k).toBeLessThanOrEqual(floor[i]! + 0.05);
      if (KNOT_PROBS[i]! > 0.5) expect(k).toBeGreaterThanOrEqual(floor[i]! - 0.05);
    });
  });
});
