/** The listings API's shapes (spec §3, §7; PRODUCT.md "Listings"). */
import type { SortBy } from '../config/constants.js';
import type { BidLimits } from './bid-limits.js';

export type NamedRef = { id: number; name: string };

export type AuctionCard = {
  id: number;
  slug: string;
  make_model: string;
  year: number | null;
  price: number | null;
  current_price: number | null;
  deal_score: number | null;
  currency: string | null;
  location: string | null;
  auction_end_date: string | null;
  first_image: string | null;
  image_count: number;
  category: NamedRef | null;
  auction_site: NamedRef | null;
  original_url: string | null;
  /** With near: miles from the buyer's ZIP code (null: the lot cannot be placed). */
  distance_miles?: number | null;
  location_precision?: LocationPrecision | null;
  /** With near: the delivered total with the haul's low and high estimates (null: no price or no place). */
  delivered_total_low?: number | null;
  delivered_total_high?: number | null;
  /** The highest bid still Good at the lot's time left ("Good up to $6,200"); null: unscored or not yet. */
  good_bid_limit?: number | null;
};

export type LocationPrecision = 'zip' | 'city' | 'state';

/** The price delivered to the buyer's ZIP code (issue 30). */
export type Delivered = {
  price: number | null;
  premium: number | null;
  haul_low: number;
  haul_high: number;
  total_low: number | null;
  total_high: number | null;
  distance_miles: number;
  weight_class: string;
  basis: string;
};

export type Pagination = {
  current_page: number;
  total_pages: number;
  total_count: number;
  has_next: boolean;
  has_previous: boolean;
};

export type AuctionListResponse = { data: { items: AuctionCard[]; pagination: Pagination } };

/** `price` (= `adjusted_price`) is in the valuation date's dollars; `original_price` is what it sold for then. */
export type Comparable = {
  title: string;
  price: number;
  original_price?: number | null;
  adjusted_price?: number | null;
  sold_at: string | null;
  source: string | null;
  url: string | null;
};

export type Valuation = {
  /** YYYY-MM-DD: the market and dollars the values are in. */
  as_of?: string | null;
  /** YYYY-MM: the month of the latest sales the market level rests on (carried flat after it). */
  market_as_of?: string | null;
  fair_value: number;
  low: number | null;
  high: number | null;
  /** 0–1. */
  confidence: number | null;
  /** The deal in one sentence: "$3,350 — about 60% under similar sales; 99 in 100 sold for more"; null without a score. */
  claim?: string | null;
  /** Why the fair value lies outside its comparables, or how a lot without a year or comparables was valued. */
  note?: string | null;
  comparables: Comparable[];
};

/** A price observation; price is null while the lot had none (price on request). */
export type PricePoint = { observed_at: string; price: number | null };

export type AuctionDetail = {
  id: number;
  slug?: string;
  make_model: string;
  price: number | null;
  currency?: string | null;
  location: string | null;
  description: string | null;
  images: unknown[];
  auction_end_date: string | null;
  original_url: string | null;
  category: NamedRef | string | null;
  auction_site: NamedRef | string | null;
  deal_score: number | null;
  deal_level?: string | null;
  /** Why there is no deal score (shown where the score would be); null when scored. */
  score_reason?: string | null;
  year?: number | null;
  hours?: number | null;
  condition?: string | null;
  valuation?: Valuation | null;
  price_history?: PricePoint[];
  distance_miles?: number | null;
  location_precision?: LocationPrecision | null;
  delivered?: Delivered | null;
  /** The deal score inverted (issue 38): the most to bid for each level; null when unscored or not open. */
  bid_limits?: BidLimits | null;
};

export type AuctionDetailResponse = { data: AuctionDetail };

export type CategoriesResponse = { data: { categories: NamedRef[] } };

/** Filter state (spec §3) plus sort and page, as kept in the dashboard's URL. */
export type AuctionFilters = {
  category: number | null;
  priceMin: number | null;
  priceMax: number | null;
  location: string;
  searchQuery: string;
  /** The buyer's US ZIP code ('' for none) and the radius around it (null: any distance). */
  nearZip: string;
  radiusMiles: number | null;
  /** With a ZIP code: the highest delivered total (USD, the haul's high estimate); null: any. */
  maxDelivered: number | null;
  /** With a ZIP code: only lots whose discount under fair value exceeds the haul. */
  worthTheTrip: boolean;
};

export type AuctionQuery = AuctionFilters & { sortBy: SortBy; page: number };

export function refName(ref: NamedRef | string | null | undefined): string | null {
  if (!ref) return null;
  return typeof ref === 'string' ? ref : ref.name;
}

/** `GET /api/crawl-status/`: why a new installation's dashboard is empty. */
export type CrawlStatus = {
  enabled_sources: string[];
  first_crawl_running: boolean;
  has_listings: boolean;
};
