/** The index's public types: what it stores per listing, what a query asks, what it reports. */
import type { SortOption } from '../listing-schemas.js';

export type { IndexedListing } from '../../shared/repositories/listing-index-repository.js';

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
