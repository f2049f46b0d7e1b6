/**
 * The deal score said in one sentence with numbers, as a buyer reads it on the deal page and in
 * alerts: "$3,350 — about 60% under similar sales; 99 in 100 sold for more". How far under is the
 * price the buyer pays (buyer's premium included) against the fair value (the middle of what such
 * machines sell for); how sure is the probability behind the score (deal-score.ts), read back from
 * the stored score, so nothing beyond the score and the fair value needs storing.
 */
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
