import { describe, expect, it } from 'vitest';
import type { ComparableCandidate } from '../../services/valuation/comparables.js';
import { trainFairValueModel } from '../../services/valuation/fair-value-model.js';
import type { TrainingSale } from '../../services/valuation/features.js';
import { seededRandom } from '../../services/shared/seeded-random.js';
import { COMPARABLE_WEIGHT, comparablesShare, evidenceDate, restOnComparables, scoreListing, scoreListings, valuationEvidence, type ListingToScore } from '../../services/valuation/score-listing.js';
import { comparablesLikeness, comparablesLogValue, comparablesWeight } from '../../services/valuation/comparables.js';
import { ageingFactor } from '../../services/valuation/price-index.js';

// Synthetic history: two wheel-loader models whose price falls with age and hours.
const random = seededRandom(5);
const sales: TrainingSale[] = Array.from({ length: 600 }, (_, i) => {
  const big = i % 2 === 0;
  const year = 1995 + Math.floor(random() * 15);
  const soldAt = new Date(Date.UTC(2005 + Math.floor(random() * 6), Math.floor(random() * 12), 1));
  const age = soldAt.getUTCFullYear() - year;
  const price = (big ? 120_000 : 60_000) * Math.exp(-0.08 * age) * (0.9 + random() * 0.2);
  return {
    categoryId: 3, make: null, model: big ? '980G' : '950G', modelFamily: big ? '980' : '950', year, hours: 1000 + age * 900,
    condition: null, state: 'TX', saleChannel: 'auction', soldAt, price: Math.round(price),
    attributes: { Enclosure: big ? 'EROPS w AC' : 'OROPS', ProductSize: big ? 'Large' : 'Medium' },
  };
});
const { model } = trainFairValueModel(sales, { params: { trees: 200, learningRate: 0.1 } });
const now = new Date('2026-11-21T00:00:00Z');
const comps: ComparableCandidate[] = sales
  .filter((s) => s.model === '980G')
  .slice(0, 40)
  .map((s) => ({ title: `${s.year} 980G`, model: s.model, modelFamily: s.modelFamily, year: s.year, hours: s.hours, price: s.price, soldAt: s.soldAt, source: 'test', url: null }));
const listing: ListingToScore = {
  id: 1, categoryId: 3, make: 'Caterpillar', model: '980G', modelFamily: '980', year: 2004, hours: 6000, condition: 'Good', state: 'TX',
  priceUsd: 80_000, buyersPremiumPct: null, status: 'open', auctionEndAt: null, bidCount: 0,
};

describe('scoring a listing', () => {
  it('values as of the latest sale the model knows, with the details a listing lacks filled from its model', () => {
    expect(model.valuationDate(now).getTime()).toBe(Math.max(...sales.map((s) => s.soldAt.getTime())));
    expect(model.valuationDate(new Date('2006-01-01T00:00:00Z')).toISOString()).toBe('2006-01-01T00:00:00.000Z');
    const filled = model.withTypicalAttributes({ ...listing, saleChannel: null, soldAt: now, attributes: {} });
    expect(filled.attributes).toMatchObject({ Enclosure: 'EROPS w AC', ProductSize: 'Large' });
    const kept = model.withTypicalAttributes({ ...listing, saleChannel: null, soldAt: now, attributes: { Enclosure: 'OROPS' } });
    expect(kept.attributes.Enclosure).toBe('OROPS');
  });

  it('scores cheaper listings higher and explains with comparables', () => {
    const cheap = scoreListing({ ...listing, priceUsd: 20_000 }, model, comps, now);
    const dear = scoreListing({ ...listing, priceUsd: 400_000 }, model, comps, now);
    expect(cheap.reason).toBe('scored');
    expect(cheap.dealScore!).toBeGreaterThan(dear.dealScore!);
    expect(cheap.comparables).toHaveLength(5);
    expect(cheap.valueLow!).toBeLessThan(cheap.fairValue!);
    expect(cheap.valueHigh!).toBeGreaterThan(cheap.fairValue!);
  });

  it('gives null for an unknown type, no comparables, or no price', () => {
    expect(scoreListing({ ...listing, categoryId: 6 }, model, comps, now)).toMatchObject({ dealScore: null, fairValue: null, reason: 'unsupported-type' });
    // without comparables (or anything to find them by) a listing is still valued, from its type and words, and its score claims less
    const unknownModel = scoreListing({ ...listing, model: 'ZZ1', modelFamily: 'ZZ' }, model, comps, now);
    expect(unknownModel).toMatchObject({ reason: 'scored', comparables: [], valuationConfidence: 0 });
    expect(unknownModel.fairValue).not.toBeNull();
    expect(scoreListing({ ...listing, model: null, modelFamily: null, make: null }, model, comps, now)).toMatchObject({ reason: 'scored', comparables: [] });
    // a listing that names only its make compares with sales of that make
    const byMake = comps.map((c) => ({ ...c, make: 'CATERPILLAR' }));
    const makeOnly = scoreListing({ ...listing, model: null, modelFamily: null, title: 'Caterpillar Wheel Loader' }, model, byMake, now);
    expect(makeOnly.comparables).toHaveLength(5);
    expect(makeOnly.fairValue).not.toBeNull();
    expect(scoreListing({ ...listing, model: null, modelFamily: null }, model, comps, now).comparables).toEqual([]);
    const noPrice = scoreListing({ ...listing, priceUsd: null }, model, comps, now);
    expect(noPrice.dealScore).toBeNull();
    expect(noPrice.reason).toBe('no-price');
    expect(noPrice.fairValue).not.toBeNull();
  });
});

describe('the scoring contract', () => {
  it('scores a batch exactly as one at a time', () => {
    const batch: ListingToScore[] = [
      listing,
      { ...listing, id: 2, priceUsd: 20_000, hours: 300 },
      { ...listing, id: 3, categoryId: 6 },
      { ...listing, id: 4, model: '950G', modelFamily: '950', year: 1999, priceUsd: null },
      { ...listing, id: 5, model: 'ZZ1', modelFamily: 'ZZ' },
      { ...listing, id: 6, year: null, hours: null, state: null, auctionEndAt: new Date('2026-11-22T00:00:00Z'), bidCount: 3 },
    ];
    const candidatesFor = (l: ListingToScore) => (l.model === '980G' ? comps : []);
    const together = scoreListings(batch, model, candidatesFor, now);
    const alone = batch.map((l) => scoreListing(l, model, candidatesFor(l), now));
    expect(together).toEqual(alone);
    expect(together.map((s) => s.reason)).toEqual(['scored', 'scored', 'unsupported-type', 'no-price', 'scored', 'scored']);
  });

  it('says as of when the value is, shows each comparable at its sale price and in those dollars', () => {
    const scored = scoreListing(listing, model, comps, now);
    expect(scored.asOf).toBe(model.valuationDate(now).toISOString().slice(0, 10));
    expect(scored.reasonText).toBeNull();
    for (const c of scored.comparables!) {
      const original = comps.find((x) => x.price === c.original_price && x.soldAt.toISOString() === c.sold_at);
      expect(original).toBeDefined();
      expect(c.price).toBe(Math.round(model.comparableToday({ price: c.original_price, soldAt: new Date(c.sold_at), year: original!.year, categoryId: listing.categoryId }, new Date(scored.asOf!))));
    }
  });

  it('gives the buyer a reason whenever there is no score', () => {
    expect(scoreListing({ ...listing, categoryId: 6 }, model, comps, now).reasonText).toBe('Not enough sales of this type yet');
    expect(scoreListing({ ...listing, priceUsd: null }, model, comps, now).reasonText).toBe('No price to compare yet');
    expect(scoreListing({ ...listing, categoryId: 6 }, model, comps, now).asOf).toBeNull();
  });
});

describe('one story: the fair value rests on the comparables it shows', () => {
  // The same history, plus a few later sales of another type (as online lots years after the
  // dealer records): the model knows the market up to 2025, but wheel loaders only to 2010, sold
  // at 0–15 years old. A 1999 loader listed in 2025 is 26: older than any the trees saw.
  const later: TrainingSale[] = Array.from({ length: 40 }, (_, i) => ({
    categoryId: 1, make: null, model: 'E35', modelFamily: 'E35', year: 2015 + (i % 8), hours: 2000, condition: null, state: 'CA',
    saleChannel: 'auction', soldAt: new Date(Date.UTC(2025, i % 10, 1)), price: 20_000 + 500 * (i % 7), attributes: {},
  }));
  const { model: withLater } = trainFairValueModel([...sales, ...later], { params: { trees: 200, learningRate: 0.1 } });
  const asOf = new Date('2025-10-01T00:00:00Z');
  const allComps: ComparableCandidate[] = sales.map((s) => ({ title: `${s.year} ${s.model}`, model: s.model, modelFamily: s.modelFamily, year: s.year, hours: s.hours, price: s.price, soldAt: s.soldAt, source: 'test', url: null }));

  it('values at its comparables\' latest sale and ages the value to the valuation date as they are aged', () => {
    expect(evidenceDate([], asOf)).toBe(asOf);
    expect(evidenceDate([{ soldAt: new Date('2009-01-01') }, { soldAt: new Date('2010-03-01') }], asOf).toISOString()).toBe('2010-03-01T00:00:00.000Z');
    expect(evidenceDate([{ soldAt: new Date('2026-01-01') }], asOf)).toEqual(asOf);
    const input = withLater.withTypicalAttributes({ ...listing, year: 1999, hours: 20_000, saleChannel: 'auction', soldAt: asOf, attributes: {} });
    const at = new Date('2010-06-01T00:00:00Z');
    const [moved] = withLater.valueAllAt([input], [at]);
    const there = withLater.value({ ...input, soldAt: at });
    const ageing = ageingFactor(withLater.data.priceIndex, { soldAt: at, year: 1999, categoryId: 3 }, asOf);
    expect(ageing).toBeLessThan(0.7); // 11 → 25 years of age at the type's measured depreciation
    expect(moved!.fairValue).toBeCloseTo(there.fairValue * ageing, 0);
    expect(moved!.low / moved!.fairValue).toBeCloseTo(there.low / there.fairValue, 6);
    // valued at its own date, nothing moves
    expect(withLater.valueAllAt([input], [asOf])[0]!.fairValue).toBeCloseTo(withLater.value(input).fairValue, 6);
  });

  it('puts old machines\' fair values among their comparables\' today prices, and the median on theirs', () => {
    const gaps: number[] = [];
    let within = 0;
    const years = [1996, 1998, 2000, 2002, 2004, 2006, 2008];
    for (const [i, year] of years.entries()) {
      const l = { ...listing, id: 10 + i, year, hours: 1000 + (2010 - year) * 900, auctionEndAt: null };
      const scored = scoreListing(l, withLater, allComps, asOf);
      const prices = scored.comparables!.map((c) => c.price).sort((a, b) => a - b);
      if (scored.fairValue! >= prices[0]! * 0.995 && scored.fairValue! <= prices.at(-1)! * 1.005) within++;
      gaps.push(Math.log(scored.fairValue! / prices[prices.length >> 1]!));
    }
    gaps.sort((a, b) => a - b);
    expect(within, JSON.stringify(gaps)).toBeGreaterThanOrEqual(years.length - 1);
    expect(Math.abs(gaps[gaps.length >> 1]!)).toBeLessThan(0.1);
  });

  it('moves the value its share of the way to what the comparables say, and the range with it', () => {
    const v = { fairValue: 20_000, low: 15_000, high: 28_000, logPrice: Math.log1p(20_000), support: 5, knots: [0], ownMarket: true };
    expect(restOnComparables(v, null, 1)).toBe(v);
    expect(restOnComparables(v, Math.log1p(30_000), 0)).toBe(v);
    const all = restOnComparables(v, Math.log1p(30_000), 1);
    expect(all.fairValue).toBeCloseTo(30_000, 6);
    expect(all.low).toBeCloseTo(22_500, 6);
    expect(all.high).toBeCloseTo(42_000, 6);
    const half = restOnComparables(v, Math.log1p(30_000), 0.5);
    expect(half.logPrice).toBeCloseTo((Math.log1p(20_000) + Math.log1p(30_000)) / 2, 9);
    expect(half.knots).toBe(v.knots);
  });

  it('weighs comparables by likeness, each adjusted for its age against the listing\'s', () => {
    expect(comparablesLikeness([])).toBe(0);
    expect(comparablesLikeness(Array.from({ length: 5 }, () => ({ machineDistance: 0 })))).toBeCloseTo(1 - Math.exp(-2.5), 9);
    expect(comparablesLikeness([{ machineDistance: 0 }])).toBeCloseTo(1 - Math.exp(-0.5), 9);
    expect(comparablesWeight([{ machineDistance: 0 }, { machineDistance: 2 }])).toBeCloseTo(1 + Math.exp(-1), 9);
    // the share: comparables counted by likeness against the model's one estimate
    expect(comparablesShare([], COMPARABLE_WEIGHT.measuredSite)).toBe(0);
    const five = Array.from({ length: 5 }, () => ({ machineDistance: 0 }));
    expect(comparablesShare(five, COMPARABLE_WEIGHT.measuredSite)).toBeCloseTo(5 / 9, 9);
    expect(comparablesShare([{ machineDistance: 0 }], COMPARABLE_WEIGHT.otherSite)).toBeCloseTo(10 / 11, 9);
    expect(comparablesShare(five, COMPARABLE_WEIGHT.otherSite)).toBeGreaterThan(comparablesShare(five, COMPARABLE_WEIGHT.measuredSite));
    expect(comparablesLogValue([])).toBeNull();
    // a close comparable outweighs a far one; a comparable of an older machine counts at the listing's age
    const value = comparablesLogValue([
      { today: 10_000, machineDistance: 0, ageRatio: 1 },
      { today: 40_000, machineDistance: 4, ageRatio: 1 },
    ])!;
    const w = Math.exp(-2);
    expect(value).toBeCloseTo((Math.log1p(10_000) + w * Math.log1p(40_000)) / (1 + w), 9);
    expect(comparablesLogValue([{ today: 10_000, machineDistance: 0, ageRatio: 1.5 }])).toBeCloseTo(Math.log1p(15_000), 9);
  });

  it('gives the pieces the fair value is averaged from, which average back to the value the scorer writes', () => {
    const batch: ListingToScore[] = [listing, { ...listing, id: 2, hours: 300 }, { ...listing, id: 3, model: 'ZZ1', modelFamily: 'ZZ' }, { ...listing, id: 4, categoryId: 6 }];
    const scored = scoreListings(batch, model, () => comps, now);
    const evidence = valuationEvidence(batch, model, () => comps, now);
    expect(evidence[3]).toBeNull();
    for (let i = 0; i < 3; i++) {
      const e = evidence[i]!;
      expect(e.comparablesCount).toBeCloseTo(comparablesWeight(e.ranked), 12);
      const weight = e.tree.ownMarket ? COMPARABLE_WEIGHT.measuredSite : COMPARABLE_WEIGHT.otherSite;
      const v = restOnComparables(e.tree, e.comparablesLog, comparablesShare(e.ranked, weight));
      expect(Math.round(v.fairValue)).toBe(scored[i]!.fairValue);
      expect(Math.round(v.low)).toBe(scored[i]!.valueLow);
    }
    // with comparables the value moves towards them; without, it is the trees'
    expect(evidence[0]!.comparablesLog).not.toBeNull();
    expect(evidence[2]!.ranked).toEqual([]);
    expect(Math.round(evidence[2]!.tree.fairValue)).toBe(scored[2]!.fairValue);
  });
});
