/**
 * SQL for reading listings: the list route's cards by id and its typo corrections (which listings
 * and in what order come from the in-memory index, services/listings/listing-index.ts), the
 * detail (by id or slug, with images and price history) and the categories. Writing listings
 * from crawls belongs to the crawler.
 *
 * Typo correction looks query words up in the `listing_search_terms` lexicon of migration 0003
 * by trigram similarity.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../database/db.js';
import { executePrepared } from '../database/prepared.js';
import { intArray } from '../database/sql-arrays.js';
import type { ListingStatus, StoredBidLimits } from '../../../db/schema/listings.js';

/** The row the repository reads for a card (numbers already numbers). */
export type ListingRow = {
  id: number;
  slug: string;
  title: string;
  make: string | null;
  model: string | null;
  year: number | null;
  price: number | null;
  currentBid: number | null;
  dealScore: number | null;
  currency: string;
  city: string | null;
  state: string | null;
  /** ISO 8601 UTC. */
  auctionEndAt: string | null;
  firstImageUrl: string | null;
  imageCount: number;
  categoryId: number;
  categoryName: string;
  sourceId: number;
  sourceName: string;
  originalUrl: string;
  lat: number | null;
  lon: number | null;
  geoPrecision: 'zip' | 'city' | 'state' | 'none' | null;
  /** The price in USD (what the list filters, sorts and totals delivered by). */
  priceUsd?: number | null;
  /** The buyer's premium the source states (percent), or null. */
  buyersPremiumPct: number | null;
  /** The Good bid limit stored with the score (listings.good_bid_limit). */
  goodBidLimit: number | null;
};

/** The row the repository reads for the deal page (a card's row and the valuation's columns). */
export type DetailRow = ListingRow & {
  description: string;
  hours: number | null;
  condition: string | null;
  status: ListingStatus;
  bidCount: number;
  fairValue: number | null;
  valueLow: number | null;
  valueHigh: number | null;
  valuationConfidence: number | null;
  comparables: unknown;
  scoreReason: string | null;
  /** YYYY-MM-DD. */
  valuationAsOf: string | null;
  /** YYYY-MM: the month of the latest sales its model's market level rests on (model_versions.metrics). */
  marketAsOf?: string | null;
  /** The price the score is on (USD), for the claim sentence. */
  priceUsd?: number | null;
  /** Stored with the score (null when unscored or not open), and when it was scored (ISO 8601). */
  bidLimits: StoredBidLimits | null;
  scoredAt: string | null;
};

/** How close a make/model word must be to a query word to be taken as its correction. */
const MIN_CORRECTION_SIMILARITY = 0.45;
const MAX_CORRECTIONS = 2;

/**
 * For each query word that is not itself a make/model word, the closest make/model words by
 * trigram similarity ("catterpillar" → "caterpillar"). One round trip for all words.
 */
export async function findSearchCorrections(db: DbOrTx, words: string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>();
  const query = searchCorrectionsQuery(words);
  if (!query) return result;
  const rows = await executePrepared<{ word: string; corrections: string[] }>(db, query);
  for (const row of rows) if (row.corrections.length > 0) result.set(row.word, row.corrections);
  return result;
}

/** The corrections' query, or undefined when no word is long enough to correct (exported for the benchmark's EXPLAIN). */
export function searchCorrectionsQuery(words: string[]): SQL | undefined {
  const candidates = words.filter((w) => w.length >= 4 && /[a-z]/.test(w));
  if (candidates.length === 0) return undefined;
  return sql`
    SELECT w.word, array(
      SELECT t.term FROM listing_search_terms t
      WHERE t.term % w.word AND similarity(t.term, w.word) >= ${MIN_CORRECTION_SIMILARITY}
      ORDER BY similarity(t.term, w.word) DESC, t.term
      LIMIT ${MAX_CORRECTIONS}
    ) AS corrections
    FROM unnest(string_to_array(${candidates.join(' ')}, ' ')) AS w(word)
    WHERE NOT EXISTS (SELECT 1 FROM listing_search_terms e WHERE e.term = w.word)`;
}

/** ISO 8601 UTC text (the driver hands timestamps over as PostgreSQL text otherwise). */
const isoTime = (column: SQL) => sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const CARD_COLUMNS = sql`
  l.id, l.slug, l.title, l.make, l.model, l.year,
  l.price::float8 AS price, l.current_bid::float8 AS "currentBid", l.deal_score AS "dealScore",
  l.currency, l.city, l.state, ${isoTime(sql`l.auction_end_at`)} AS "auctionEndAt",
  l.first_image_url AS "firstImageUrl", l.image_count AS "imageCount",
  c.id AS "categoryId", c.name AS "categoryName", s.id AS "sourceId", s.display_name AS "sourceName",
  l.original_url AS "originalUrl", l.lat, l.lon, l.geo_precision AS "geoPrecision",
  l.price_usd::float8 AS "priceUsd", l.buyers_premium_pct::float8 AS "buyersPremiumPct", l.good_bid_limit AS "goodBidLimit"`;

/** The cards of some listings, in no particular order (the caller orders them as the index did). */
export async function listCardsByIds(db: DbOrTx, ids: number[]): Promise<ListingRow[]> {
  if (ids.length === 0) return [];
  return executePrepared<ListingRow>(db, cardsByIdsQuery(ids));
}

/** The page's read (exported so the benchmark can EXPLAIN exactly what runs). */
export function cardsByIdsQuery(ids: number[]): SQL {
  return sql`
    SELECT ${CARD_COLUMNS}
    FROM listings l
    JOIN categories c ON c.id = l.category_id
    JOIN sources s ON s.id = l.source_id
    WHERE l.id = ANY(${intArray(ids)})`;
}

/** A listing by numeric id or slug, whatever its status (ended lots stay reachable). */
export async function findListingDetail(db: DbOrTx, key: { id: number } | { slug: string }): Promise<DetailRow | undefined> {
  const where = 'id' in key ? sql`l.id = ${key.id}` : sql`l.slug = ${key.slug}`;
  const rows = await executePrepared<DetailRow>(db, sql`
    SELECT ${CARD_COLUMNS},
      l.description, l.hours, l.condition, l.status, l.bid_count AS "bidCount",
      l.fair_value::float8 AS "fairValue", l.value_low::float8 AS "valueLow", l.value_high::float8 AS "valueHigh",
      l.valuation_confidence AS "valuationConfidence", l.comparables,
      l.score_reason AS "scoreReason", l.valuation_as_of::text AS "valuationAsOf",
      (SELECT mv.metrics->>'marketAsOf' FROM model_versions mv WHERE mv.version = l.model_version) AS "marketAsOf",
      l.bid_limits AS "bidLimits", ${isoTime(sql`l.scored_at`)} AS "scoredAt"
    FROM listings l
    JOIN categories c ON c.id = l.category_id
    JOIN sources s ON s.id = l.source_id
    WHERE ${where}
  `);
  return rows[0];
}

const MAX_IMAGES = 50;
const MAX_HISTORY_POINTS = 500;

export async function listListingImageUrls(db: DbOrTx, listingId: number): Promise<string[]> {
  const rows = await executePrepared<{ url: string }>(db, sql`
    SELECT url FROM listing_images WHERE listing_id = ${listingId} ORDER BY position LIMIT ${MAX_IMAGES}
  `);
  return rows.map((r) => r.url);
}

/** The most recent observations (bounded), for the price history; the caller orders them. */
export async function listPriceObservations(db: DbOrTx, listingId: number): Promise<Array<{ observedAt: string; price: number | null }>> {
  return executePrepared<{ observedAt: string; price: number | null }>(db, sql`
    SELECT ${isoTime(sql`observed_at`)} AS "observedAt", price::float8 AS price
    FROM price_observations WHERE listing_id = ${listingId}
    ORDER BY observed_at DESC, id DESC LIMIT ${MAX_HISTORY_POINTS}
  `);
}

/** The ten equipment types then Other, in their fixed order. */
export async function listCategories(db: DbOrTx): Promise<Array<{ id: number; name: string }>> {
  const rows = (await db.execute(sql`SELECT id, name FROM categories ORDER BY position, id`)) as unknown as Array<{
    id: number;
    name: string;
  }>;
  return rows;
}
