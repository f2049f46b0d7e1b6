/**
 * The deal score, 0–1000 (the UI shows it divided by 10). 500 means the buyer pays the fair
 * value; paying the low end of the 10–90% range (a price only one such sale in ten beats) scores
 * about 860; paying the high end about 140. The score is pulled towards 500 when the valuation is
 * unsure, and for an open auction a low bid counts for less the longer the auction still runs.
 */
export type DealLevel = 'excellent' | 'good' | 'fair' | 'poor';

export type DealInput = {
  /** What the buyer would pay now before premium (current bid, or asking/starting price). */
  price: number | null;
  buyersPremiumPct: number | null;
  fairValue: number;
  low: number;
  high: number;
  /** 0–1. */
  confidence: number;
  status: 'open' | 'closed' | 'sold' | 'withdrawn';
  auctionEndAt: Date | null;
  /** Auctions (with bidding) vs fixed-price listings; only auctions are damped by time left. */
  isAuction: boolean;
  now: Date;
};

export type DealResult = { score: number; paid: number; discount: number; position: number; timeFactor: number };

/** Below this confidence the listing gets no score rather than a guess. */
export const MIN_CONFIDENCE = 0.15;
/** How steeply the score rises with the position in the range. */
const STEEPNESS = 0.9;
/**
 * Beyond twice the range's width the position stops growing: a price 20× under value is no more
 * certain a deal than one 4× under, and without the cap such outliers saturate the score before
 * confidence and time left can temper it (an opening bid days before the close is not a deal yet).
 */
const MAX_POSITION = 2;
/**
 * An auction with this many hours left counts a low bid at half weight, and the weight falls with
 * the square of the time left beyond it: timed auctions are bid up in their last hours, so a low
 * bid a day out counts at a fifth and two days out at a seventeenth (at most a fair deal), while
 * one still low a few hours before the close is the deal a buyer can act on. The score-time-left
 * schedule rescores open auctions as their time runs out, so their alerts fire then.
 */
const HALF_WEIGHT_HOURS = 12;

export function dealLevel(score: number | null): DealLevel | null {
  if (score === null) return null;
  const badge = Math.min(100, Math.max(0, Math.ceil(score / 10)));
  return badge >= 80 ? 'excellent' : badge >= 60 ? 'good' : badge >= 40 ? 'fair' : 'poor';
}

export function paidPrice(price: number, buyersPremiumPct: number | null): number {
  return price * (1 + Math.max(0, buyersPremiumPct ?? 0) / 100);
}

/** null when there is nothing to score: no price, no usable valuation, or too little confidence. */
export function dealScore(input: DealInput): DealResult | null {
  if (input.price === null || !(input.price > 0)) return null;
  if (!(input.fairValue > 0) || !(input.low > 0) || !(input.high > input.fairValue) || input.low >= input.fairValue) return null;
  if (!(input.confidence >= MIN_CONFIDENCE)) return null;
  const paid = paidPrice(input.price, input.buyersPremiumPct);
  const logGap = Math.log(input.fairValue) - Math.log(paid);
  // position: +1 at the low end of the range, −1 at the high end, 0 at the fair value
  const rawPosition = logGap >= 0 ? logGap / (Math.log(input.fairValue) - Math.log(input.low)) : logGap / (Math.log(input.high) - Math.log(input.fairValue));
  const position = Math.max(-MAX_POSITION, Math.min(MAX_POSITION, rawPosition));
  let timeFactor = 1;
  if (input.isAuction && input.status === 'open' && input.auctionEndAt) {
    const hoursLeft = Math.max(0, (input.auctionEndAt.getTime() - input.now.getTime()) / 3_600_000);
    timeFactor = 1 / (1 + (hoursLeft / HALF_WEIGHT_HOURS) ** 2);
  }
  // unsure valuations stay nearer 500; an early low bid is not yet a deal (a high one already is not)
  const weight = (0.4 + 0.6 * Math.min(1, input.confidence)) * (position > 0 ? timeFactor : 1);
  const score = Math.round(500 + 500 * Math.tanh(STEEPNESS * position * weight));
  return { score: Math.min(1000, Math.max(0, score)), paid, discount: 1 - paid / input.fairValue, position, timeFactor };
}
