import { describe, expect, it } from 'vitest';
import type { StoredBidLimits } from '../../db/schema/listings.js';
import { bidLimits, storedBidLimits, type BidLimitsInput } from '../../services/valuation/bid-limits.js';
import { bidLimitsBasis, bidLimitsLine, bidLimitsNote, goodUpTo } from '../../services/valuation/deal-claim.js';
import { dealLevel, dealScore, type DealLevel } from '../../services/valuation/deal-score.js';
import { residualKnots } from '../../services/valuation/market-distribution.js';
import { seededRandom } from '../../services/shared/seeded-random.js';

const now = new Date('2026-11-21T12:00:00Z');
const hours = (h: number) => new Date(now.getTime() + h * 3_600_000);

const base: BidLimitsInput = {
  buyersPremiumPct: 10,
  fairValue: 9_775,
  low: 7_000,
  high: 13_500,
  confidence: 0.8,
  status: 'open',
  auctionEndAt: hours(2),
  isAuction: true,
  now,
};

/** Knots learned from a seeded skewed market (a fatter lower tail), as the model stores them. */
const random = seededRandom(38);
const learned = residualKnots(Array.from({ length: 1500 }, () => {
  const u = random();
  return u < 0.1 ? -0.6 * random() - 0.3 : 0.35 * (random() + random() + random() - 1.5);
}))!;

const level = (input: BidLimitsInput, bid: number): DealLevel => dealLevel(dealScore({ ...input, price: bid })!.score)!;
const atLeast = (l: DealLevel, want: 'good' | 'excellent') => (want === 'good' ? l === 'good' || l === 'excellent' : l === 'excellent');

const HOURS_LEFT = [0, 0.5, 1, 3, 6, 12, 16, 16.5, 17, 20, 24, 26, 26.5, 27, 36, 48, 120, 240];
const VARIANTS: Array<[string, Partial<BidLimitsInput>]> = [
  ['a range only', {}],
  ['learned knots', { knots: learned }],
  ['thin support', { support: 0.1, knots: learned }],
  ['no premium', { buyersPremiumPct: null }],
  ['a 17.5% premium', { buyersPremiumPct: 17.5 }],
  ['a dear machine', { fairValue: 412_000, low: 300_000, high: 560_000, knots: learned }],
  ['a cheap one', { fairValue: 900, low: 500, high: 1_400 }],
];

describe('bid limits: the deal score inverted', () => {
  for (const [name, variant] of VARIANTS) {
    it(`round trip (${name}): at each limit the level holds, a dollar over it does not, at every time left`, () => {
      let seen = 0;
      for (const h of [...HOURS_LEFT, null]) {
        const input: BidLimitsInput = { ...base, ...variant, ...(h === null ? { auctionEndAt: null, isAuction: false } : { auctionEndAt: hours(h) }) };
        const limits = bidLimits(input)!;
        expect(limits).not.toBeNull();
        for (const want of ['good', 'excellent'] as const) {
          const limit = limits[want];
          if (limit === null) {
            // unreachable: not even a dollar reaches it
            expect(atLeast(level(input, 1), want)).toBe(false);
            continue;
          }
          seen++;
          expect(atLeast(level(input, limit), want)).toBe(true);
          expect(atLeast(level(input, limit + 1), want)).toBe(false);
        }
        expect(level(input, limits.poor)).toBe('poor');
        if (limits.poor > 1) expect(level(input, limits.poor - 1)).not.toBe('poor');
        expect(limits.atMost).toBe(limits.excellent !== null ? 'excellent' : limits.good !== null ? 'good' : 'fair');
      }
      expect(seen).toBeGreaterThan(10);
    });
  }

  it('days out a lot is at most Fair, a day out at most Good; says from when each level can be reached', () => {
    const days = bidLimits({ ...base, auctionEndAt: hours(5 * 24) })!;
    expect(days).toMatchObject({ excellent: null, good: null, atMost: 'fair' });
    const dayOut = bidLimits({ ...base, auctionEndAt: hours(22) })!;
    expect(dayOut.excellent).toBeNull();
    expect(dayOut.good).not.toBeNull();
    expect(dayOut.atMost).toBe('good');
    const { good, excellent } = days.reachableHoursLeft;
    expect(excellent!).toBeGreaterThan(12);
    expect(good!).toBeGreaterThan(excellent!);
    // just inside each threshold the level is reachable, just outside it is not
    for (const [want, at] of [['good', good!], ['excellent', excellent!]] as const) {
      expect(bidLimits({ ...base, auctionEndAt: hours(at - 0.01) })![want]).not.toBeNull();
      expect(bidLimits({ ...base, auctionEndAt: hours(at + 0.01) })![want]).toBeNull();
    }
    expect(bidLimits({ ...base, auctionEndAt: null, isAuction: false })!.reachableHoursLeft).toEqual({ excellent: null, good: null });
  });

  it('limits fall when the fair value falls', () => {
    for (const h of [1, 12, 20]) {
      let previous: ReturnType<typeof bidLimits> = null;
      for (const scale of [1.5, 1.2, 1, 0.8, 0.5, 0.2]) {
        const limits = bidLimits({ ...base, knots: learned, fairValue: base.fairValue * scale, low: base.low * scale, high: base.high * scale, auctionEndAt: hours(h) })!;
        if (previous) {
          for (const k of ['excellent', 'good', 'market', 'poor'] as const) {
            if (previous[k] !== null) expect(limits[k]!).toBeLessThan(previous[k]!);
          }
        }
        previous = limits;
      }
    }
  });

  it('is monotone in the premium: a higher premium never raises a limit', () => {
    for (const h of [0.5, 10, 20]) {
      let previous: ReturnType<typeof bidLimits> = null;
      for (const pct of [null, 0, 2.5, 5, 10, 12.5, 15, 18, 25]) {
        const limits = bidLimits({ ...base, knots: learned, buyersPremiumPct: pct, auctionEndAt: hours(h) })!;
        expect(limits.premiumRate).toBe(Math.max(0, pct ?? 0) / 100);
        if (previous) {
          for (const k of ['excellent', 'good', 'market', 'poor'] as const) {
            if (previous[k] !== null) expect(limits[k]!).toBeLessThanOrEqual(previous[k]!);
          }
        }
        previous = limits;
      }
    }
  });

  it('no limit is above the fair value; Excellent ≤ Good < market < Poor', () => {
    const random = seededRandom(7);
    for (let i = 0; i < 300; i++) {
      const fair = 500 + random() * 300_000;
      const input: BidLimitsInput = {
        ...base,
        fairValue: fair,
        low: fair * (0.4 + random() * 0.5),
        high: fair * (1.1 + random()),
        knots: random() < 0.5 ? learned : undefined,
        support: random() < 0.5 ? random() : undefined,
        buyersPremiumPct: random() < 0.3 ? null : random() * 20,
        auctionEndAt: random() < 0.2 ? null : hours(random() * 60),
      };
      const limits = bidLimits(input)!;
      expect(limits.market).toBeLessThanOrEqual(Math.round(fair));
      if (limits.good !== null) expect(limits.good).toBeLessThan(fair);
      expect(limits.poor).toBeGreaterThan(limits.market);
      if (limits.good !== null) expect(limits.good).toBeLessThan(limits.market);
      if (limits.excellent !== null) expect(limits.excellent).toBeLessThanOrEqual(limits.good!);
    }
  });

  it('is null for a lot that is not open or cannot be scored', () => {
    expect(bidLimits({ ...base, status: 'closed' })).toBeNull();
    expect(bidLimits({ ...base, fairValue: 0 })).toBeNull();
    expect(bidLimits({ ...base, low: base.fairValue + 1 })).toBeNull();
  });
});

describe('bid limits in words', () => {
  const stored = (over: Partial<StoredBidLimits> = {}): StoredBidLimits => ({
    excellent: 3_100, good: 6_200, market: 8_886, poor: 12_400, premium_rate: 0.1, hours_left: 2, at_most: 'excellent',
    reachable_hours_left: { excellent: 16.8, good: 26.6 }, ...over,
  });
  it('says the Good and Excellent limits with the Good claim in numbers', () => {
    expect(bidLimitsLine(stored())).toBe('Bid up to $6,200 for a Good deal (19 in 20 similar machines sold for more); $3,100 for Excellent');
    expect(goodUpTo(6_200)).toBe('Good up to $6,200');
    expect(goodUpTo(null)).toBeNull();
    expect(bidLimitsNote(stored())).toBeNull();
  });
  it('says when a level is out of reach, and from when it can be reached', () => {
    const dayOut = stored({ excellent: null, hours_left: 20, at_most: 'good' });
    expect(bidLimitsLine(dayOut)).toBe('Bid up to $6,200 for a Good deal (19 in 20 similar machines sold for more); Excellent only later, from 17 hours before the close');
    expect(bidLimitsNote(dayOut)).toMatch(/^With 20 hours left this lot can be at most Good: /);
    const daysOut = stored({ excellent: null, good: null, hours_left: 122, at_most: 'fair' });
    expect(bidLimitsLine(daysOut)).toBe('No bid is a Good deal yet with 5 days 2 h left: a bid can be Good from 27 hours before the close');
    expect(bidLimitsNote(daysOut)).toMatch(/^With 5 days 2 h left this lot can be at most Fair: /);
    expect(bidLimitsBasis(stored(), 9_775)).toBe("Hammer bids before the 10% buyer's premium the source states, against our fair value of $9,775; worked out with 2 hours left; they rise as the close nears.");
  });
  it('stores what the detail reads, hours to the minute', () => {
    const limits = bidLimits({ ...base, auctionEndAt: hours(20) })!;
    expect(storedBidLimits(limits)).toMatchObject({ excellent: null, good: limits.good, market: limits.market, poor: limits.poor, premium_rate: 0.1, hours_left: 20, at_most: 'good' });
  });
});
