/**
 * Values one listing and scores the deal: features from the listing, fair value and range from
 * the model, comparables from sales history, confidence from both, then the deal score. Pure:
 * the scorer worker does the reading and writing.
 */
import { comparablesSupport, selectComparables, type ComparableCandidate } from './comparables.js';
import { dealScore } from './deal-score.js';
import type { FairValueModel } from './fair-value-model.js';
import type { ValuationInput } from './features.js';

export type ListingToScore = {
  id: number;
  categoryId: number;
  make: string | null;
  model: string | null;
  modelFamily: string | null;
  year: number | null;
  hours: number | null;
  condition: string | null;
  state: string | null;
  /** Price in USD (what the buyer pays now before premium), null when unknown. */
  priceUsd: number | null;
  buyersPremiumPct: number | null;
  status: 'open' | 'closed' | 'sold' | 'withdrawn';
  auctionEndAt: Date | null;
  bidCount: number;
  attributes?: Record<string, string | number | null>;
};

export type ListingScore = {
  dealScore: number | null;
  fairValue: number | null;
  valueLow: number | null;
  valueHigh: number | null;
  valuationConfidence: number | null;
  comparables: { title: string; price: number; sold_at: string; source: string; url: string | null }[] | null;
  /** Why there is no score, for logs. */
  reason: 'scored' | 'unsupported-type' | 'no-model-or-family' | 'no-comparables' | 'no-price' | 'low-confidence';
};

const NONE: Omit<ListingScore, 'reason'> = {
  dealScore: null,
  fairValue: null,
  valueLow: null,
  valueHigh: null,
  valuationConfidence: null,
  comparables: null,
};

export function listingValuationInput(listing: ListingToScore, now: Date): ValuationInput {
  return {
    categoryId: listing.categoryId,
    make: listing.make,
    model: listing.model,
    modelFamily: listing.modelFamily,
    year: listing.year,
    hours: listing.hours,
    condition: listing.condition,
    state: listing.state,
    saleChannel: 'auction',
    soldAt: listing.auctionEndAt && listing.auctionEndAt > now ? listing.auctionEndAt : now,
    attributes: listing.attributes ?? {},
  };
}

/** A wide range means an unsure value: full weight up to a 10–90% range of ×1.8, less beyond. */
export function rangeFactor(low: number, high: number): number {
  const width = Math.log(high / low);
  return Math.min(1, Math.max(0.2, 1.6 - width));
}

const round2 = (v: number) => Math.round(v * 100) / 100;
const roundMoney = (v: number) => Math.round(v);

export function scoreListing(listing: ListingToScore, model: FairValueModel, candidates: ComparableCandidate[], now: Date): ListingScore {
  const knownTypes = model.data.vocabulary.category ?? [];
  if (!knownTypes.includes(String(listing.categoryId))) return { ...NONE, reason: 'unsupported-type' };
  if (!listing.model && !listing.modelFamily) return { ...NONE, reason: 'no-model-or-family' };
  const ranked = selectComparables(listing, candidates, now, 5);
  if (ranked.length === 0) return { ...NONE, reason: 'no-comparables' };
  const input = listingValuationInput(listing, now);
  const valuation = model.value(model.withTypicalAttributes({ ...input, soldAt: model.valuationDate(input.soldAt) }));
  const confidence = round2(comparablesSupport(ranked) * rangeFactor(valuation.low, valuation.high));
  const base: Omit<ListingScore, 'reason' | 'dealScore'> = {
    fairValue: roundMoney(valuation.fairValue),
    valueLow: roundMoney(valuation.low),
    valueHigh: roundMoney(valuation.high),
    valuationConfidence: confidence,
    comparables: ranked.map((c) => ({ title: c.title, price: c.price, sold_at: c.soldAt.toISOString(), source: c.source, url: c.url })),
  };
  const deal = dealScore({
    price: listing.priceUsd,
    buyersPremiumPct: listing.buyersPremiumPct,
    fairValue: valuation.fairValue,
    low: valuation.low,
    high: valuation.high,
    confidence,
    status: listing.status,
    auctionEndAt: listing.auctionEndAt,
    isAuction: listing.auctionEndAt !== null || listing.bidCount > 0,
    now,
  });
  if (!deal) return { ...base, dealScore: null, reason: listing.priceUsd === null ? 'no-price' : 'low-confidence' };
  return { ...base, dealScore: deal.score, reason: 'scored' };
}
