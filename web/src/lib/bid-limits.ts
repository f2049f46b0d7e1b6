/**
 * Bid limits (issue 38): the deal score inverted, as the API gives them (the detail's and the
 * estimate's `bid_limits`, the cards' `good_bid_limit`), and the price bar's bands in dollars.
 */
import { formatMoney } from './format-price.js';

export type BidLimits = {
  excellent: number | null;
  good: number | null;
  market: number;
  poor: number;
  premium_rate: number;
  as_of: string;
  hours_left: number | null;
  at_most: 'excellent' | 'good' | 'fair';
  basis: string;
  line: string;
  note: string | null;
  delivered?: { excellent: DeliveredRange; good: DeliveredRange; market: DeliveredRange } | null;
};
type DeliveredRange = { low: number; high: number } | null;

const usd = (n: number) => formatMoney(n, 'USD');

/** "Good up to $6,200" (a card's words), or null without a Good limit. */
export function goodUpTo(good: number | null | undefined): string | null {
  return typeof good === 'number' ? `Good up to ${usd(good)}` : null;
}

export type PriceBand = { level: 'poor' | 'fair' | 'good' | 'excellent'; label: string; range: string; reachable: boolean };

/**
 * The bar's bands, Poor | Fair | Good | Excellent, each with its dollars: Poor from the Poor bid
 * up, Fair between the Good limit and it, Good between the Excellent limit and the Good limit,
 * Excellent up to its limit. A level no bid can reach yet says so.
 */
export function priceBands(limits: BidLimits): PriceBand[] {
  const { excellent, good, poor } = limits;
  const fairFrom = good !== null ? good + 1 : null;
  return [
    { level: 'poor', label: 'Poor', range: `${usd(poor)}+`, reachable: true },
    { level: 'fair', label: 'Fair', range: fairFrom !== null ? `${usd(fairFrom)}–${usd(poor - 1)}` : `under ${usd(poor)}`, reachable: true },
    { level: 'good', label: 'Good', range: good === null ? 'not yet' : excellent !== null ? `${usd(excellent + 1)}–${usd(good)}` : `up to ${usd(good)}`, reachable: good !== null },
    { level: 'excellent', label: 'Excellent', range: excellent === null ? 'not yet' : `up to ${usd(excellent)}`, reachable: excellent !== null },
  ];
}

/** Which band a bid falls in (null without a bid). */
export function bandOf(limits: BidLimits, bid: number | null | undefined): PriceBand['level'] | null {
  if (typeof bid !== 'number') return null;
  if (bid >= limits.poor) return 'poor';
  if (limits.excellent !== null && bid <= limits.excellent) return 'excellent';
  if (limits.good !== null && bid <= limits.good) return 'good';
  return 'fair';
}
