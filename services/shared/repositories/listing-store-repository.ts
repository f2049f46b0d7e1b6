/**
 * Stores normalised listings idempotently per (source, external id). In one transaction per lot:
 * insert a new lot (slug fixed at insert), or merge what the response carries into the stored
 * one (fields it does not carry keep their values — see mergeLot), replace its images when they
 * changed, append a price observation when price, bid, bid count or status changed, and record
 * the sale when the lot closed with a final price. Re-storing an unchanged lot only touches
 * `last_seen_at`. A partial update (bids, a gallery) merges the same way but never inserts.
 * Score columns are never written here: they belong to the scorer.
 */
import { and, asc, eq, gt, inArray, lte, sql } from 'drizzle-orm';
import { listingImages, listings, priceObservations, soldResults } from '../../../db/schema/listings.js';
import type { Db, DbOrTx } from '../database/db.js';
import { listingSlug } from '../slug.js';
import { mergeLot, placeListing, type LotPatch, type NormalizedListing } from '../lots/normalize-listing.js';

export type StoreOutcome = 'new' | 'updated' | 'unchanged';

/** One lot as a response gave it: normalised (for a new lot) and as scraped (to merge into a stored one). */
export type LotWrite = { listing: NormalizedListing; lot: LotPatch; pageUrl: string; fetchedAt: Date };

/** One partial update of a lot, as scraped. */
export type LotUpdateWrite = { lot: LotPatch; pageUrl: string; fetchedAt: Date };

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
    zip: l.zip,
    ...placeListing(l),
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

async function observe(tx: DbOrTx, listingId: number, l: Pick<NormalizedListing, 'price' | 'currentBid' | 'bidCount' | 'status'>): Promise<number> {
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
    // the source and the start of the description: the valuation finds online lots' nearest sales by their words
    attributes: { source: sourceName, bid_count: l.bidCount, buyers_premium_pct: l.buyersPremiumPct, description: l.description ? l.description.slice(0, 600) : null },
  };
  await tx
    .insert(soldResults)
    .values(values)
    .onConflictDoUpdate({ target: [soldResults.origin, soldResults.externalId], set: { price: values.price, soldAt: values.soldAt, listingId } });
}

/** Stores one lot; safe to repeat (a crashed attempt left nothing, a finished one is unchanged). */
export async function storeListing(db: Db, source: { id: number; name: string }, write: LotWrite, raw: unknown): Promise<StoredListing> {
  const l = write.listing;
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
    const merged = await mergeIntoStored(tx, source, { ...write, lot: { ...write.lot, externalId: l.externalId } }, raw, 'replace');
    if (!merged) throw new Error(`listing ${source.name}/${l.externalId} vanished during upsert`);
    return merged;
  });
}

/**
 * Merges a partial update into the stored lot; null when the lot is not stored (an update never
 * creates a listing: it would be half-filled). Safe to repeat.
 */
export async function applyLotUpdate(db: Db, source: { id: number; name: string }, update: LotUpdateWrite, raw: unknown): Promise<StoredListing | null> {
  return db.transaction((tx) => mergeIntoStored(tx, source, update, raw, 'partial'));
}

/** The stored lot as a normalised listing (the base a response is merged onto), with its row's hash and id; locked for update unless `lock` is false (a preview). */
async function loadStoredLot(tx: DbOrTx, source: { id: number; name: string }, externalId: string, lock = true) {
  const query = tx
    .select()
    .from(listings)
    .where(and(eq(listings.sourceId, source.id), eq(listings.externalId, externalId)));
  const [row] = lock ? await query.for('update') : await query;
  if (!row) return null;
  const images = await tx.select({ url: listingImages.url }).from(listingImages).where(eq(listingImages.listingId, row.id)).orderBy(asc(listingImages.position));
  let soldPrice: number | null = null;
  if (row.status === 'sold') {
    const [sale] = await tx
      .select({ price: soldResults.price })
      .from(soldResults)
      .where(and(eq(soldResults.origin, `crawl:${source.name}`), eq(soldResults.externalId, externalId)));
    soldPrice = sale?.price ?? null;
  }
  const stored: Omit<NormalizedListing, 'contentHash'> = {
    externalId: row.externalId,
    title: row.title,
    description: row.description,
    make: row.make,
    model: row.model,
    modelFamily: row.modelFamily,
    year: row.year,
    hours: row.hours,
    condition: row.condition,
    categoryId: row.categoryId,
    city: row.city,
    state: row.state,
    zip: row.zip,
    country: row.country,
    currency: row.currency,
    askingPrice: row.askingPrice,
    currentBid: row.currentBid,
    bidCount: row.bidCount,
    price: row.price,
    priceUsd: row.priceUsd,
    buyersPremiumPct: row.buyersPremiumPct,
    status: row.status,
    auctionEndAt: row.auctionEndAt,
    originalUrl: row.originalUrl,
    images: images.map((i) => i.url),
    soldPrice,
  };
  return { id: row.id, contentHash: row.contentHash, stored };
}

/**
 * Merges what one response carries into the stored lot and writes the difference. `replace`: the
 * raw payload becomes this response's (a full lot); `partial`: it is kept and this response is
 * added under `partial` (so a re-parse still finds the bids or gallery). A full response keeps
 * the last partial one too.
 */
async function mergeIntoStored(
  tx: DbOrTx,
  source: { id: number; name: string },
  write: LotUpdateWrite,
  raw: unknown,
  rawMode: 'replace' | 'partial',
): Promise<StoredListing | null> {
  const current = await loadStoredLot(tx, source, write.lot.externalId);
  if (!current) return null;
  const l = mergeLot(current.stored, write.lot, write.pageUrl, write.fetchedAt);
  if (current.contentHash === l.contentHash) {
    await tx.update(listings).set({ lastSeenAt: sql`now()` }).where(eq(listings.id, current.id));
    return { listingId: current.id, externalId: l.externalId, outcome: 'unchanged', version: `h-${l.contentHash.slice(0, 20)}` };
  }
  const rawJson = JSON.stringify(raw ?? null);
  const rawPayload =
    rawMode === 'partial'
      ? sql`coalesce(${listings.rawPayload}, '{}'::jsonb) || jsonb_build_object('partial', ${rawJson}::jsonb)`
      : sql`${rawJson}::jsonb || case when ${listings.rawPayload} -> 'partial' is not null then jsonb_build_object('partial', ${listings.rawPayload} -> 'partial') else '{}'::jsonb end`;
  await tx
    .update(listings)
    .set({ ...listingColumns(l), rawPayload, lastSeenAt: sql`now()`, updatedAt: sql`now()` })
    .where(eq(listings.id, current.id));
  if (current.stored.images.join('\n') !== l.images.join('\n')) await replaceImages(tx, current.id, l.images);
  const was = current.stored;
  const priceChanged = was.price !== l.price || was.currentBid !== l.currentBid || was.bidCount !== l.bidCount || was.status !== l.status;
  let version = `h-${l.contentHash.slice(0, 20)}`;
  if (priceChanged) version = `obs-${await observe(tx, current.id, l)}`;
  await recordSale(tx, current.id, source.name, l);
  return { listingId: current.id, externalId: l.externalId, outcome: 'updated', version };
}

/**
 * For dry runs: what storeListing would report for each lot, without writing. A lot whose fresh
 * hash differs from the stored one is merged onto it as storing would (a list page's partial lot
 * usually merges to no change), so the counts match a real crawl's.
 */
export async function previewListings(db: DbOrTx, source: { id: number; name: string }, writes: LotWrite[]): Promise<StoreOutcome[]> {
  if (writes.length === 0) return [];
  const hashes = await storedHashes(db, source.id, writes.map((w) => w.listing.externalId));
  const outcomes: StoreOutcome[] = [];
  for (const w of writes) {
    if (!hashes.has(w.listing.externalId)) outcomes.push('new');
    else if (hashes.get(w.listing.externalId) === w.listing.contentHash) outcomes.push('unchanged');
    else outcomes.push((await previewMerge(db, source, { ...w, lot: { ...w.lot, externalId: w.listing.externalId } })) ?? 'new');
  }
  return outcomes;
}

/** For dry runs: what applyLotUpdate would report for each partial update (null: its lot is not stored, the update is dropped). */
export async function previewUpdates(db: DbOrTx, source: { id: number; name: string }, updates: LotUpdateWrite[]): Promise<(StoreOutcome | null)[]> {
  const outcomes: (StoreOutcome | null)[] = [];
  for (const u of updates) outcomes.push(await previewMerge(db, source, u));
  return outcomes;
}

async function storedHashes(db: DbOrTx, sourceId: number, externalIds: string[]): Promise<Map<string, string | null>> {
  const rows = await db
    .select({ externalId: listings.externalId, contentHash: listings.contentHash })
    .from(listings)
    .where(and(eq(listings.sourceId, sourceId), inArray(listings.externalId, externalIds)));
  return new Map(rows.map((r) => [r.externalId, r.contentHash]));
}

/** mergeIntoStored's verdict without its writes (and without its row lock). */
async function previewMerge(db: DbOrTx, source: { id: number; name: string }, write: LotUpdateWrite): Promise<StoreOutcome | null> {
  const current = await loadStoredLot(db, source, write.lot.externalId, false);
  if (!current) return null;
  return mergeLot(current.stored, write.lot, write.pageUrl, write.fetchedAt).contentHash === current.contentHash ? 'unchanged' : 'updated';
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
