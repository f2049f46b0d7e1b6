import { describe, expect, it } from 'vitest';
import { ageingFactor, ageRatio, comparableToday, DEPRECIATION_MAX_AGE, estimatePriceIndex, inDollarsOf, priceLevel, type IndexSale } from '../../services/valuation/price-index.js';
import { seededRandom } from '../../services/shared/seeded-random.js';

const random = seededRandom(3);
/** Sales of 12 families over the given years, prices moving by `levels[year]` (log) plus noise and depreciation. */
function market(levels: Record<number, number>, families = 12): IndexSale[] {
  const out: IndexSale[] = [];
  for (const [yearText, level] of Object.entries(levels)) {
    const saleYear = Number(yearText);
    for (let k = 0; k < 240; k++) {
      const family = `F${k % families}`;
      const year = saleYear - 1 - Math.floor(random() * 12);
      const base = 20_000 * (1 + (k % families));
      const price = base * Math.exp(level - 0.08 * (saleYear - year) + (random() - 0.5) * 0.3);
      out.push({ categoryId: 1 + (k % 3), make: null, modelFamily: family, year, soldAt: new Date(Date.UTC(saleYear, Math.floor(random() * 12), 15)), price });
    }
  }
  return out;
}

describe("today's dollars", () => {
  it('measures a known shift from the families both periods share', () => {
    // prices 25% higher in 2011 than in 2009–2010, 10% higher again in 2012
    const index = estimatePriceIndex(market({ 2009: 0, 2010: 0, 2011: Math.log(1.25), 2012: Math.log(1.25 * 1.1) }));
    const level = (y: number) => index.years.find((x) => x.year === y)!.log;
    expect(level(2012)).toBe(0);
    expect(level(2011)).toBeCloseTo(-Math.log(1.1), 1);
    expect(level(2009)).toBeCloseTo(-Math.log(1.375), 1);
    expect(Math.abs(level(2010) - level(2009))).toBeLessThan(0.05);
    // a 2009 sale of $100,000 in 2012 dollars: about $137,500
    const adjusted = inDollarsOf(index, 100_000, new Date('2009-06-15T00:00:00Z'), new Date('2012-12-31T00:00:00Z'));
    expect(adjusted).toBeGreaterThan(130_000);
    expect(adjusted).toBeLessThan(145_000);
  });

  it('does not guess across a gap that no like-for-like sales bridge', () => {
    // the later market sells other families only: the step between the periods is not measured
    const early = market({ 2006: 0, 2007: 0.1 });
    const late = market({ 2024: 0.9, 2025: 1.0 }).map((s) => ({ ...s, modelFamily: `NEW${s.modelFamily}` }));
    const index = estimatePriceIndex([...early, ...late]);
    const level = (y: number) => index.years.find((x) => x.year === y)!.log;
    expect(level(2025)).toBe(0);
    expect(level(2024)).toBeCloseTo(-0.1, 1);
    expect(level(2007)).toBeCloseTo(level(2024), 6);
    expect(level(2006)).toBeCloseTo(level(2024) - 0.1, 1);
    expect(index.method).toMatch(/runs 2006–2007, 2024–2025/);
  });

  it('holds the level flat outside its points and interpolates between them', () => {
    const index = { points: [{ at: '2010-01-01T00:00:00.000Z', log: -0.2 }, { at: '2012-01-01T00:00:00.000Z', log: 0 }] };
    expect(priceLevel(index, new Date('2000-01-01T00:00:00Z'))).toBe(-0.2);
    expect(priceLevel(index, new Date('2030-01-01T00:00:00Z'))).toBe(0);
    expect(priceLevel(index, new Date('2011-01-01T12:00:00Z'))).toBeCloseTo(-0.1, 3);
    expect(inDollarsOf(undefined, 5000, new Date('2001-01-01'), new Date('2020-01-01'))).toBe(5000);
  });

  it('measures each type\'s depreciation like for like and ages a comparable to today with it, up to a plateau', () => {
    // the market loses 8% (log 0.08) a year of age in every family
    const index = estimatePriceIndex(market({ 2009: 0, 2010: 0, 2011: 0, 2012: 0 }));
    for (const type of ['1', '2', '3']) expect(index.depreciation![type]).toBeCloseTo(-0.08, 1);
    const slope = index.depreciation!['1']!;
    const asOf = new Date('2012-06-01T00:00:00Z');
    // a 2005 machine sold at 5 in 2010 is two years older today: ×exp(2·slope)
    const sale = { price: 50_000, soldAt: new Date('2010-06-01T00:00:00Z'), year: 2005, categoryId: 1 };
    expect(comparableToday(index, sale, asOf) / inDollarsOf(index, 50_000, sale.soldAt, asOf)).toBeCloseTo(Math.exp(slope * 2), 2);
    // a machine already past the plateau's age loses nothing more with age
    const old = { ...sale, year: 2010 - DEPRECIATION_MAX_AGE - 3 };
    expect(comparableToday(index, old, asOf)).toBeCloseTo(inDollarsOf(index, 50_000, sale.soldAt, asOf), 6);
    // one that crosses it (24 when sold, 26.4 now) ages only up to it: one year
    const crossing = { ...sale, soldAt: new Date('2010-01-01T00:00:00Z'), year: 2010 - DEPRECIATION_MAX_AGE + 1 };
    expect(comparableToday(index, crossing, asOf) / inDollarsOf(index, 50_000, crossing.soldAt, asOf)).toBeCloseTo(Math.exp(slope * 1), 2);
    // no depreciation known (an index without it, or no index): today's dollars only
    expect(comparableToday({ points: index.points }, sale, asOf)).toBe(inDollarsOf(index, 50_000, sale.soldAt, asOf));
    expect(comparableToday(undefined, sale, asOf)).toBe(50_000);
  });

  it('ages by the type\'s depreciation alone, and compares two machines\' years at one date the same way', () => {
    const index = { points: [], depreciation: { '1': -0.06 } };
    const asOf = new Date('2026-06-01T00:00:00Z');
    // a 2006 machine valued as sold in mid 2012 (6 years old) is 14 years older at asOf: ×exp(−0.06·14)
    expect(ageingFactor(index, { soldAt: new Date('2012-06-01T00:00:00Z'), year: 2006, categoryId: 1 }, asOf)).toBeCloseTo(Math.exp(-0.06 * 14), 3);
    // up to the plateau: a 1995 machine is 17 in 2012 and stops ageing at 25
    expect(ageingFactor(index, { soldAt: new Date('2012-01-01T00:00:00Z'), year: 1995, categoryId: 1 }, new Date('2026-01-01T00:00:00Z'))).toBeCloseTo(Math.exp(-0.06 * 8), 2);
    // without a year, a machine is taken to be 8 when it sold, as a comparable without one is
    expect(ageingFactor(index, { soldAt: new Date('2012-06-01T00:00:00Z'), year: null, categoryId: 1 }, asOf)).toBeCloseTo(Math.exp(-0.06 * 14), 3);
    expect(ageingFactor(index, { soldAt: new Date('2012-06-01T00:00:00Z'), year: 2006, categoryId: 2 }, asOf)).toBe(1);
    // comparableToday is today's dollars × the ageing
    const sale = { price: 40_000, soldAt: new Date('2012-06-01T00:00:00Z'), year: 2006, categoryId: 1 };
    expect(comparableToday(index, sale, asOf)).toBeCloseTo(40_000 * ageingFactor(index, sale, asOf), 6);
    // a 2016 machine against a 2012 one at asOf: 4 years younger (10 against 14)
    expect(ageRatio(index, 1, 2016, 2012, asOf)).toBeCloseTo(Math.exp(0.06 * 4), 6);
    expect(ageRatio(index, 1, 1990, 1980, asOf)).toBe(1); // both past the plateau
    expect(ageRatio(index, 1, null, 2012, asOf)).toBe(1);
  });
});

describe('the market level over every history (issue 37)', () => {
  const rnd = seededRandom(11);
  /** `n` sales of families F0–F11 in `market`, sold in `saleYear` (months `from`–`to`), at base × exp(level − 0.07 × age + noise). */
  function sold(market: string, saleYear: number, level: number, opts: { n?: number; from?: number; to?: number; premium?: number } = {}): IndexSale[] {
    const { n = 300, from = 0, to = 11, premium = 0 } = opts;
    return Array.from({ length: n }, (_, k) => {
      const year = saleYear - Math.floor(rnd() * 10);
      const month = from + Math.floor(rnd() * (to - from + 1));
      const price = 30_000 * (1 + (k % 12)) * Math.exp(level + premium - 0.07 * (saleYear - year) + (rnd() - 0.5) * 0.3);
      return { categoryId: 1 + (k % 2), make: 'ACME', modelFamily: `F${k % 12}`, year, soldAt: new Date(Date.UTC(saleYear, month, 15)), price, market };
    });
  }

  it('recovers a known step across the 2012 → 2021 gap from the same models sold in both eras, and is carried flat after the last dealer sale', () => {
    // dealer auctions: flat in 2010–2012, 60% higher in 2021, 0.2 log lower again by 2023 (Jan–May)
    const dealer = [
      ...sold('dealer-auction', 2010, 0),
      ...sold('dealer-auction', 2011, 0),
      ...sold('dealer-auction', 2012, 0, { to: 3 }),
      ...sold('dealer-auction', 2021, Math.log(1.6), { from: 8 }),
      ...sold('dealer-auction', 2022, Math.log(1.6)),
      ...sold('dealer-auction', 2023, Math.log(1.6) - 0.2, { to: 4 }),
    ];
    // an online surplus market of 2024–2025 at half the price, rising 0.3: a premium, not the level
    const online = [...sold('online-surplus', 2024, 0, { premium: -0.7 }), ...sold('online-surplus', 2025, 0.3, { premium: -0.7 })];
    const index = estimatePriceIndex([...dealer, ...online]);
    const level = (y: number) => index.years.find((x) => x.year === y)!.log;
    expect(index.market).toBe('dealer-auction');
    expect(level(2023)).toBe(0);
    expect(level(2022)).toBeCloseTo(0.2, 1);
    expect(level(2021)).toBeCloseTo(0.2, 1);
    expect(level(2010)).toBeCloseTo(0.2 - Math.log(1.6), 1);
    expect(Math.abs(level(2012) - level(2010))).toBeLessThan(0.05);
    expect(index.years.map((y) => y.year)).not.toContain(2024);
    expect(index.method).toMatch(/runs 2010–2023/);
    // the month of the latest sales the level rests on; flat after it, whatever the online market did
    expect(index.marketAsOf).toBe('2023-05');
    expect(priceLevel(index, new Date('2025-12-01T00:00:00Z'))).toBe(0);
    const at2011 = index.points.find((p) => p.at.startsWith('2011'))!.at;
    expect(inDollarsOf(index, 100_000, new Date(at2011), new Date('2026-01-01T00:00:00Z'))).toBeCloseTo(100_000 * Math.exp(-level(2011)), 6);
    for (const type of ['1', '2']) expect(index.depreciation![type]).toBeCloseTo(-0.07, 1);
  });

  it('measures a step within a year with shorter periods', () => {
    const sales = [
      ...sold('dealer-auction', 2022, 0, { to: 5, n: 400 }),
      ...sold('dealer-auction', 2022, -0.4, { from: 6, n: 400 }),
    ];
    const index = estimatePriceIndex(sales, { periodMonths: 6 });
    expect(index.years.map((y) => y.period)).toEqual(['2022-01', '2022-07']);
    expect(index.years[0]!.log).toBeCloseTo(0.4, 1);
    expect(index.marketAsOf).toBe('2022-12');
  });

  it('holds new machines apart: a year of many unused lots does not move the level', () => {
    // used machines 20% dearer in 2022 than in 2011; as many new ones of the same families at 3×
    const early = sold('dealer-auction', 2011, 0);
    const used = sold('dealer-auction', 2022, Math.log(1.2));
    const unused = sold('dealer-auction', 2022, Math.log(3)).map((s) => ({ ...s, year: 2022, unused: true }));
    const index = estimatePriceIndex([...early, ...used, ...unused]);
    expect(index.years.find((y) => y.year === 2011)!.log).toBeCloseTo(-Math.log(1.2), 1);
  });
});
