import { describe, expect, it } from 'vitest';
import { dealLevel, dealScore, paidPrice, scoreFromZ, type DealInput } from '../../services/valuation/deal-score.js';
import { atLeastAsWide, baselineKnots, normalQuantile, residualKnots, residualScore } from '../../services/valuation/market-distribution.js';
import { seededRandom } from '../../services/shared/seeded-random.js';

const now = new Date('2026-11-21T12:00:00Z');
const base: DealInput = {
  price: 50_000,
  buyersPremiumPct: null,
  fairValue: 50_000,
  low: 40_000,
  high: 62_500,
  confidence: 1,
  status: 'open',
  auctionEndAt: null,
  isAuction: false,
  now,
};

/** A normal draw from a seeded uniform (Box–Muller). */
function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/**
 * A synthetic market with a known noise: each machine's market value is its fair value × e^(σ·ε);
 * the distribution is learned from earlier sales of the same market (as the model learns it from
 * its time holdout), then later machines are offered at k × what they sold for.
 */
function market(sigma: number, seed: number) {
  const random = seededRandom(seed);
  const knots = residualKnots(Array.from({ length: 2000 }, () => sigma * normal(random)))!;
  const levels = (k: number, n = 4000) => {
    const counts = { good: 0, excellent: 0, poor: 0 };
    for (let i = 0; i < n; i++) {
      const fair = 20_000;
      const sold = fair * Math.exp(sigma * normal(random));
      const level = dealLevel(dealScore({ ...base, price: k * sold, fairValue: fair, low: fair * Math.exp(-1.28 * sigma), high: fair * Math.exp(1.28 * sigma), knots })!.score);
      if (level === 'good' || level === 'excellent') counts.good++;
      if (level === 'excellent') counts.excellent++;
      if (level === 'poor') counts.poor++;
    }
    return { good: counts.good / n, excellent: counts.excellent / n, poor: counts.poor / n };
  };
  return { knots, levels };
}

describe('deal score', () => {
  it('keeps each level\u2019s promise on a market with a known noise: at market price rarely flagged, at half price usually', () => {
    const { levels } = market(0.25, 11);
    const atMarket = levels(1);
    // the claims: good = 19 in 20 such machines sell for more, excellent = 99 in 100, poor = 19 in 20 for less
    expect(atMarket.good).toBeLessThanOrEqual(0.065);
    expect(atMarket.good).toBeGreaterThan(0.03);
    expect(atMarket.excellent).toBeLessThanOrEqual(0.02);
    expect(atMarket.poor).toBeLessThanOrEqual(0.065);
    expect(levels(0.5).good).toBeGreaterThanOrEqual(0.8);
    expect(levels(0.7).good).toBeGreaterThanOrEqual(0.35);
    expect(levels(1.5).good).toBeLessThanOrEqual(0.01);
    // a noisier market claims less at the same discount
    expect(market(0.8, 12).levels(0.7).good).toBeLessThan(levels(0.7).good);
  });

  it('maps the probability that the market value is above the price to the levels\u2019 boundaries', () => {
    expect(scoreFromZ(0)).toBe(500);
    expect(dealLevel(scoreFromZ(normalQuantile(0.95)))).toBe('good');
    expect(dealLevel(scoreFromZ(normalQuantile(0.949)))).toBe('fair');
    expect(dealLevel(scoreFromZ(normalQuantile(0.99)))).toBe('excellent');
    expect(dealLevel(scoreFromZ(normalQuantile(0.989)))).toBe('good');
    expect(dealLevel(scoreFromZ(normalQuantile(0.05)))).toBe('poor');
    expect(dealLevel(scoreFromZ(normalQuantile(0.051)))).toBe('fair');
    const d = dealScore({ ...base, price: 40_000 })!;
    expect(d.probabilityUnder).toBeGreaterThan(0.85);
    expect(d.probabilityUnder).toBeLessThan(0.95);
    expect(d.discount).toBeCloseTo(0.2, 6);
  });

  it('reads its distribution back: the residual score inverts the knots', () => {
    const { knots } = market(0.3, 3);
    expect(residualScore(knots, 0)).toBeCloseTo(0, 6);
    expect(residualScore(knots, knots[4]!)).toBeCloseTo(normalQuantile(0.05), 6);
    expect(residualScore(knots, -5)).toBeLessThan(residualScore(knots, knots[0]!));
  });

  it('centres the distribution on its median and keeps its skew, however few the held-out sales', () => {
    const random = seededRandom(21);
    // skewed: a long lower tail
    const draw = () => { const e = normal(random); return 0.3 + (e < 0 ? 1.5 * e : 0.5 * e); };
    for (const n of [80, 2000]) {
      const knots = residualKnots(Array.from({ length: n }, draw))!;
      expect(knots[11]).toBeCloseTo(0, 6);
      expect(-knots[4]!).toBeGreaterThan(1.5 * knots[knots.length - 5]!);
    }
    expect(residualKnots(Array.from({ length: 19 }, draw))).toBeNull();
  });

  it('floors a small calibration window by the per-type median\u2019s spread, type by type', () => {
    const random = seededRandom(5);
    // a tight type (excavators around $40k) and a scattered one (trailers, trucks, forklifts)
    const lots = [
      ...Array.from({ length: 60 }, () => ({ type: '1', logPrice: Math.log(40_000) + 0.2 * normal(random) })),
      ...Array.from({ length: 60 }, () => ({ type: '11', logPrice: Math.log(3_000) + 1.5 * normal(random) })),
      ...Array.from({ length: 10 }, () => ({ type: '8', logPrice: Math.log(9_000) + 3 * normal(random) })),
    ];
    const baseline = baselineKnots(lots);
    // too few generators for their own spread: they fall back to the pooled one
    expect(Object.keys(baseline.byType).sort()).toEqual(['1', '11']);
    const q05 = (knots: number[]) => -knots[4]!;
    expect(q05(baseline.byType['1']!)).toBeGreaterThan(0.2);
    expect(q05(baseline.byType['1']!)).toBeLessThan(0.5);
    expect(q05(baseline.byType['11']!)).toBeGreaterThan(1.8);
    expect(q05(baseline.pooled!)).toBeGreaterThan(q05(baseline.byType['1']!));
    // a held-out spread of ±0.1 log claims no more than each type's own spread allows
    const narrow = residualKnots(Array.from({ length: 60 }, () => 0.1 * normal(random)))!;
    const tight = atLeastAsWide(narrow, baseline.byType['1']!);
    const scattered = atLeastAsWide(narrow, baseline.byType['11']!);
    expect(q05(tight)).toBeCloseTo(q05(baseline.byType['1']!), 6);
    expect(q05(scattered)).toBeCloseTo(q05(baseline.byType['11']!), 6);
    expect(tight[11]).toBe(0);
    for (let i = 1; i < tight.length; i++) expect(scattered[i]!).toBeGreaterThan(scattered[i - 1]!);
    // a distribution already wider than the floor keeps its own tails
    const wide = residualKnots(Array.from({ length: 60 }, () => 3 * normal(random)))!;
    expect(atLeastAsWide(wide, baseline.byType['1']!)).toEqual(wide);
    // at half price a tight type's lot is a deal, a scattered type's is not
    const half = Math.log(0.5);
    expect(-residualScore(tight, half)).toBeGreaterThan(normalQuantile(0.95));
    expect(-residualScore(scattered, half)).toBeLessThan(normalQuantile(0.95));
  });

  it('is 500 at the fair value, rises as the price falls, never falls, and stays within 0–1000', () => {
    expect(dealScore(base)!.score).toBe(500);
    let previous = -1;
    for (const price of [100_000, 60_000, 50_000, 45_000, 30_000]) {
      const s = dealScore({ ...base, price })!.score;
      expect(s).toBeGreaterThan(previous);
      previous = s;
    }
    for (const price of [500_000, 100_000, 60_000, 50_000, 45_000, 30_000, 10_000, 1]) {
      const s = dealScore({ ...base, price })!.score;
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1000);
    }
    expect(dealScore({ ...base, price: 1 })!.score).toBeGreaterThanOrEqual(dealScore({ ...base, price: 10_000 })!.score);
  });

  it('does not call an opening price far under value a deal while the auction has days to run', () => {
    const now = new Date('2026-11-21T12:00:00Z');
    const open = { ...base, price: 1_000, status: 'open' as const, isAuction: true, now };
    const weekOut = dealScore({ ...open, auctionEndAt: new Date(now.getTime() + 7 * 86_400_000) })!.score;
    const closing = dealScore({ ...open, auctionEndAt: new Date(now.getTime() + 15 * 60_000) })!.score;
    expect(dealLevel(weekOut)).not.toBe('excellent');
    expect(dealLevel(closing)).toBe('excellent');
  });

  it('calls an open auction\u2019s low bid a deal only in its last day: at most fair with two days or more to run', () => {
    const now = new Date('2026-11-21T12:00:00Z');
    const open = { ...base, price: 1_000, status: 'open' as const, isAuction: true, now };
    const at = (hours: number) => dealScore({ ...open, auctionEndAt: new Date(now.getTime() + hours * 3600_000) })!.score;
    for (const hours of [48, 72, 120, 240]) expect(dealLevel(at(hours)), `${hours} h left`).toBe('fair');
    expect(dealLevel(at(24))).toBe('good');
    expect(dealLevel(at(4))).toBe('excellent');
    // the score only rises as the close nears with the bid still low
    const hours = [240, 120, 72, 48, 36, 24, 12, 6, 3, 1, 0.1];
    const scores = hours.map(at);
    for (let i = 1; i < scores.length; i++) expect(scores[i]!).toBeGreaterThanOrEqual(scores[i - 1]!);
  });

  it('counts the buyer\u2019s premium in what the buyer pays', () => {
    expect(paidPrice(40_000, 10)).toBeCloseTo(44_000, 6);
    expect(dealScore({ ...base, price: 40_000, buyersPremiumPct: 10 })!.score).toBeLessThan(dealScore({ ...base, price: 40_000 })!.score);
    expect(dealScore({ ...base, price: 40_000, buyersPremiumPct: 10 })!.paid).toBeCloseTo(44_000, 6);
  });

  it('claims less when few close comparables back the valuation', () => {
    const sure = dealScore({ ...base, price: 35_000, support: 1 })!.score;
    const unsure = dealScore({ ...base, price: 35_000, support: 0 })!.score;
    expect(unsure).toBeLessThan(sure);
    expect(unsure).toBeGreaterThan(500);
    const sureBad = dealScore({ ...base, price: 70_000, support: 1 })!.score;
    const unsureBad = dealScore({ ...base, price: 70_000, support: 0 })!.score;
    expect(unsureBad).toBeGreaterThan(sureBad);
  });

  it('an early low bid on an open auction is not a deal yet; an early high bid is already not one', () => {
    const auction = { ...base, isAuction: true, price: 35_000 };
    const closing = dealScore({ ...auction, auctionEndAt: new Date(now.getTime() + 20 * 60_000) })!.score;
    const early = dealScore({ ...auction, auctionEndAt: new Date(now.getTime() + 7 * 24 * 3600_000) })!.score;
    expect(early).toBeLessThan(closing);
    expect(dealLevel(early)).not.toBe('excellent');
    const ended = dealScore({ ...auction, status: 'closed', auctionEndAt: new Date(now.getTime() - 3600_000) })!.score;
    expect(ended).toBe(dealScore({ ...base, price: 35_000 })!.score);
    const highEarly = dealScore({ ...auction, price: 70_000, auctionEndAt: new Date(now.getTime() + 7 * 24 * 3600_000) })!.score;
    expect(highEarly).toBe(dealScore({ ...base, price: 70_000 })!.score);
  });

  it('gives null, not a guess, without a price or a usable range', () => {
    expect(dealScore({ ...base, price: null })).toBeNull();
    expect(dealScore({ ...base, price: 0 })).toBeNull();
    expect(dealScore({ ...base, fairValue: NaN })).toBeNull();
    expect(dealScore({ ...base, low: 60_000 })).toBeNull();
  });

  it('levels follow the spec after dividing by 10 and rounding up', () => {
    expect(dealLevel(null)).toBeNull();
    expect(dealLevel(800)).toBe('excellent');
    expect(dealLevel(791)).toBe('excellent'); // ceil(79.1) = 80
    expect(dealLevel(790)).toBe('good');
    expect(dealLevel(600)).toBe('good');
    expect(dealLevel(400)).toBe('fair');
    expect(dealLevel(390)).toBe('poor');
    expect(dealLevel(0)).toBe('poor');
  });
});
