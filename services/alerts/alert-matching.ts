/**
 * Whether a listing satisfies an alert — the rule the matcher's SQL applies set-wise
 * (alerts-repository.ts `MATCH_SQL`). Kept as a pure function so the rule is stated once in
 * readable form and tests can check the SQL against it on random data.
 */
import type { AlertDealLevel, NotificationEvent } from '../../db/schema/alerts.js';
import { distanceMiles } from '../shared/geo/distance.js';
import { worthTheTrip } from '../valuation/delivered-price.js';
import { haulEstimate, weightClass } from '../shared/rules/freight-rates.js';
import type { AlertCriteria } from './alert-rules.js';
import { MATERIAL_PRICE_DROP } from '../shared/rules/alert-limits.js';

export { MATERIAL_PRICE_DROP, DEFAULT_DAILY_CAPS, type DailyCaps } from '../shared/rules/alert-limits.js';

export type MatchableListing = {
  categoryId: number;
  priceUsd: number | null;
  state: string | null;
  condition: string | null;
  /** 0–1000 or null when not valued. */
  dealScore: number | null;
  status: string;
  auctionEndAt: Date | null;
  title: string;
  make: string | null;
  model: string | null;
  description: string;
  /** Where the lot is placed (null: not placed; never within a radius). */
  lat: number | null;
  lon: number | null;
  /** The valuation's fair value (USD; null or absent: not valued — never worth the trip). */
  fairValue?: number | null;
};

/** Whether a lot is within the alert's radius of its ZIP code (true when the alert has no radius). */
export function withinRadius(alert: Pick<AlertCriteria, 'nearLat' | 'nearLon' | 'radiusMiles'>, listing: Pick<MatchableListing, 'lat' | 'lon'>): boolean {
  if (alert.radiusMiles === null || alert.nearLat === null || alert.nearLon === null) return true;
  if (listing.lat === null || listing.lon === null) return false;
  return distanceMiles({ lat: alert.nearLat, lon: alert.nearLon }, { lat: listing.lat, lon: listing.lon }) <= alert.radiusMiles;
}

/**
 * "Worth the trip" (issue 30): when the alert asks for it, the lot's discount under its fair value
 * must exceed the haul's high estimate from the alert's ZIP code (its weight class from its type
 * and title, freight.ts). A lot not placed, not valued or without a price is never worth it. True
 * when the alert does not ask. The SQL (alerts-repository.ts) computes the same haul from the
 * weight class the matcher passes in.
 */
export function worthTheTripFor(
  alert: Pick<AlertCriteria, 'worthTheTrip' | 'nearLat' | 'nearLon'>,
  listing: Pick<MatchableListing, 'categoryId' | 'title' | 'priceUsd' | 'fairValue' | 'lat' | 'lon'>,
): boolean {
  if (!alert.worthTheTrip) return true;
  if (alert.nearLat === null || alert.nearLon === null || listing.lat === null || listing.lon === null) return false;
  const miles = distanceMiles({ lat: alert.nearLat, lon: alert.nearLon }, { lat: listing.lat, lon: listing.lon });
  const haul = haulEstimate(weightClass(listing.categoryId, listing.title), miles);
  return worthTheTrip({ price: listing.priceUsd, fairValue: listing.fairValue ?? null }, haul.high);
}

/** The badge the UI shows (spec §4): deal_score / 10 rounded up, clamped to 0–100. */
export function badgeScore(dealScore: number): number {
  return Math.min(100, Math.max(0, Math.ceil(dealScore / 10)));
}

/** Where keywords are looked for: title, make, model and description, lower-cased. */
export function keywordHaystack(listing: Pick<MatchableListing, 'title' | 'make' | 'model' | 'description'>): string {
  return [listing.title, listing.make ?? '', listing.model ?? '', listing.description].join(' ').toLowerCase();
}

/** Only lots a buyer can still act on: open, and not past their end. */
export function isLive(listing: Pick<MatchableListing, 'status' | 'auctionEndAt'>, now: Date): boolean {
  return listing.status === 'open' && (listing.auctionEndAt === null || listing.auctionEndAt.getTime() > now.getTime());
}

/** The lowest badge of each level an alert can ask for (spec §4 levels: 80 excellent, 60 good). */
export const DEAL_LEVEL_MIN_BADGE: Record<AlertDealLevel, number> = { good: 60, excellent: 80 };

/** The badge a listing must reach: the premium minimum when set, else the alert's level. */
export function minimumBadge(alert: Pick<AlertCriteria, 'dealLevel' | 'minDealScore'>): number {
  return alert.minDealScore ?? DEAL_LEVEL_MIN_BADGE[alert.dealLevel];
}

/** 0 not valued, 1 poor, 2 fair, 3 good, 4 excellent: "the deal level going up" compares these. */
export function levelRank(dealScore: number | null): number {
  if (dealScore === null) return 0;
  const badge = badgeScore(dealScore);
  return badge >= 80 ? 4 : badge >= 60 ? 3 : badge >= 40 ? 2 : 1;
}

export const LEVEL_NAMES = ['unscored', 'poor', 'fair', 'good', 'excellent'] as const;

/** What an alert was already told about a listing: the lowest price and the best level notified. */
export type NotifiedBefore = { lowestPrice: number | null; bestRank: number };

/**
 * Which message a matching listing earns (null: none). The first time it is `match`; after
 * that only a material change: `price_drop` when the price is 10% or more below the lowest
 * notified, else `level_up` when its deal level is above every level notified. The key makes
 * each such event unique, so a rerun or a later rescore at the same level sends nothing.
 */
export function notificationEvent(
  before: NotifiedBefore | null,
  listing: Pick<MatchableListing, 'priceUsd' | 'dealScore'>,
): { event: NotificationEvent; key: string } | null {
  if (!before) return { event: 'match', key: '' };
  if (listing.priceUsd !== null && before.lowestPrice !== null && listing.priceUsd <= before.lowestPrice * MATERIAL_PRICE_DROP) {
    return { event: 'price_drop', key: String(listing.priceUsd) };
  }
  const rank = levelRank(listing.dealScore);
  if (rank > before.bestRank) return { event: 'level_up', key: LEVEL_NAMES[rank]! };
  return null;
}

export function alertMatches(
  alert: Pick<
    AlertCriteria,
    | 'categoryId'
    | 'priceMin'
    | 'priceMax'
    | 'state'
    | 'condition'
    | 'dealLevel'
    | 'minDealScore'
    | 'includeUnscored'
    | 'keywordTerms'
    | 'isActive'
    | 'nearLat'
    | 'nearLon'
    | 'radiusMiles'
    | 'worthTheTrip'
  >,
  listing: MatchableListing,
  now: Date,
): boolean {
  if (!alert.isActive || !isLive(listing, now)) return false;
  if (alert.categoryId !== listing.categoryId) return false;
  // A bound needs a price to compare with: an unpriced lot only matches alerts without bounds.
  if (alert.priceMin !== null && (listing.priceUsd === null || listing.priceUsd < alert.priceMin)) return false;
  if (alert.priceMax !== null && (listing.priceUsd === null || listing.priceUsd > alert.priceMax)) return false;
  if (alert.state !== null && alert.state !== listing.state) return false;
  if (alert.condition !== null && alert.condition !== listing.condition) return false;
  if (!withinRadius(alert, listing)) return false;
  if (!worthTheTripFor(alert, listing)) return false;
  // Deals only: a valued lot must reach the alert's level; an unvalued one matches only by opt-in.
  if (listing.dealScore === null ? !alert.includeUnscored : badgeScore(listing.dealScore) < minimumBadge(alert)) return false;
  if (alert.keywordTerms && alert.keywordTerms.length > 0) {
    const haystack = keywordHaystack(listing);
    if (!alert.keywordTerms.every((term) => haystack.includes(term))) return false;
  }
  return true;
}
