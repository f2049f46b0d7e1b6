/**
 * Deals near you (issue 30) on the list and detail routes: `near` (a ZIP code), `radius_miles` and
 * `sort_by=distance`, answered by the in-memory index and checked against a SQL reference (the
 * database's own geo_distance_miles over the same rows), on lots placed by ZIP code, city and state.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import type { Db } from '../../services/shared/database/db.js';
import { geocode, lookupZip } from '../../services/shared/geo/gazetteer.js';
import { seededRandom } from '../../services/shared/seeded-random.js';
import { createTestApp } from '../support/app.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';

type Card = { id: number; distance_miles?: number | null; location_precision?: string | null; deal_score: number | null };
type Page = { data: { items: Card[]; pagination: { total_count: number; has_next: boolean } } };

/** Real places: lots by ZIP code, by city, by state only, and unplaced. */
const PLACES: Array<{ zip?: string; city?: string; state?: string }> = [
  { zip: '50010', city: 'Ames', state: 'IA' },
  { city: 'Des Moines', state: 'IA' },
  { city: 'Omaha', state: 'NE' },
  { city: 'Kansas City', state: 'MO' },
  { city: 'Minneapolis', state: 'MN' },
  { city: 'Chicago', state: 'IL' },
  { city: 'Houston', state: 'TX' },
  { state: 'IA' },
  { state: 'CO' },
  { zip: '99501', city: 'Anchorage', state: 'AK' },
  {},
];
const BUYER_ZIPS = ['50309', '68102', '60601', '10001', '80202'];

describe('GET /api/auctions/list/ near a ZIP code', () => {
  let app: ApiApp;
  let db: Db;
  let close: () => Promise<void>;

  async function list(query: string): Promise<Page> {
    const res = await app.inject({ method: 'GET', url: `/api/auctions/list/?${query}` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Page;
  }

  /** The SQL reference: the same rows filtered and ordered by the database's distance. */
  async function reference(zip: string, opts: { radius?: number; category?: number; sort: 'distance' | 'deal_score_high' }): Promise<number[]> {
    const p = lookupZip(zip)!;
    const d = sql`geo_distance_miles(${p.lat}, ${p.lon}, l.lat, l.lon)`;
    const rows = (await db.execute(sql`
      SELECT l.id FROM listings l
      WHERE l.status = 'open' AND (l.auction_end_at IS NULL OR l.auction_end_at > now())
        ${opts.radius !== undefined ? sql`AND l.lat IS NOT NULL AND ${d} <= ${opts.radius}` : sql``}
        ${opts.category !== undefined ? sql`AND l.category_id = ${opts.category}` : sql``}
      ORDER BY ${opts.sort === 'distance' ? sql`${d} ASC NULLS LAST, l.id` : sql`l.deal_score DESC NULLS LAST, l.id`}`)) as unknown as Array<{ id: number }>;
    return rows.map((r) => r.id);
  }

  beforeAll(async () => {
    const t = await createTestApp();
    ({ app, close } = t);
    db = t.ctx.database.db;
    const site = await insertSource(db, 'nearsite', 'Near Site');
    const random = seededRandom(30);
    await insertListings(
      db,
      site,
      Array.from({ length: 120 }, (_, i) => {
        const place = PLACES[i % PLACES.length]!;
        const at = geocode(place);
        return {
          title: `Lot ${i}`,
          categoryId: 1 + (i % 3),
          city: place.city ?? null,
          state: place.state ?? null,
          zip: place.zip ?? null,
          lat: at?.lat ?? null,
          lon: at?.lon ?? null,
          geoPrecision: at?.precision ?? 'none',
          askingPrice: 1000 + i * 100,
          dealScore: random() < 0.2 ? null : Math.floor(random() * 10) * 100,
        };
      }),
    );
  });
  afterAll(async () => close());

  it('sorts nearest first, unplaced lots last, as the SQL reference does, through every page', async () => {
    for (const zip of BUYER_ZIPS) {
      const seen: number[] = [];
      for (let page = 1; ; page++) {
        const res = await list(`near=${zip}&sort_by=distance&page_size=25&page=${page}`);
        seen.push(...res.data.items.map((i) => i.id));
        if (!res.data.pagination.has_next) break;
      }
      expect(seen, zip).toEqual(await reference(zip, { sort: 'distance' }));
    }
  });

  it('filters by radius (300 miles and others), alone and with a category and another order', async () => {
    for (const zip of BUYER_ZIPS) {
      for (const radius of [0, 50, 150, 300, 1200]) {
        const page = await list(`near=${zip}&radius_miles=${radius}&page_size=100`);
        const expected = await reference(zip, { radius, sort: 'deal_score_high' });
        expect(page.data.items.map((i) => i.id), `${zip} ${radius}`).toEqual(expected);
        expect(page.data.pagination.total_count).toBe(expected.length);
      }
      const both = await list(`near=${zip}&radius_miles=300&category=2&sort_by=distance&page_size=100`);
      expect(both.data.items.map((i) => i.id)).toEqual(await reference(zip, { radius: 300, category: 2, sort: 'distance' }));
    }
    // From Des Moines, 300 miles holds Iowa, Omaha, Kansas City and Minneapolis, not Chicago or Houston.
    const near = await list('near=50309&radius_miles=300&sort_by=distance&page_size=100');
    const distances = near.data.items.map((i) => i.distance_miles!);
    expect(Math.max(...distances)).toBeLessThanOrEqual(300);
    expect(distances[0]).toBeLessThan(10);
  });

  it('each card carries its distance and how exactly its lot is placed; without near, neither', async () => {
    const page = await list('near=50309&sort_by=distance&page_size=100');
    page.data.items.push(...(await list('near=50309&sort_by=distance&page_size=100&page=2')).data.items);
    const precisions = new Set(page.data.items.map((i) => i.location_precision));
    expect(precisions).toEqual(new Set(['zip', 'city', 'state', null]));
    const ames = page.data.items.find((i) => i.location_precision === 'zip')!;
    expect(ames.distance_miles).toBeGreaterThan(25);
    expect(ames.distance_miles).toBeLessThan(40);
    expect(page.data.items.filter((i) => i.location_precision === null).every((i) => i.distance_miles === null)).toBe(true);
    const plain = await list('page_size=5');
    expect(plain.data.items[0]).not.toHaveProperty('distance_miles');
    // distance without near: the default order
    expect((await list('sort_by=distance&page_size=100')).data.items.map((i) => i.id)).toEqual((await list('page_size=100')).data.items.map((i) => i.id));
  });

  it('a bad ZIP code, or a radius without one, is a 400 in the contract shape', async () => {
    for (const [query, field, message] of [
      ['near=1234', 'near', 'near: must be a 5-digit US ZIP code.'],
      ['near=00000', 'near', 'near: is not a known US ZIP code.'],
      ['near=abcde', 'near', 'near: must be a 5-digit US ZIP code.'],
      ['radius_miles=100', 'radius_miles', 'radius_miles: needs near (a ZIP code) to measure from.'],
      ['near=50309&radius_miles=-1', 'radius_miles', 'radius_miles: must be at least 0.'],
      ['near=50309&radius_miles=99999', 'radius_miles', 'radius_miles: must be at most 3000.'],
    ]) {
      const res = await app.inject({ method: 'GET', url: `/api/auctions/list/?${query}` });
      expect(res.statusCode, query).toBe(400);
      expect(res.json(), query).toEqual({ [field!]: [message], detail: message });
    }
    const detail = await app.inject({ method: 'GET', url: '/api/auctions/detail/1/?near=12' });
    expect(detail.statusCode).toBe(400);
  });

  it('the detail with near carries the distance', async () => {
    const [row] = (await db.execute(sql`SELECT id FROM listings WHERE city = 'Omaha' LIMIT 1`)) as unknown as Array<{ id: number }>;
    const res = await app.inject({ method: 'GET', url: `/api/auctions/detail/${row!.id}/?near=50309` });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.location_precision).toBe('city');
    expect(data.distance_miles).toBeGreaterThan(115);
    expect(data.distance_miles).toBeLessThan(140);
    const plain = (await app.inject({ method: 'GET', url: `/api/auctions/detail/${row!.id}/` })).json().data;
    expect(plain).not.toHaveProperty('distance_miles');
    expect(plain).not.toHaveProperty('delivered');
  });

  it('the detail with near carries the price delivered: bid, stated premium, haul range, total', async () => {
    const site = await insertSource(db, 'premiumsite', 'Premium Site');
    const omaha = geocode({ city: 'Omaha', state: 'NE' })!;
    const [lot, unplaced] = await insertListings(db, site, [
      {
        title: '2016 Caterpillar 320FL Excavator', categoryId: 1, city: 'Omaha', state: 'NE', lat: omaha.lat, lon: omaha.lon, geoPrecision: 'city',
        askingPrice: 60000, currentBid: 50000, bidCount: 3, buyersPremiumPct: 10,
      },
      { title: 'Somewhere excavator', categoryId: 1, askingPrice: 1000, geoPrecision: 'none' },
    ]);
    const res = await app.inject({ method: 'GET', url: `/api/auctions/detail/${lot!.id}/?near=50309` });
    const data = res.json().data;
    const d = data.delivered;
    expect(d).toMatchObject({ price: 50000, premium: 5000, distance_miles: data.distance_miles, weight_class: 'heavy' });
    // ~130 miles as the crow flies, ~160 road miles: the lowboy's minimum charges
    expect(d.haul_low).toBe(800);
    expect(d.haul_high).toBe(2500);
    expect(d.total_low).toBe(50000 + 5000 + 800);
    expect(d.total_high).toBe(50000 + 5000 + 2500);
    expect(d.basis).toMatch(/lowboy/);
    const none = (await app.inject({ method: 'GET', url: `/api/auctions/detail/${unplaced!.id}/?near=50309` })).json().data;
    expect(none).toMatchObject({ distance_miles: null, location_precision: null, delivered: null });
    await db.execute(sql`DELETE FROM listings WHERE source_id = ${site.id}`);
  });
});
