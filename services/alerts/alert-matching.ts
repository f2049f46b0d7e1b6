/**
 * Whether a listing satisfies an alert — the rule the matcher's SQL applies set-wise
 * (alerts-repository.ts `MATCH_SQL`). Kept as a pure function so the rule is stated once in
 * readable form and tests can check the SQL against it on random data.
 */
import type { AlertCriteria } from './alert-rules.js';

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
};

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

export function alertMatches(
  alert: Pick<AlertCriteria, 'categoryId' | 'priceMin' | 'priceMax' | 'state' | 'condition' | 'minDealScore' | 'keywordTerms' | 'isActive'>,
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
  if (alert.minDealScore !== null && (listing.dealScore === null || badgeScore(listing.dealScore) < alert.minDealScore)) return false;
  if (alert.keywordTerms && alert.keywordTerms.length > 0) {
    const haystack = keywordHaystack(listing);
    if (!alert.keywordTerms.every((term) => haystack.includes(term))) return false;
  }
  return true;
}
