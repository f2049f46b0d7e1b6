/**
 * Stores normalised listings idempotently per (source, external id). In one transaction per lot:
 * insert or update the listing (slug fixed at insert), replace its images when they changed,
 * append a price observation when price, bid, bid count or status changed, and record the sale
 * when the lot closed with a final price. Re-storing an unchanged lot only touches `last_seen_at`.
 * Score columns are never written here: they belong to the scorer.
 */
import { and, asc, eq, gt, inArray, lte, sql } from 'drizzle-orm';
import { listingImages, listings, priceObservations, soldResults } from '../../../db/schema/listings.js';
import type { Db, DbOrTx } from '../../shared/database/db.js';
import { listingSlug } from '../../shared/slug.js';
import type { NormalizedListing } from '../normalize/listing.js';

export type StoreOutcome = 'new' | 'updated' | 'unchanged';

export type StoredListing = {
  listingId: number;
  externalId: string;
  outcome: StoreOutcome;
  /** Identifies this change for the scoring job id (observation id or content hash). */
  version: string;
};

function listingColumns(l: NormalizedListing) {
  return {
    title: l.title,
    make: l.make,
    model: l.model,
    modelFamily: l.modelFamily,
    year: l.year,
    hours: l.hours,
    condition: l.condition,
    description: l.description,
    categoryId: l.categoryId,
    city: l.city,
    state: l.state,
    country: l.country,
    currency: l.currency,
    askingPrice: l.askingPrice,
    currentBid: l.currentBid,
    bidCount: l.bidCount,
    price: l.price,
    priceUsd: l.priceUsd,
    buyersPremiumPct: l.buyersPremiumPct,
    status: l.status,
    auctionEndAt: l.auctionEndAt,
    originalUrl: l.originalUrl,
    imageCount: l.images.length,
    firstImageUrl: l.images[0] ?? null,
    contentHash: l.contentHash,
  };
}

async function replaceImages(tx: DbOrTx, listingId: number, images: string[]): Promise<void> {
  await tx.delete(listingImages).where(eq(listingImages.listingId, listingId));
  if (images.length > 0) await tx.insert(listingImages).values(images.map((url, position) => ({ listingId, position, url })));
}

async function observe(tx: DbOrTx, listingId: number, l: NormalizedListing): Promise<number> {
  const [row] = await tx
    .insert(priceObservations)
    .values({ listingId, price: l.price, currentBid: l.currentBid, bidCount: l.bidCount, status: l.status })
    .returning({ id: priceObservations.id });
  return row!.id;
}

async function recordSale(tx: DbOrTx, listingId: number, sourceName: string, l: NormalizedListing): Promise<void> {
  if (l.status !== 'sold' || l.soldPrice === null || l.soldPrice <= 0) return;
  const values = {
    origin: `crawl:${sourceName}`,
    externalId: l.externalId,
    listingId,
    title: l.title,
    make: l.make,
    model: l.model,
    modelFamily: l.modelFamily,
    year: l.year,
    hours: l.hours,
    condition: l.condition,
    categoryId: l.categoryId,
    state: l.state,
    saleChannel: 'online auction',
    soldAt: l.auctionEndAt ?? new Date(),
    price: l.soldPrice,
    currency: l.currency,
    url: l.originalUrl,
    attributes: { bid_count: l.bidCount, buyers_premium_pct: l.buyersPremiumPct },
  };
  await tx
    .insert(soldResults)
    .values(values)
    .onConflictDoUpdate({ target: [soldResults.origin, soldResults.externalId], set: { price: values.price, soldAt: values.soldAt, listingId } });
}

/** Stores one lot; safe to repeat (a crashed attempt left nothing, a finished one is unchanged). */
export async function storeListing(db: Db, source: { id: number; name: string }, l: NormalizedListing, raw: unknown): Promise<StoredListing> {
  // Most lots of a re-crawl are unchanged: one statement, no transaction.
  const [same] = await db
    .update(listings)
    .set({ lastSeenAt: sql`now()` })
    .where(and(eq(listings.sourceId, source.id), eq(listings.externalId, l.externalId), eq(listings.contentHash, l.contentHash)))
    .returning({ id: listings.id });
  if (same) return { listingId: same.id, externalId: l.externalId, outcome: 'unchanged', version: `h-${l.contentHash.slice(0, 20)}` };
  return db.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(listings)
      .values({
        sourceId: source.id,
        externalId: l.externalId,
        slug: listingSlug(l.title, source.name, l.externalId),
        ...listingColumns(l),
        rawPayload: raw,
      })
      .onConflictDoNothing({ target: [listings.sourceId, listings.externalId] })
      .returning({ id: listings.id });
    if (inserted) {
      if (l.images.length > 0) await replaceImages(tx, inserted.id, l.images);
      const observationId = await observe(tx, inserted.id, l);
      await recordSale(tx, inserted.id, source.name, l);
      return { listingId: inserted.id, externalId: l.externalId, outcome: 'new', version: `obs-${observationId}` };
    }

    const [current] = await tx
      .select({
        id: listings.id,
        contentHash: listings.contentHash,
        price: listings.price,
        currentBid: listings.currentBid,
        bidCount: listings.bidCount,
        status: listings.status,
        firstImageUrl: listings.firstImageUrl,
        imageCount: listings.imageCount,
      })
      .from(listings)
      .where(and(eq(listings.sourceId, source.id), eq(listings.externalId, l.externalId)))
      .for('update');
    if (!current) throw new Error(`listing ${source.name}/${l.externalId} vanished during upsert`);
    if (current.contentHash === l.contentHash) {
      await tx.update(listings).set({ lastSeenAt: sql`now()` }).where(eq(listings.id, current.id));
      return { listingId: current.id, externalId: l.externalId, outcome: 'unchanged', version: `h-${l.contentHash.slice(0, 20)}` };
    }
    await tx
      .update(listings)
      .set({ ...listingColumns(l), rawPayload: raw, lastSeenAt: sql`now()`, updatedAt: sql`now()` })
      .where(eq(listings.id, current.id));
    const existingImages = await tx.select({ url: listingImages.url }).from(listingImages).where(eq(listingImages.listingId, current.id)).orderBy(asc(listingImages.position));
    if (existingImages.map((i) => i.url).join('\n') !== l.images.join('\n')) await replaceImages(tx, current.id, l.images);
    const priceChanged =
      current.price !== l.price || current.currentBid !== l.currentBid || current.bidCount !== l.bidCount || current.status !== l.status;
    let version = `h-${l.contentHash.slice(0, 20)}`;
    if (priceChanged) version = `obs-${await observe(tx, current.id, l)}`;
    await recordSale(tx, current.id, source.name, l);
    return { listingId: current.id, externalId: l.externalId, outcome: 'updated', version };
  });
}

/** For dry runs: what storing would do, without writing. */
export async function previewListings(db: DbOrTx, sourceId: number, batch: NormalizedListing[]): Promise<StoreOutcome[]> {
  if (batch.length === 0) return [];
  const rows = await db
    .select({ externalId: listings.externalId, contentHash: listings.contentHash })
    .from(listings)
    .where(and(eq(listings.sourceId, sourceId), inArray(listings.externalId, batch.map((l) => l.externalId))));
  const hashes = new Map(rows.map((r) => [r.externalId, r.contentHash]));
  return batch.map((l) => (!hashes.has(l.externalId) ? 'new' : hashes.get(l.externalId) === l.contentHash ? 'unchanged' : 'updated'));
}

/** Open lots of a source ending within `withinMs`: the ending-soon re-check list. */
export async function listEndingSoon(db: DbOrTx, sourceId: number, withinMs: number, limit = 5000) {
  return db
    .select({ externalId: listings.externalId, originalUrl: listings.originalUrl })
    .from(listings)
    .where(
      and(
        eq(listings.sourceId, sourceId),
        eq(listings.status, 'open'),
        gt(listings.auctionEndAt, sql`now() - interval '1 hour'`),
        lte(listings.auctionEndAt, sql`now() + make_interval(secs => ${withinMs / 1000})`),
      ),
    )
    .orderBy(asc(listings.auctionEndAt))
    .limit(limit);
}

export async function countSourceListings(db: DbOrTx, sourceId: number): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(listings).where(eq(listings.sourceId, sourceId));
  return row?.n ?? 0;
}
