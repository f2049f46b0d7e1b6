/**
 * The deal score, 0–1000 (the UI shows it divided by 10), from the predictive distribution of the
 * machine's market value (market-distribution.ts): how likely similar machines sell for more than
 * the buyer pays. Each level is a claim with a stated error rate (docs/deal-score.md):
 *
 * - Excellent: at least 99 in 100 such machines sell for more than this price;
 * - Good: at least 19 in 20 sell for more;
 * - Poor: at least 19 in 20 sell for less;
 * - Fair: anything in between (no claim).
 *
 * So a lot priced at its market is called a deal about 1 time in 20 (and excellent 1 in 100) when
 * the distribution is calibrated, which `npm run model:eval` checks on later sales (deal_flags).
 * The distribution is widened when few close comparables back the valuation, and for an open
 * auction a low bid counts for less the longer the auction still runs.
 */
import { knotsFromRange, normalCdf, normalQuantile, residualScore } from './market-distribution.js';

export type DealLevel = 'excellent' | 'good' | 'fair' | 'poor';

export type DealInput = {
  /** What the buyer would pay now before premium (current bid, or asking/starting price). */
  price: number | null;
  buyersPremiumPct: number | null;
  fairValue: number;
  low: number;
  high: number;
  /**
   * The predictive distribution of log(1 + market value) − log(1 + fair value) at KNOT_PROBS
   * (market-distribution.ts); without it a two-piece normal through the 10–90% range.
   */
  knots?: number[];
  /** 0–1: how well close comparables back the valuation; below MIN_SUPPORT_FOR_FULL_CLAIM the distribution is widened. */
  support?: number;
  /** 0–1, shown beside the score; below MIN_CONFIDENCE there is no score. */
  confidence: number;
  status: 'open' | 'closed' | 'sold' | 'withdrawn';
  auctionEndAt: Date | null;
  /** Auctions (with bidding) vs fixed-price listings; only auctions are damped by time left. */
  isAuction: boolean;
  now: Date;
};

export type DealResult = {
  score: number;
  paid: number;
  /** 1 − paid / fair value: how far under (negative: over) the fair value the buyer pays. */
  discount: number;
  /**
   * How likely the machine's market value is above what the buyer pays (after widening and the
   * time-left rule): "9 in 10 similar machines sold for more than this price" at 0.9.
   */
  probabilityUnder: number;
  timeFactor: number;
};

/** Below this confidence the listing gets no score rather than a guess. */
export const MIN_CONFIDENCE = 0;

/** The normal scores of the levels' claims: good at 95%, excellent at 99%, poor at 5%. */
export const GOOD_PROBABILITY = 0.95;
export const EXCELLENT_PROBABILITY = 0.99;
export const POOR_PROBABILITY = 0.05;
const Z_GOOD = normalQuantile(GOOD_PROBABILITY);
const Z_EXCELLENT = normalQuantile(EXCELLENT_PROBABILITY);
const Z_POOR = -normalQuantile(POOR_PROBABILITY);

/**
 * Comparables support (comparablesSupport, 0–1) from which a valuation claims its full
 * distribution; below it the distribution is widened, up to 1 / MIN_SUPPORT_WEIGHT for none.
 */
const FULL_SUPPORT = 0.5;
const MIN_SUPPORT_WEIGHT = 0.8;

/**
 * For an open auction a low bid's claim is weighed by 1 / √(1 + (hours left / 12)²): 0.71 with 12
 * hours left, 0.45 with a day, 0.24 with two. Timed auctions are bid up in their last hours, so
 * a bid far under value a day out is at most a good deal, two days out at most a fair one, while
 * one still low a few hours before the close is the excellent deal a buyer can act on. The
 * score-time-left schedule rescores open auctions as their time runs out, so their alerts fire then.
 */
export const HALF_WEIGHT_HOURS = 12;
/**
 * Beyond this normal score (1 in 30,000) the distribution's tail is an extrapolation: a price 20×
 * under value is no surer a deal than one 4× under (more likely a mistake in the listing), and
 * without the cap such outliers saturate the score before the time-left rule can temper it.
 */
export const MAX_Z = 4;

export function dealLevel(score: number | null): DealLevel | null {
  if (score === null) return null;
  const badge = Math.min(100, Math.max(0, Math.ceil(score / 10)));
  return badge >= 80 ? 'excellent' : badge >= 60 ? 'good' : badge >= 40 ? 'fair' : 'poor';
}

export function paidPrice(price: number, buyersPremiumPct: number | null): number {
  return price * (1 + Math.max(0, buyersPremiumPct ?? 0) / 100);
}

/**
 * The score from the normal score z of "the market value is above the price": 500 at z = 0, the
 * level boundaries exactly at the claims' z (a badge rounds up: 591 is good, 791 excellent, 390
 * and under poor), linear between, levelling off towards 0 and 1000 beyond.
 */
export function scoreFromZ(z: number): number {
  let s: number;
  if (z >= Z_EXCELLENT) s = 791 + 209 * (2 * normalCdf(z - Z_EXCELLENT) - 1);
  else if (z >= Z_GOOD) s = 591 + (199 * (z - Z_GOOD)) / (Z_EXCELLENT - Z_GOOD);
  else if (z >= 0) s = Math.min(590, 500 + (91 * z) / Z_GOOD);
  else if (z > -Z_POOR) s = Math.max(391, 500 + (109 * z) / Z_POOR);
  else s = 390 * 2 * normalCdf(z + Z_POOR);
  return Math.min(1000, Math.max(0, Math.floor(s)));
}

/** How far a valuation's distribution is narrowed (1) or widened (< 1, on the normal-score scale) by its comparables' support. */
export function supportWeight(support: number | undefined): number {
  if (support === undefined) return 1;
  return MIN_SUPPORT_WEIGHT + (1 - MIN_SUPPORT_WEIGHT) * Math.min(1, Math.max(0, support) / FULL_SUPPORT);
}

/** null when there is nothing to score: no price, no usable valuation, or too little confidence. */
export function dealScore(input: DealInput): DealResult | null {
  if (input.price === null || !(input.price > 0)) return null;
  if (!(input.fairValue > 0) || !(input.low > 0) || !(input.high > input.fairValue) || input.low >= input.fairValue) return null;
  if (!(input.confidence >= MIN_CONFIDENCE)) return null;
  const paid = paidPrice(input.price, input.buyersPremiumPct);
  const logFair = Math.log1p(input.fairValue);
  const knots = input.knots ?? knotsFromRange(Math.log1p(input.low) - logFair, Math.log1p(input.high) - logFair);
  // z > 0: the market value is more likely above the price than below it
  const raw = -residualScore(knots, Math.log1p(paid) - logFair) * supportWeight(input.support);
  let z = Math.max(-MAX_Z, Math.min(MAX_Z, raw));
  let timeFactor = 1;
  if (input.isAuction && input.status === 'open' && input.auctionEndAt) {
    const hoursLeft = Math.max(0, (input.auctionEndAt.getTime() - input.now.getTime()) / 3_600_000);
    timeFactor = 1 / Math.sqrt(1 + (hoursLeft / HALF_WEIGHT_HOURS) ** 2);
  }
  // an early low bid is not yet a deal (a high one already is not)
  if (z > 0) z *= timeFactor;
  return { score: scoreFromZ(z), paid, discount: 1 - paid / input.fairValue, probabilityUnder: normalCdf(z), timeFactor };
}
