/**
 * Bid limits: the deal score (deal-score.ts) inverted. For a scored open lot, the highest hammer
 * bid — whole dollars, before the buyer's premium the source states — at which it still scores
 * Excellent and still Good at its time left, the lowest at which it is Poor, and the bid at its
 * market (the fair value less the premium). Exact: each limit is found by asking dealScore itself
 * (a closed-form first guess through the inverse of the market distribution, then checked a dollar
 * either side), so a lot offered at its Good limit scores Good and one dollar more does not.
 *
 * An open auction's early low bid counts for less the longer it runs (the time-left rule), so a lot
 * days out cannot reach Good or Excellent at any bid: the limit is null and `atMost` says the best
 * level it can have now, `reachableHoursLeft` from how many hours before the close each level can
 * be reached. Pure; the scorer stores the result with the score, never recomputed per request.
 */
import {
  EXCELLENT_PROBABILITY,
  GOOD_PROBABILITY,
  HALF_WEIGHT_HOURS,
  MAX_Z,
  POOR_PROBABILITY,
  dealLevel,
  dealScore,
  supportWeight,
  type DealInput,
  type DealLevel,
} from './deal-score.js';
import type { StoredBidLimits } from '../../db/schema/listings.js';
import { knotsFromRange, normalQuantile, residualAt } from './market-distribution.js';

/** What the score reads of a lot, all but the price. */
export type BidLimitsInput = Omit<DealInput, 'price'>;

export type BidLimits = {
  /** The highest bid that still scores Excellent; null when no bid can at this time left. */
  excellent: number | null;
  /** The highest bid that still scores Good (or better); null when no bid can at this time left. */
  good: number | null;
  /** The bid at the lot's market: the fair value (as shown, whole dollars) less the stated premium, rounded down. */
  market: number;
  /** The lowest bid that scores Poor. */
  poor: number;
  /** The buyer's premium as a fraction (0.1 for 10%); 0 when the source states none. */
  premiumRate: number;
  /** Hours to the close the limits were worked out at; null for a fixed-price listing. */
  hoursLeft: number | null;
  /** The best level any bid can have at this time left. */
  atMost: Exclude<DealLevel, 'poor'>;
  /** From how many hours before the close each level can be reached (null: at any time left). */
  reachableHoursLeft: { excellent: number | null; good: number | null };
};

const Z = {
  good: normalQuantile(GOOD_PROBABILITY),
  excellent: normalQuantile(EXCELLENT_PROBABILITY),
  poor: -normalQuantile(POOR_PROBABILITY),
};

const RANK: Record<DealLevel, number> = { poor: 0, fair: 1, good: 2, excellent: 3 };

/** The level a whole-dollar bid scores, null when the score has nothing to say. */
function levelAt(input: BidLimitsInput, bid: number): DealLevel | null {
  const deal = dealScore({ ...input, price: bid });
  return deal ? dealLevel(deal.score) : null;
}

/** The hours left at which the time-left rule lets a normal score z through (z·factor ≥ need); null: always. */
function hoursFrom(need: number): number | null {
  const factor = need / MAX_Z;
  if (factor >= 1) return 0;
  return HALF_WEIGHT_HOURS * Math.sqrt(1 / (factor * factor) - 1);
}

/**
 * The highest whole bid ≥ 1 scoring `level` or better, walking from `guess`; null when even $1
 * does not. The score falls as the bid rises, so the walk ends.
 */
function highestAtLeast(input: BidLimitsInput, level: DealLevel, guess: number): number | null {
  const ok = (bid: number) => {
    const at = levelAt(input, bid);
    return at !== null && RANK[at] >= RANK[level];
  };
  let bid = Math.max(1, Math.floor(guess));
  if (!ok(bid)) {
    if (!ok(1)) return null;
    let step = 1;
    while (!ok(bid)) {
      bid = Math.max(1, bid - step);
      step *= 2;
    }
  }
  // now ok(bid): climb while a dollar more still holds (one or two steps from the closed form)
  let step = 1;
  while (ok(bid + step)) {
    bid += step;
    step *= 2;
  }
  // ok(bid), not ok(bid + step): halve back to the exact dollar
  let bad = bid + step;
  while (bad - bid > 1) {
    const mid = Math.floor((bid + bad) / 2);
    if (ok(mid)) bid = mid;
    else bad = mid;
  }
  return bid;
}

/** The lowest whole bid scoring Poor, walking from `guess`. */
function lowestPoor(input: BidLimitsInput, guess: number): number {
  const poor = (bid: number) => levelAt(input, bid) === 'poor';
  let bid = Math.max(1, Math.ceil(guess));
  let step = 1;
  while (!poor(bid)) {
    bid += step;
    step *= 2;
  }
  // poor(bid): find the first poor dollar below it
  let notPoor = Math.max(0, bid - 1);
  step = 1;
  while (notPoor >= 1 && poor(notPoor)) {
    bid = notPoor;
    notPoor = Math.max(0, notPoor - step);
    step *= 2;
  }
  while (bid - notPoor > 1) {
    const mid = Math.floor((bid + notPoor) / 2);
    if (poor(mid)) bid = mid;
    else notPoor = mid;
  }
  return bid;
}

/** null where the lot has no score at any price (no usable valuation) or is not open. */
export function bidLimits(input: BidLimitsInput): BidLimits | null {
  if (input.status !== 'open') return null;
  // a price the score can read at all: the market price itself
  if (levelAt(input, Math.max(1, Math.round(input.fairValue))) === null) return null;
  const premiumRate = Math.max(0, input.buyersPremiumPct ?? 0) / 100;
  const logFair = Math.log1p(input.fairValue);
  const knots = input.knots ?? knotsFromRange(Math.log1p(input.low) - logFair, Math.log1p(input.high) - logFair);
  const weight = supportWeight(input.support);
  const timed = input.isAuction && input.auctionEndAt !== null;
  const hoursLeft = timed ? Math.max(0, (input.auctionEndAt!.getTime() - input.now.getTime()) / 3_600_000) : null;
  const factor = hoursLeft === null ? 1 : 1 / Math.sqrt(1 + (hoursLeft / HALF_WEIGHT_HOURS) ** 2);
  /** The bid whose raw normal score is z (the closed form of dealScore's first steps). */
  const bidAtZ = (z: number) => Math.expm1(logFair + residualAt(knots, -z / weight)) / (1 + premiumRate);
  // past the cap no bid reaches the level: highestAtLeast then finds even $1 does not
  const limit = (level: 'good' | 'excellent') => highestAtLeast(input, level, bidAtZ(Math.min(MAX_Z, Z[level] / factor)));
  const excellent = limit('excellent');
  const good = limit('good');
  const atMost: BidLimits['atMost'] = excellent !== null ? 'excellent' : good !== null ? 'good' : 'fair';
  return {
    excellent,
    good,
    // from the fair value as shown (whole dollars), so a buyer can check it
    market: Math.floor(Math.round(input.fairValue) / (1 + premiumRate)),
    poor: lowestPoor(input, bidAtZ(-Z.poor)),
    premiumRate,
    hoursLeft,
    atMost,
    reachableHoursLeft: timed ? { excellent: hoursFrom(Z.excellent), good: hoursFrom(Z.good) } : { excellent: null, good: null },
  };
}

/** The limits as the scorer stores them (listings.bid_limits, snake_case as the API reads them); hours to the minute. */
export function storedBidLimits(limits: BidLimits): StoredBidLimits {
  const minute = (h: number | null) => (h === null ? null : Math.round(h * 60) / 60);
  return {
    excellent: limits.excellent,
    good: limits.good,
    market: limits.market,
    poor: limits.poor,
    premium_rate: limits.premiumRate,
    hours_left: minute(limits.hoursLeft),
    at_most: limits.atMost,
    reachable_hours_left: { excellent: minute(limits.reachableHoursLeft.excellent), good: minute(limits.reachableHoursLeft.good) },
  };
}
