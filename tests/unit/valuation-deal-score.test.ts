import { describe, expect, it } from 'vitest';
import { dealLevel, dealScore, paidPrice, type DealInput } from '../../services/valuation/deal-score.js';

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

describe('deal score', () => {
  it('is 500 at the fair value, about 860 at the low end of the range, about 140 at the high end', () => {
    expect(dealScore(base)!.score).toBe(500);
    const atLow = dealScore({ ...base, price: 40_000 })!.score;
    expect(atLow).toBeGreaterThan(840);
    expect(atLow).toBeLessThan(880);
    expect(dealLevel(atLow)).toBe('excellent');
    const atHigh = dealScore({ ...base, price: 62_500 })!.score;
    expect(atHigh).toBeGreaterThan(120);
    expect(atHigh).toBeLessThan(160);
    expect(dealLevel(atHigh)).toBe('poor');
  });

  it('rises as the price falls, never falls, and stays within 0–1000', () => {
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

  it('calls an open auction\'s low bid a deal only in its last day: at most fair with two days or more to run', () => {
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

  it('counts the buyer’s premium in what the buyer pays', () => {
    expect(paidPrice(40_000, 10)).toBeCloseTo(44_000, 6);
    expect(dealScore({ ...base, price: 40_000, buyersPremiumPct: 10 })!.score).toBeLessThan(dealScore({ ...base, price: 40_000 })!.score);
    expect(dealScore({ ...base, price: 40_000, buyersPremiumPct: 10 })!.paid).toBeCloseTo(44_000, 6);
  });

  it('pulls unsure valuations towards 500', () => {
    const sure = dealScore({ ...base, price: 35_000, confidence: 1 })!.score;
    const unsure = dealScore({ ...base, price: 35_000, confidence: 0.3 })!.score;
    expect(unsure).toBeLessThan(sure);
    expect(unsure).toBeGreaterThan(500);
    const sureBad = dealScore({ ...base, price: 70_000, confidence: 1 })!.score;
    const unsureBad = dealScore({ ...base, price: 70_000, confidence: 0.3 })!.score;
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

  it('gives null, not a guess, without a price, a usable range or enough confidence', () => {
    expect(dealScore({ ...base, price: null })).toBeNull();
    expect(dealScore({ ...base, price: 0 })).toBeNull();
    expect(dealScore({ ...base, confidence: 0.05 })).toBeNull();
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
