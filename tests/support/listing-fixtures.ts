/**
 * Inserts sources, listings, images and price observations directly, for the Listings API tests
 * (the crawler owns writing listings in the product). Defaults are an open, unscored lot.
 */
import { sql } from 'drizzle-orm';
import { listingImages, listings, priceObservations, sources } from '../../db/schema/index.js';
import type { Db } from '../../services/shared/database/db.js';
import { listingSlug } from '../../services/shared/slug.js';

export type ListingFixture = Partial<typeof listings.$inferInsert> & { title: string; images?: string[] };

let counter = 0;

export async function insertSource(db: Db, name = `site${++counter}`, displayName = `Site ${counter}`): Promise<{ id: number; name: string }> {
  const [row] = await db
    .insert(sources)
    .values({ name, displayName, baseUrl: `http://127.0.0.1/${name}` })
    .returning({ id: sources.id, name: sources.name });
  return row!;
}

/** Inserts listings of one source; returns them with their ids and slugs, in input order. */
export async function insertListings(
  db: Db,
  source: { id: number; name: string },
  fixtures: ListingFixture[],
): Promise<Array<typeof listings.$inferSelect>> {
  const out: Array<typeof listings.$inferSelect> = [];
  for (const f of fixtures) {
    const externalId = f.externalId ?? `ext-${++counter}`;
    const price = f.price !== undefined ? f.price : (f.currentBid ?? f.askingPrice ?? null);
    const { images, ...rest } = f;
    const [row] = await db
      .insert(listings)
      .values({
        sourceId: source.id,
        externalId,
        slug: listingSlug(f.title, source.name, externalId),
        categoryId: 11,
        originalUrl: `http://127.0.0.1/${source.name}/lot/${externalId}`,
        auctionEndAt: new Date(Date.now() + 3 * 24 * 3600 * 1000),
        ...rest,
        price,
        priceUsd: f.priceUsd !== undefined ? f.priceUsd : price,
        imageCount: f.imageCount ?? images?.length ?? 0,
        firstImageUrl: f.firstImageUrl !== undefined ? f.firstImageUrl : (images?.[0] ?? null),
      })
      .returning();
    if (images && images.length > 0) {
      await db.insert(listingImages).values(images.map((url, position) => ({ listingId: row!.id, position, url })));
    }
    out.push(row!);
  }
  return out;
}

export async function insertPriceObservations(
  db: Db,
  listingId: number,
  points: Array<{ observedAt: Date; price: number | null; currentBid?: number | null; bidCount?: number }>,
): Promise<void> {
  await db.insert(priceObservations).values(
    points.map((p) => ({
      listingId,
      observedAt: p.observedAt,
      price: p.price,
      currentBid: p.currentBid ?? null,
      bidCount: p.bidCount ?? 0,
      status: 'open' as const,
    })),
  );
}

export async function clearListings(db: Db): Promise<void> {
  await db.execute(sql`TRUNCATE listings, listing_images, price_observations RESTART IDENTITY CASCADE`);
}
