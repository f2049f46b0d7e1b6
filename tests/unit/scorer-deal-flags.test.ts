import { describe, expect, it } from 'vitest';
import { DEAL_FLAG_MULTIPLES, dealFlags, dealFlagShares, offerListing, scoreOffers, scorerValuations } from '../../services/scorer/deal-flags.js';
import { trainFairValueModel } from '../../services/valuation/fair-value-model.js';
import type { TrainingSale } from '../../services/valuation/features.js';
import type { ListingScore } from '../../services/valuation/score-listing.js';
import { seededRandom } from '../../services/shared/seeded-random.js';

// A small market: two wheel-loader models whose price falls with age, ±10% noise; later sales are the test.
const random = seededRandom(8);
const sales: TrainingSale[] = Array.from({ length: 700 }, (_, i) => {
  const big = i % 2 === 0;
  const year = 1995 + Math.floor(random() * 15);
  const soldAt = new Date(Date.UTC(2005 + Math.floor((i / 700) * 6), Math.floor(random() * 12), 1 + Math.floor(random() * 27)));
  const age = soldAt.getUTCFullYear() - year;
  const price = (big ? 120_000 : 60_000) * Math.exp(-0.08 * age) * (0.9 + random() * 0.2);
  return {
    categoryId: 3, make: 'Caterpillar', model: big ? '980G' : '950G', modelFamily: big ? '980' : '950', year, hours: 1000 + age * 900,
    condition: null, state: 'TX', saleChannel: 'auction', soldAt, price: Math.round(price), attributes: {}, title: `${year} Caterpillar ${big ? '980G' : '950G'} Wheel Loader`,
  };
});
const train = sales.slice(0, 600);
const test = sales.slice(600);
const { model } = trainFairValueModel(train, { params: { trees: 150, learningRate: 0.1 }, members: 1 });

const score = (dealScore: number | null): ListingScore => ({
  dealScore, fairValue: dealScore === null ? null : 1, valueLow: null, valueHigh: null, valuationConfidence: null, comparables: null, asOf: null, reasonText: null, reason: dealScore === null ? 'no-price' : 'scored', bidLimits: null,
});

describe('deal-flag evaluation', () => {
  it('counts shares per k: scored of all, the levels of those scored', () => {
    const shares = dealFlagShares([{ k: 1, scores: [score(950), score(650), score(500), score(100), score(null)] }]);
    expect(shares['1']).toEqual({ scored: 0.8, good_or_better: 0.5, excellent: 0.25, poor: 0.25 });
  });

  it('offers each test sale at k × its sold price, closed, or open with the hours left', () => {
    const now = new Date('2011-06-01T00:00:00Z');
    const closed = offerListing(test[0]!, 1, 0.5, now);
    expect(closed.priceUsd).toBeCloseTo(test[0]!.price * 0.5, 6);
    expect(closed.status).toBe('closed');
    const open = offerListing(test[0]!, 1, 0.5, now, 10);
    expect(open.status).toBe('open');
    expect(open.auctionEndAt!.getTime() - now.getTime()).toBe(10 * 3_600_000);
  });

  it('scores the later sales through the scorer: a fixture at market price is rarely flagged, at a quarter almost always', () => {
    const flags = dealFlags(model, train, test);
    expect(Object.keys(flags).sort()).toEqual(DEAL_FLAG_MULTIPLES.map(String).sort());
    for (const k of DEAL_FLAG_MULTIPLES) expect(flags[String(k)]!.scored).toBe(1);
    expect(flags['1']!.good_or_better).toBeLessThanOrEqual(0.1);
    expect(flags['0.25']!.good_or_better).toBeGreaterThanOrEqual(0.9);
    expect(flags['2']!.poor).toBeGreaterThanOrEqual(0.9);
    // fewer flags the dearer the offer
    const good = DEAL_FLAG_MULTIPLES.map((k) => flags[String(k)]!.good_or_better);
    for (let i = 1; i < good.length; i++) expect(good[i]!).toBeLessThanOrEqual(good[i - 1]!);
    // open auctions two days from their close: a low bid is not yet a deal
    const open = dealFlags(model, train, test, { multiples: [0.25], hoursLeft: 48 });
    expect(open['0.25']!.good_or_better).toBeLessThan(0.1);
  });

  it('measures accuracy on the values the scorer writes: the fair value and range of each sale listed at its own price', () => {
    const written = scorerValuations(model, train, test);
    expect(written).toHaveLength(test.length);
    // the valuation does not depend on the offered price: the same at k = 1 and k = 0.5
    const half = scoreOffers(model, train, test, { multiples: [0.5] })[0]!.scores;
    written.forEach((w, i) => {
      expect(w).not.toBeNull();
      expect(w!.fairValue).toBe(half[i]!.fairValue);
      expect(w!.low).toBeLessThan(w!.fairValue);
      expect(w!.high).toBeGreaterThan(w!.fairValue);
    });
    // ±10% noise around a price the model can learn: the written values are close to what sold
    const rmsle = Math.sqrt(written.reduce((a, w, i) => a + (Math.log1p(w!.fairValue) - Math.log1p(test[i]!.price)) ** 2, 0) / test.length);
    expect(rmsle).toBeLessThan(0.15);
  });
});
