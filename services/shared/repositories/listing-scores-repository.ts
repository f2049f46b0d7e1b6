/**
 * SQL for the scorer: read what a listing's valuation needs, write its score and valuation
 * (the only writer of those columns), and list listings to rescore after a new model.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { listings, type Comparable } from '../../../db/schema/index.js';
import type { ListingToScore } from '../../valuation/score-listing.js';
import type { DbOrTx } from '../database/db.js';

/** What the scorer needs of a listing, plus the stored fields it compares against. */
export type ListingForScoring = Omit<ListingToScore, 'attributes'> & {
  currency: string;
  price: number | null;
  dealScore: number | null;
  modelVersion: number | null;
};

export async function getListingForScoring(db: DbOrTx, id: number): Promise<ListingForScoring | null> {
  const [row] = await db
    .select({
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
    })
    .from(listings)
    .where(eq(listings.id, id));
  return row ?? null;
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
