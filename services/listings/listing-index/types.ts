/** The index's public types: what it stores per listing, what a query asks, what it reports. */
import type { WeightClass } from '../../valuation/freight.js';
import type { SortOption } from '../listing-schemas.js';

/** A listing as the index needs it (from `listings`; see the sync's load query). */
export type IndexedListing = {
  id: number;
  dealScore: number | null;
  priceUsd: number | null;
  categoryId: number;
  /** Two-letter code as stored. */
  state: string | null;
  /** Lower-cased, as the location filter compares it. */
  city: string | null;
  /** Epoch milliseconds; null when the listing has no end time. */
  endAt: number | null;
  /** Where the lot is (services/shared/geo/); null when it could not be placed. */
  lat: number | null;
  lon: number | null;
  /**
   * What the price delivered needs (issue 30), all optional (mid-size, none, none): the machine's
   * weight class (freight.ts weightClass, from its type and title, computed when the row is read),
   * the buyer's premium the source states (percent) and the fair value (USD), for "worth the trip".
   */
  weightClass?: WeightClass;
  buyersPremiumPct?: number | null;
  fairValue?: number | null;
  /** The search vector's lexemes, each with its best weight (3 = A … 0 = D). */
  lexemes: readonly string[];
  weights: readonly number[];
};

/** One search word: the listing must hold one of these lexemes, or one starting with a prefix. */
export type WordGroup = { exact: readonly string[]; prefixes: readonly string[] };

export type IndexFilter = {
  categoryId?: number;
  minPrice?: number;
  maxPrice?: number;
  state?: string;
  city?: string;
  groups: readonly WordGroup[];
  /**
   * Where the buyer is: with `radiusMiles`, only listings within that distance (distanceMiles,
   * rounded to a tenth) pass; `distance` order sorts by it. Unplaced listings never pass a radius.
   */
  near?: { lat: number; lon: number; radiusMiles?: number };
  /**
   * With `near` only: listings whose delivered total (price + stated premium + the haul's high
   * estimate, delivered-total.ts) is at most this; listings without a price or a place never pass.
   */
  maxDelivered?: number;
  /** With `near` only: listings whose discount under fair value exceeds the haul's high estimate. */
  worthTheTrip?: boolean;
};

export type IndexSort = SortOption;


export type IndexStats = {
  live: number;
  listed: number;
  slots: number;
  dead: number;
  delta: number;
  /** Live slots appended since the load (outside the score-numbered range). */
  unordered: number;
  terms: number;
  bitsetTerms: number;
  approxBytes: number;
};


export type IndexOptions = {
  capacity?: number;
  maxDelta?: number;
  minBitsetPostings?: number;
  /** The distance order scans the candidates (rather than walking places) below this many (tests lower it to 0). */
  distanceScanBelow?: number;
  /** A kept first page of a point's order is rolled forward once this many slots were appended after it (4,096; tests lower it). */
  pastKept?: number;
};
