/** The index's public types: what it stores per listing, what a query asks, what it reports. */
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
};
