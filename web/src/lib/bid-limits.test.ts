import { describe, expect, it } from 'vitest';
import { bandOf, goodUpTo, priceBands, type BidLimits } from './bid-limits.js';

const limits: BidLimits = {
  excellent: 3_100, good: 6_200, market: 8_886, poor: 12_400, premium_rate: 0.1, as_of: '2026-11-29T06:00:00.000Z', hours_left: 2, at_most: 'excellent',
  basis: 'b', line: 'l', note: null,
};

describe('the price bar', () => {
  it('Poor | Fair | Good | Excellent, each band in dollars, and the band a bid falls in', () => {
    expect(priceBands(limits).map((b) => `${b.label} ${b.range}`)).toEqual(['Poor $12,400+', 'Fair $6,201–$12,399', 'Good $3,101–$6,200', 'Excellent up to $3,100']);
    expect([1, 3_100, 3_101, 6_200, 6_201, 12_399, 12_400].map((bid) => bandOf(limits, bid))).toEqual(['excellent', 'excellent', 'good', 'good', 'fair', 'fair', 'poor']);
    expect(bandOf(limits, null)).toBeNull();
    expect(goodUpTo(6_200)).toBe('Good up to $6,200');
  });
  it('a level out of reach says "not yet"', () => {
    const daysOut = { ...limits, excellent: null, good: null, at_most: 'fair' as const };
    expect(priceBands(daysOut).map((b) => [b.range, b.reachable])).toEqual([['$12,400+', true], ['under $12,400', true], ['not yet', false], ['not yet', false]]);
    expect(bandOf(daysOut, 100)).toBe('fair');
  });
});
