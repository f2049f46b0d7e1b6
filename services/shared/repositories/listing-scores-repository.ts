/**
 * SQL for the scorer: read what a listing's valuation needs, write its score and valuation
 * (the only writer of those columns), and list listings to rescore after a new model.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { listings, sources, type Comparable } from '../../../db/schema/index.js';
import type { ListingToScore } from '../../valuation/score-listing.js';
import type { DbOrTx } from '../database/db.js';

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
};

export async function writeListingScore(db: DbOrTx, id: number, score: ListingScoreWrite): Promise<void> {
  await db.update(listings).set(score).where(eq(listings.id, id));
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
 * time left tempers the score) and with their time left shrunk by more than a fifth since they
 * were scored. So a 10-day lot is looked at again after two days, a lot ending in an hour after
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
      AND price_usd < fair_value
      AND (auction_end_at - ${at}::timestamptz) < 0.8 * (auction_end_at - scored_at)
    ORDER BY id
    LIMIT ${limit}
  `)) as unknown as Array<{ id: number }>;
  return rows.map((r) => r.id);
}
