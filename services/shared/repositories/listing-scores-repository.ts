/**
 * SQL for the scorer: read what a listing's valuation needs, write its score and valuation
 * (the only writer of those columns), and list listings to rescore after a new model.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { listings, sources, type Comparable, type StoredBidLimits } from '../../../db/schema/index.js';
import type { DbOrTx } from '../database/db.js';
import { intArray } from '../database/sql-arrays.js';

/** A listing as the valuation reads it (services/valuation/score-listing.ts scores it). */
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
  /** What any adapter's listing carries besides the structured fields (bounded, plain text). */
  title?: string | null;
  description?: string | null;
  /** Miles, for trucks and trailers that state an odometer rather than hours. */
  odometer?: number | null;
  /** The source's slug (`westauction`, `demo`, …). */
  sourceSlug?: string | null;
};

/** What the scorer needs of a listing, plus the stored fields it compares against. */
export type ListingForScoring = Omit<ListingToScore, 'attributes'> & {
  currency: string;
  price: number | null;
  dealScore: number | null;
  modelVersion: number | null;
};

/** Description text the model reads: enough for its words, bounded so one listing cannot bloat a batch. */
const DESCRIPTION_CHARS = 2000;

const scoringColumns = {
  id: listings.id,
  categoryId: listings.categoryId,
  make: listings.make,
  model: listings.model,
  modelFamily: listings.modelFamily,
  year: listings.year,
  hours: listings.hours,
  condition: listings.condition,
  state: listings.state,
  currency: listings.currency,
  price: listings.price,
  priceUsd: listings.priceUsd,
  buyersPremiumPct: listings.buyersPremiumPct,
  status: listings.status,
  auctionEndAt: listings.auctionEndAt,
  bidCount: listings.bidCount,
  dealScore: listings.dealScore,
  modelVersion: listings.modelVersion,
  title: listings.title,
  description: sql<string>`left(${listings.description}, ${DESCRIPTION_CHARS})`,
  sourceSlug: sources.name,
};

export async function getListingForScoring(db: DbOrTx, id: number): Promise<ListingForScoring | null> {
  const [row] = await getListingsForScoring(db, [id]);
  return row ?? null;
}

/** The listings with these ids (those that exist), in id order: one query for a batch rescore. */
export async function getListingsForScoring(db: DbOrTx, ids: number[]): Promise<ListingForScoring[]> {
  if (ids.length === 0) return [];
  return db
    .select(scoringColumns)
    .from(listings)
    .innerJoin(sources, eq(sources.id, listings.sourceId))
    .where(inArray(listings.id, ids))
    .orderBy(listings.id);
}

export type ListingScoreWrite = {
  dealScore: number | null;
  fairValue: number | null;
  valueLow: number | null;
  valueHigh: number | null;
  valuationConfidence: number | null;
  comparables: Comparable[] | null;
  modelVersion: number;
  scoredAt: Date;
  /** The buyer-facing reason there is no score; null when scored. */
  scoreReason: string | null;
  /** YYYY-MM-DD, the valuation's market and dollars; null without a valuation. */
  valuationAsOf: string | null;
  /** The deal score inverted, at the time left when scored; null when unscored or not open. */
  bidLimits?: StoredBidLimits | null;
};

export async function writeListingScore(db: DbOrTx, id: number, score: ListingScoreWrite): Promise<void> {
  await writeListingScores(db, [{ id, ...score }]);
}

/**
 * Writes a batch of scores in one statement: the rows travel as one JSON parameter and are joined
 * back to their listings, so a rescore of a million listings costs a thousand round trips, not a
 * million. A listing deleted meanwhile is simply not matched.
 */
export async function writeListingScores(db: DbOrTx, scores: Array<{ id: number } & ListingScoreWrite>): Promise<void> {
  if (scores.length === 0) return;
  const rows = scores.map((s) => ({
    id: s.id,
    deal_score: s.dealScore,
    fair_value: s.fairValue,
    value_low: s.valueLow,
    value_high: s.valueHigh,
    valuation_confidence: s.valuationConfidence,
    comparables: s.comparables,
    model_version: s.modelVersion,
    scored_at: s.scoredAt.toISOString(),
    score_reason: s.scoreReason,
    valuation_as_of: s.valuationAsOf,
    bid_limits: s.bidLimits ?? null,
    good_bid_limit: s.bidLimits?.good ?? null,
  }));
  await db.execute(sql`
    UPDATE listings AS l SET
      deal_score = r.deal_score,
      fair_value = r.fair_value,
      value_low = r.value_low,
      value_high = r.value_high,
      valuation_confidence = r.valuation_confidence,
      comparables = r.comparables,
      model_version = r.model_version,
      scored_at = r.scored_at,
      score_reason = r.score_reason,
      valuation_as_of = r.valuation_as_of,
      bid_limits = r.bid_limits,
      good_bid_limit = r.good_bid_limit
    FROM json_to_recordset(${JSON.stringify(rows)}::json) AS r(
      id int, deal_score int, fair_value numeric, value_low numeric, value_high numeric,
      valuation_confidence float8, comparables jsonb, model_version int, scored_at timestamptz,
      score_reason text, valuation_as_of date, bid_limits jsonb, good_bid_limit int)
    WHERE l.id = r.id`);
}

/**
 * Listings that arrived before any model was trained: they say so on the deal page until the
 * rescore after the first training values them. Scored listings are left as they are.
 */
export async function markListingsAwaitingModel(db: DbOrTx, ids: number[], reason: string): Promise<void> {
  if (ids.length === 0) return;
  await db.execute(sql`UPDATE listings SET score_reason = ${reason} WHERE id = ANY(${intArray(ids)}) AND model_version IS NULL`);
}

/** Ids of the listings worth (re)scoring: everything not withdrawn, in id order, a page at a time. */
export async function listListingIdsToScore(db: DbOrTx, afterId: number, limit: number): Promise<number[]> {
  const rows = await db
    .select({ id: listings.id })
    .from(listings)
    .where(and(sql`${listings.id} > ${afterId}`, inArray(listings.status, ['open', 'closed', 'sold'])))
    .orderBy(listings.id)
    .limit(limit);
  return rows.map((r) => r.id);
}

/**
 * Open auctions whose score has gone stale with the clock: priced under their fair value (where
 * time left tempers the score), or carrying bid limits (which rise as the close nears, whatever the
 * bid), and with their time left shrunk by more than a fifth since they were scored. So a 10-day lot is looked at again after two days, a lot ending in an hour after
 * twelve minutes: about 30 rescores over a lot's life, whatever its length.
 */
export async function listAuctionIdsDueForTimeRescore(db: DbOrTx, now: Date, afterId: number, limit: number): Promise<number[]> {
  const at = now.toISOString();
  const rows = (await db.execute(sql`
    SELECT id FROM listings
    WHERE id > ${afterId}
      AND status = 'open'
      AND auction_end_at > ${at}::timestamptz
      AND scored_at IS NOT NULL
      AND fair_value IS NOT NULL
      AND (price_usd < fair_value OR bid_limits IS NOT NULL)
      AND (auction_end_at - ${at}::timestamptz) < 0.8 * (auction_end_at - scored_at)
    ORDER BY id
    LIMIT ${limit}
  `)) as unknown as Array<{ id: number }>;
  return rows.map((r) => r.id);
}

/**
 * Ids of the listings worth scoring that the model `version` has not scored (never scored, or
 * by an older model): what a rescore cut off part-way left to do, a page at a time in id order.
 */
export async function listListingIdsNotOnVersion(db: DbOrTx, version: number, afterId: number, limit: number): Promise<number[]> {
  const rows = await db
    .select({ id: listings.id })
    .from(listings)
    .where(
      and(
        sql`${listings.id} > ${afterId}`,
        inArray(listings.status, ['open', 'closed', 'sold']),
        sql`${listings.modelVersion} IS DISTINCT FROM ${version}`,
      ),
    )
    .orderBy(listings.id)
    .limit(limit);
  return rows.map((r) => r.id);
}

/** Listings worth scoring, by the model version that scored them (`none`: not yet scored). */
export async function countListingsByModelVersion(db: DbOrTx): Promise<Record<string, number>> {
  const rows = (await db.execute(sql`
    SELECT coalesce(model_version::text, 'none') AS version, count(*)::int AS n FROM listings
    WHERE status IN ('open', 'closed', 'sold') GROUP BY 1`)) as unknown as Array<{ version: string; n: number }>;
  return Object.fromEntries(rows.map((r) => [r.version, Number(r.n)]));
}
