import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeListing } from '../../services/shared/lots/normalize-listing.js';
import { backfillListingPlaces } from '../../services/crawler/place-backfill.js';
import { geocode } from '../../services/shared/geo/gazetteer.js';
import { placeSharesBySource } from '../../services/shared/repositories/listing-places-repository.js';
import { storeListing } from '../../services/shared/repositories/listing-store-repository.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';

type Row = { lat: number | null; lon: number | null; geo_precision: string | null; zip: string | null };

describe('listings are placed on the map', () => {
  let ctx: TestContext;
  let source: { id: number; name: string };
  const place = async (id: number) => ((await ctx.database.db.execute(sql`SELECT lat, lon, geo_precision, zip FROM listings WHERE id = ${id}`)) as unknown as Row[])[0]!;

  beforeAll(async () => {
    ctx = await createTestContext();
    source = await insertSource(ctx.database.db, 'placesite', 'Place Site');
  });
  afterAll(async () => ctx.close());

  it('at crawl time, from the ZIP code, else the city, else the state, and again when the lot moves', async () => {
    const store = (lot: Parameters<typeof normalizeListing>[0]) =>
      storeListing(ctx.database.db, source, { listing: normalizeListing(lot, lot.url), lot, pageUrl: lot.url, fetchedAt: new Date() }, null);
    const base = { title: 'Caterpillar 320 Excavator', url: 'http://127.0.0.1/lot/1', askingPrice: 50000 };
    const byZip = await store({ ...base, externalId: 'z1', city: 'Ames', state: 'IA', zip: '50010-2000' });
    expect(await place(byZip.listingId)).toEqual({ lat: 42.0379, lon: -93.6003, geo_precision: 'zip', zip: '50010' });
    const byCity = await store({ ...base, externalId: 'c1', city: 'Des Moines', state: 'Iowa' });
    const desMoines = geocode({ city: 'Des Moines', state: 'IA' })!;
    expect(await place(byCity.listingId)).toMatchObject({ lat: desMoines.lat, lon: desMoines.lon, geo_precision: 'city', zip: null });
    // A ZIP code in another state than the lot's is not trusted: the city is used.
    const wrongZip = await store({ ...base, externalId: 'w1', city: 'Houston', state: 'TX', zip: '50010' });
    expect(await place(wrongZip.listingId)).toMatchObject({ geo_precision: 'city', lat: geocode({ city: 'Houston', state: 'TX' })!.lat });
    const nowhere = await store({ ...base, externalId: 'n1' });
    expect(await place(nowhere.listingId)).toMatchObject({ lat: null, lon: null, geo_precision: 'none' });
    // The lot's page now gives its state: placed at the state's centroid.
    const moved = await store({ ...base, externalId: 'n1', state: 'NE' });
    expect(moved.outcome).toBe('updated');
    expect(await place(nowhere.listingId)).toMatchObject({ geo_precision: 'state', lat: geocode({ state: 'NE' })!.lat });
  });

  it('rows stored before are placed by the backfill, once', async () => {
    const rows = await insertListings(ctx.database.db, source, [
      { title: 'Old lot in Omaha', city: 'Omaha', state: 'NE' },
      { title: 'Old lot in Kansas', state: 'KS' },
      { title: 'Old lot, no place' },
    ]);
    for (const r of rows) expect((await place(r.id)).geo_precision).toBeNull();
    const first = await backfillListingPlaces(ctx.database.db, { batchSize: 2 });
    expect(first).toEqual({ tried: 3, written: 3 });
    expect(await place(rows[0]!.id)).toMatchObject({ geo_precision: 'city', lat: geocode({ city: 'Omaha', state: 'NE' })!.lat });
    expect(await place(rows[1]!.id)).toMatchObject({ geo_precision: 'state' });
    expect(await place(rows[2]!.id)).toMatchObject({ geo_precision: 'none', lat: null });
    expect(await backfillListingPlaces(ctx.database.db)).toEqual({ tried: 0, written: 0 });
    const [share] = (await placeSharesBySource(ctx.database.db)).filter((s) => s.source === 'placesite');
    expect(share).toMatchObject({ listings: 7, zip: 1, city: 3, state: 2, none: 1, untried: 0 });
  });
});
