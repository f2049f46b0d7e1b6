/**
 * The deal score said in one sentence with numbers, as a buyer reads it on the deal page and in
 * alerts: "$3,350 — about 60% under similar sales; 99 in 100 sold for more". How far under is the
 * price the buyer pays (buyer's premium included) against the fair value (the middle of what such
 * machines sell for); how sure is the probability behind the score (deal-score.ts), read back from
 * the stored score, so nothing beyond the score and the fair value needs storing.
 */
import type { StoredBidLimits } from '../../db/schema/listings.js';
import { EXCELLENT_PROBABILITY, GOOD_PROBABILITY, POOR_PROBABILITY, paidPrice } from './deal-score.js';
import { normalCdf, normalQuantile } from './market-distribution.js';

const Z_GOOD = normalQuantile(GOOD_PROBABILITY);
const Z_EXCELLENT = normalQuantile(EXCELLENT_PROBABILITY);
const Z_POOR = -normalQuantile(POOR_PROBABILITY);

/** The probability behind a stored score (0–1000): the inverse of scoreFromZ, at the middle of its integer step. */
export function probabilityFromScore(score: number): number {
  const s = Math.min(999.5, Math.max(0.5, score + 0.5));
  let z: number;
  if (s >= 791) z = Z_EXCELLENT + normalQuantile(Math.min(0.9999, (1 + (s - 791) / 209) / 2));
  else if (s >= 591) z = Z_GOOD + ((s - 591) * (Z_EXCELLENT - Z_GOOD)) / 199;
  else if (s >= 500) z = ((s - 500) * Z_GOOD) / 91;
  else if (s >= 391) z = ((s - 500) * Z_POOR) / 109;
  else z = normalQuantile(Math.max(1e-4, s / 780)) - Z_POOR;
  return normalCdf(z);
}

/** "99 in 100", "19 in 20", "9 in 10", "7 in 10": how many of ten (or a hundred) such machines. */
export function inTen(p: number): string {
  if (p >= 0.99) return '99 in 100';
  if (p >= 0.95) return '19 in 20';
  return `${Math.max(1, Math.min(9, Math.floor(p * 10)))} in 10`;
}

/** A share in whole percents. */
function aboutPercent(share: number): number {
  return Math.round(Math.abs(share) * 100);
}

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0, minimumFractionDigits: 0 });

export type ClaimInput = { priceUsd: number | null; buyersPremiumPct?: number | null; fairValue: number | null; dealScore: number | null };

/**
 * How far under (or over) similar sales and how sure, without the price: "about 60% under similar
 * sales; 99 in 100 sold for more". null without a score, a price or a fair value.
 */
export function dealClaim(input: ClaimInput): string | null {
  if (input.dealScore === null || input.priceUsd === null || !(input.priceUsd > 0) || input.fairValue === null || !(input.fairValue > 0)) return null;
  const paid = paidPrice(input.priceUsd, input.buyersPremiumPct ?? null);
  const under = 1 - paid / input.fairValue;
  const p = probabilityFromScore(input.dealScore);
  const pct = aboutPercent(under);
  if (pct < 5) return `about what similar machines sell for; ${inTen(Math.max(p, 1 - p))} sold for ${p >= 0.5 ? 'more' : 'less'}`;
  const gap = under > 0 ? `about ${pct}% under similar sales` : `about ${pct}% over similar sales`;
  // the certainty follows the score: an open auction's early low bid claims less than its gap
  return p >= 0.5 ? `${gap}; ${inTen(p)} sold for more` : `${gap}; ${inTen(1 - p)} sold for less`;
}

/** The claim with what the buyer pays in front: "$3,350 — about 60% under similar sales; 99 in 100 sold for more". */
export function dealClaimSentence(input: ClaimInput): string | null {
  const claim = dealClaim(input);
  if (claim === null) return null;
  return `${usd.format(Math.round(paidPrice(input.priceUsd!, input.buyersPremiumPct ?? null)))} — ${claim}`;
}

/**
 * The claim in few characters, for SMS: "60% under, 99% sure" (sure that similar machines sell for
 * more); "20% over, 95% sure" the other way.
 */
export function dealClaimShort(input: ClaimInput): string | null {
  if (dealClaim(input) === null) return null;
  const under = 1 - paidPrice(input.priceUsd!, input.buyersPremiumPct ?? null) / input.fairValue!;
  const p = probabilityFromScore(input.dealScore!);
  const pct = aboutPercent(under);
  const sure = `${Math.floor(Math.max(p, 1 - p) * 100)}% sure`;
  if (pct < 5) return 'at market';
  return under > 0 === p >= 0.5 ? `${pct}% ${under > 0 ? 'under' : 'over'}, ${sure}` : `${pct}% ${under > 0 ? 'under' : 'over'}`;
}

/** "Good up to $6,200": a card's, an alert's and an SMS's few words on the Good limit; null without one. */
export function goodUpTo(good: number | null | undefined): string | null {
  return good === null || good === undefined ? null : `Good up to ${usd.format(good)}`;
}

/** "27 hours", "2 days 3 hours": the time left the limits were worked out at, to the hour. */
function hoursText(hours: number): string {
  const h = Math.max(1, Math.round(hours));
  if (h < 48) return `${h} hour${h === 1 ? '' : 's'}`;
  const days = Math.floor(h / 24);
  return `${days} days${h % 24 ? ` ${h % 24} h` : ''}`;
}

/**
 * The deal page's line on the limits (bid-limits.ts): "Bid up to $6,200 for a Good deal (19 in 20
 * similar machines sold for more); $3,100 for Excellent". The level's claim is its probability.
 */
export function bidLimitsLine(limits: Pick<StoredBidLimits, 'good' | 'excellent' | 'hours_left' | 'reachable_hours_left'>): string {
  if (limits.good === null) {
    const from = limits.reachable_hours_left.good;
    return `No bid is a Good deal yet${limits.hours_left !== null ? ` with ${hoursText(limits.hours_left)} left` : ''}${from !== null ? `: a bid can be Good from ${hoursText(from)} before the close` : ''}`;
  }
  const good = `Bid up to ${usd.format(limits.good)} for a Good deal (${inTen(GOOD_PROBABILITY)} similar machines sold for more)`;
  if (limits.excellent !== null) return `${good}; ${usd.format(limits.excellent)} for Excellent`;
  const from = limits.reachable_hours_left.excellent;
  return `${good}; Excellent only later${from !== null ? `, from ${hoursText(from)} before the close` : ''}`;
}

/**
 * Why a level is out of reach now, or null: "With 5 days left this lot can be at most Fair: timed
 * auctions are bid up in their last hours, so an early low bid claims less."
 */
export function bidLimitsNote(limits: Pick<StoredBidLimits, 'at_most' | 'hours_left'>): string | null {
  if (limits.at_most === 'excellent' || limits.hours_left === null) return null;
  const level = limits.at_most === 'good' ? 'Good' : 'Fair';
  return `With ${hoursText(limits.hours_left)} left this lot can be at most ${level}: timed auctions are bid up in their last hours, so an early low bid claims less.`;
}

/** What the limits rest on, in a sentence: hammer bids, the premium, the fair value, the time left. */
export function bidLimitsBasis(limits: Pick<StoredBidLimits, 'premium_rate' | 'hours_left'>, fairValue: number, estimate = false): string {
  if (estimate) return `What to pay before any buyer's premium or haul, against our fair value of ${usd.format(fairValue)}, as for a fixed-price sale today.`;
  const premium =
    limits.premium_rate > 0
      ? `before the ${Math.round(limits.premium_rate * 1000) / 10}% buyer's premium the source states`
      : "with no buyer's premium stated by the source (check its terms)";
  const when = limits.hours_left === null ? 'a fixed-price listing' : `worked out with ${hoursText(limits.hours_left)} left; they rise as the close nears`;
  return `Hammer bids ${premium}, against our fair value of ${usd.format(fairValue)}; ${when}.`;
}
