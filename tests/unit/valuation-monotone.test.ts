import { describe, expect, it } from 'vitest';
import { trainFairValueModel } from '../../services/valuation/fair-value-model.js';
import type { TrainingSale } from '../../services/valuation/features.js';
import { trainGbdt, type FeatureSpec } from '../../services/valuation/gbdt.js';
import { seededRandom } from '../../services/shared/seeded-random.js';

// History in which hours and year are noisy and entangled with other features, so an
// unconstrained tree would find pockets where more hours or an older year sells higher.
const random = seededRandom(11);
const sales: TrainingSale[] = Array.from({ length: 1500 }, (_, i) => {
  const model = ['320C', '330C', 'D6R', '950G'][i % 4]!;
  const year = 1994 + Math.floor(random() * 18);
  const soldAt = new Date(Date.UTC(2008 + Math.floor(random() * 4), Math.floor(random() * 12), 1));
  const age = soldAt.getUTCFullYear() - year;
  const hours = Math.round(age * (600 + random() * 1200) + random() * 3000);
  const base = { '320C': 70_000, '330C': 110_000, D6R: 130_000, '950G': 90_000 }[model]!;
  // heavy noise: single sales often break the trend
  const price = base * Math.exp(-0.07 * age - 0.00002 * hours + (random() - 0.5) * 0.9);
  return {
    categoryId: model === 'D6R' ? 2 : model === '950G' ? 3 : 1, make: null, model, modelFamily: model.slice(0, 3), year, hours,
    condition: null, state: ['TX', 'CA', 'FL'][i % 3]!, saleChannel: 'auction', soldAt, price: Math.round(price), attributes: {},
  };
});

describe('monotone constraints', () => {
  it('a tree split may not order its children against the sign', () => {
    // y falls with x except for a bump the unconstrained learner follows
    const n = 400;
    const x = Float64Array.from({ length: n }, (_, i) => i);
    const y = Float64Array.from({ length: n }, (_, i) => -i / 100 + (i > 200 && i < 240 ? 3 : 0));
    const specs = (monotone?: 1 | -1): FeatureSpec[] => [{ name: 'x', kind: 'numeric', monotone }];
    const predictAt = (model: ReturnType<typeof trainGbdt>['model']) => model.predict({ columns: [x], rows: n });
    const free = predictAt(trainGbdt(specs(), { columns: [x], rows: n }, y, { trees: 50, minDataInLeaf: 5, colsample: 1, subsample: 1 }).model);
    const bound = predictAt(trainGbdt(specs(-1), { columns: [x], rows: n }, y, { trees: 50, minDataInLeaf: 5, colsample: 1, subsample: 1 }).model);
    const rises = (p: Float64Array) => p.some((v, i) => i > 0 && v > p[i - 1]! + 1e-12);
    expect(rises(free)).toBe(true);
    expect(rises(bound)).toBe(false);
  });

  const { model } = trainFairValueModel(sales, { params: { trees: 150, learningRate: 0.1, colsample: 0.8 }, members: 2 });
  const at = new Date('2012-01-01T00:00:00Z');
  const listing = (m: string, year: number, hours: number) => ({
    categoryId: m === 'D6R' ? 2 : m === '950G' ? 3 : 1, make: null, model: m, modelFamily: m.slice(0, 3), year, hours,
    condition: null, state: 'TX', saleChannel: 'auction', soldAt: at, attributes: {},
  });

  it('more hours never raise the fair value, all else equal', () => {
    for (const m of ['320C', '330C', 'D6R', '950G']) {
      for (const year of [1996, 2003, 2009]) {
        const values = [0, 250, 500, 1000, 2000, 4000, 8000, 15_000, 30_000].map((h) => model.value(listing(m, year, h)).fairValue);
        for (let i = 1; i < values.length; i++) expect(values[i]!).toBeLessThanOrEqual(values[i - 1]!);
        // and hours do move it: 500 hours against 15,000 is not the same machine
        expect(values[2]!).toBeGreaterThan(values[7]!);
      }
    }
  });

  it('a newer year never lowers the fair value, all else equal', () => {
    for (const m of ['320C', '330C', 'D6R', '950G']) {
      for (const hours of [1000, 6000, 12_000]) {
        const values = Array.from({ length: 18 }, (_, k) => model.value(listing(m, 1994 + k, hours)).fairValue);
        for (let i = 1; i < values.length; i++) expect(values[i]!).toBeGreaterThanOrEqual(values[i - 1]!);
        expect(values[17]!).toBeGreaterThan(values[0]!);
      }
    }
  });
});
