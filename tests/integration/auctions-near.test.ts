/**
 * Deals near you (issue 30) on the list and detail routes: `near` (a ZIP code), `radius_miles` and
 * `sort_by=distance`, answered by the in-memory index and checked against a SQL reference (the
 * database's own geo_distance_miles over the same rows), on lots placed by ZIP code, city and state.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import type { Db } from '../../services/shared/database/db.js';
import { distanceMiles } from '../../services/shared/geo/distance.js';
import { geocode, lookupZip } from '../../services/shared/geo/gazetteer.js';
import { FREIGHT_RATES, haulEstimate, weightClass } from '../../services/shared/rules/freight-rates.js';
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

  it("the database's distance: NULL from or to nowhere (not half the Earth), the product's distance otherwise, and still inlined", async () => {
    const p = lookupZip('50309')!;
    const q = geocode({ city: 'Houston', state: 'TX' })!;
    const [row] = (await db.execute(sql`
      SELECT geo_distance_miles(${p.lat}, ${p.lon}, ${q.lat}, ${q.lon}) AS d,
             geo_distance_miles(NULL, ${p.lon}, ${q.lat}, ${q.lon}) AS from_nowhere,
             geo_distance_miles(${p.lat}, ${p.lon}, ${q.lat}, NULL) AS to_nowhere`)) as unknown as Array<{ d: number; from_nowhere: number | null; to_nowhere: number | null }>;
    expect(row).toEqual({ d: distanceMiles(p, q), from_nowhere: null, to_nowhere: null });
    // Inlined: the plan computes the expression itself (a call per row would cost every radius query).
    const plan = (await db.execute(sql`EXPLAIN (VERBOSE, COSTS OFF) SELECT geo_distance_miles(${p.lat}::float8, ${p.lon}::float8, l.lat, l.lon) FROM listings l`)) as unknown as Array<Record<string, string>>;
    const text = plan.map((r) => Object.values(r)[0]).join('\n');
    expect(text).toContain('asin');
    expect(text).not.toContain('geo_distance_miles');
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
  });

  it('a bad ZIP code, or a radius without one, is a 400 in the contract shape', async () => {
    for (const [query, field, message] of [
      ['near=1234', 'near', 'near: must be a 5-digit US ZIP code.'],
      ['near=00000', 'near', 'near: is not a known US ZIP code.'],
      ['near=abcde', 'near', 'near: must be a 5-digit US ZIP code.'],
      ['radius_miles=100', 'radius_miles', 'radius_miles: needs near (a ZIP code) to measure from.'],
      // Nearest first without a point to measure from: said, as sort_by=delivered is (it was the default order).
      ['sort_by=distance', 'sort_by', 'sort_by: distance needs near (a ZIP code) to measure from.'],
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
    // A lot listed in another currency: delivered in USD, as its card says it (price_usd).
    const [cad] = await insertListings(db, site, [
      {
        title: '2016 Caterpillar 320FL Excavator (CAD)', categoryId: 1, city: 'Omaha', state: 'NE', lat: omaha.lat, lon: omaha.lon, geoPrecision: 'city',
        currency: 'CAD', currentBid: 70000, priceUsd: 50000, bidCount: 3, buyersPremiumPct: 10,
      },
    ]);
    const inCad = (await app.inject({ method: 'GET', url: `/api/auctions/detail/${cad!.id}/?near=50309` })).json().data;
    expect(inCad.delivered).toMatchObject({ price: 50000, premium: 5000, total_low: 55800, total_high: 57500 });
    const cards = (await list('near=50309&sort_by=delivered&max_delivered=57500&min_price=49000&max_price=51000')).data.items;
    expect(cards.find((c) => c.id === cad!.id)).toMatchObject({ delivered_total_low: 55800, delivered_total_high: 57500 });
    const none = (await app.inject({ method: 'GET', url: `/api/auctions/detail/${unplaced!.id}/?near=50309` })).json().data;
    expect(none).toMatchObject({ distance_miles: null, location_precision: null, delivered: null });
    await db.execute(sql`DELETE FROM listings WHERE source_id = ${site.id}`);
  });
});

/**
 * The price delivered on the list (issue 30): `max_delivered`, `worth_the_trip` and
 * `sort_by=delivered`, answered by the index and checked on random lots against a SQL reference:
 * the haul written in SQL over the rate table (road miles, per-mile rates, minimum charges, whole
 * tens), the premium and totals in the same double arithmetic (floor(x + 0.5) is Math.round), and
 * "worth the trip" in PostgreSQL's exact numeric. Only the weight class comes from freight.ts (its
 * title rules), passed in as a table.
 */
describe('GET /api/auctions/list/ by the price delivered', () => {
  let app: ApiApp;
  let db: Db;
  let close: () => Promise<void>;

  const TITLES = ['Kubota KX040 mini excavator', '2016 Caterpillar 320FL Excavator', 'CAT D8T dozer', 'Deere 310SJ backhoe', 'CAT 349 excavator', 'Bobcat S650 skid steer', 'Grove RT530E crane', 'Generator 60 kW', 'Lot 17'];
  const ZIPS = ['50010', '50309', '68102', '64105', '55401', '60601', '77002', '80202', '99501', '10001', '30303'];

  async function list(query: string): Promise<Page & { data: { items: Array<Card & { delivered_total_low?: number | null; delivered_total_high?: number | null }> } }> {
    const res = await app.inject({ method: 'GET', url: `/api/auctions/list/?${query}` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  }

  async function all(query: string): Promise<Array<Card & { delivered_total_low?: number | null; delivered_total_high?: number | null }>> {
    const out = [];
    for (let page = 1; ; page++) {
      const res = await list(`${query}&page_size=100&page=${page}`);
      out.push(...res.data.items);
      if (!res.data.pagination.has_next) return out;
    }
  }

  /** Every listed lot with its delivered totals and whether it is worth the trip, from SQL. */
  async function reference(zip: string): Promise<Array<{ id: number; deal_score: number | null; total_low: number | null; total_high: number | null; worth: boolean }>> {
    const p = lookupZip(zip)!;
    const lots = (await db.execute(sql`SELECT id, category_id, title FROM listings`)) as unknown as Array<{ id: number; category_id: number; title: string }>;
    const weights = sql.join(lots.map((l) => sql`(${l.id}::int, ${weightClass(l.category_id, l.title)}::text)`), sql`, `);
    const rates = sql.join(
      Object.entries(FREIGHT_RATES).map(([w, r]) => sql`(${w}::text, ${r.perMile[0]}::float8, ${r.perMile[1]}::float8, ${r.minimum[0]}::float8, ${r.minimum[1]}::float8)`),
      sql`, `,
    );
    return (await db.execute(sql`
      WITH w(id, weight) AS (VALUES ${weights}),
      r(weight, mile_low, mile_high, min_low, min_high) AS (VALUES ${rates}),
      placed AS (
        SELECT l.id, l.deal_score, l.price_usd::float8 AS price, l.price_usd AS price_exact, l.fair_value,
          l.buyers_premium_pct::float8 AS pct,
          -- unplaced: no road miles (geo_distance_miles is NULL there since migration 0046)
          CASE WHEN l.lat IS NOT NULL AND l.lon IS NOT NULL THEN floor(geo_distance_miles(${p.lat}, ${p.lon}, l.lat, l.lon) * 1.2 + 0.5) END AS road, r.*
        FROM listings l JOIN w ON w.id = l.id JOIN r ON r.weight = w.weight
        WHERE l.status = 'open' AND (l.auction_end_at IS NULL OR l.auction_end_at > now())),
      hauled AS (
        SELECT *, price + coalesce(floor(price * pct + 0.5) / 100, 0) AS base,
          floor(greatest(min_low, road * mile_low) / 10 + 0.5) * 10 AS haul_low,
          floor(greatest(min_high, road * mile_high) / 10 + 0.5) * 10 AS haul_high
        FROM placed)
      SELECT id, deal_score,
        CASE WHEN road IS NOT NULL THEN floor((base + haul_low) * 100 + 0.5) / 100 END AS total_low,
        CASE WHEN road IS NOT NULL THEN floor((base + haul_high) * 100 + 0.5) / 100 END AS total_high,
        coalesce(road IS NOT NULL AND fair_value - price_exact > haul_high::numeric, false) AS worth
      FROM hauled`)) as unknown as Array<{ id: number; deal_score: number | null; total_low: number | null; total_high: number | null; worth: boolean }>;
  }

  const byScore = (a: { id: number; deal_score: number | null }, b: { id: number; deal_score: number | null }) =>
    a.deal_score === b.deal_score ? a.id - b.id : a.deal_score === null ? 1 : b.deal_score === null ? -1 : b.deal_score - a.deal_score;
  const byDelivered = (a: { id: number; total_high: number | null }, b: { id: number; total_high: number | null }) =>
    a.total_high === b.total_high ? a.id - b.id : a.total_high === null ? 1 : b.total_high === null ? -1 : a.total_high - b.total_high;

  beforeAll(async () => {
    const t = await createTestApp();
    ({ app, close } = t);
    db = t.ctx.database.db;
    const site = await insertSource(db, 'deliveredsite', 'Delivered Site');
    const random = seededRandom(3030);
    const buyer = lookupZip('50309')!;
    await insertListings(
      db,
      site,
      Array.from({ length: 260 }, (_, i) => {
        const place = i % 23 === 0 ? null : lookupZip(ZIPS[Math.floor(random() * ZIPS.length)]!)!;
        const categoryId = 1 + Math.floor(random() * 10);
        const title = TITLES[Math.floor(random() * TITLES.length)]!;
        const asking = random() < 0.06 ? null : Math.floor(random() * 9_000_000) / 100 + 500;
        const bid = asking !== null && random() < 0.4 ? Math.round(asking * 0.6 * 100) / 100 : null;
        const price = bid ?? asking;
        const premium = random() < 0.5 ? null : [10, 12.5, 15, 7.125][Math.floor(random() * 4)]!;
        // A third at the boundary of "worth the trip" from Des Moines: fair = price + haul, or a cent more.
        let fairValue: number | null = price === null || random() < 0.2 ? null : Math.round((price * (0.8 + random() * 0.6)) * 100) / 100;
        if (price !== null && place && random() < 0.33) {
          const haul = haulEstimate(weightClass(categoryId, title), distanceMiles(buyer, place)).high;
          fairValue = Math.round((price + haul + (random() < 0.5 ? 0.01 : 0)) * 100) / 100;
        }
        return {
          title,
          categoryId,
          city: place?.city ?? null,
          state: place?.state ?? null,
          lat: place?.lat ?? null,
          lon: place?.lon ?? null,
          geoPrecision: place ? 'zip' : 'none',
          askingPrice: asking,
          currentBid: bid,
          bidCount: bid === null ? 0 : 2,
          buyersPremiumPct: premium,
          fairValue,
          dealScore: random() < 0.2 ? null : Math.floor(random() * 10) * 100,
        };
      }),
    );
  });
  afterAll(async () => close());

  it('max_delivered keeps lots whose total with the high haul is at most it, as SQL computes it, at and either side of real totals', async () => {
    for (const zip of ['50309', '68102', '10001']) {
      const ref = await reference(zip);
      const totals = ref.flatMap((r) => (r.total_high === null ? [] : [r.total_high])).sort((a, b) => a - b);
      const bounds = [0, ...[0.1, 0.3, 0.5, 0.8].map((q) => totals[Math.floor(q * totals.length)]!).flatMap((t) => [Math.floor(t), Math.ceil(t)])];
      for (const max of bounds) {
        const expected = ref.filter((r) => r.total_high !== null && r.total_high <= max).sort(byScore);
        const got = await all(`near=${zip}&max_delivered=${max}`);
        expect(got.map((c) => c.id), `${zip} ≤ ${max}`).toEqual(expected.map((r) => r.id));
        // the cards carry the same totals
        for (const card of got) expect(card.delivered_total_high).toBe(ref.find((r) => r.id === card.id)!.total_high);
      }
    }
  });

  it('worth_the_trip keeps lots whose discount under fair value exceeds the high haul (a cent decides), alone and with a radius', async () => {
    for (const zip of ['50309', '64105']) {
      const ref = await reference(zip);
      const expected = ref.filter((r) => r.worth).sort(byScore);
      expect(expected.length).toBeGreaterThan(10);
      expect(expected.length).toBeLessThan(ref.length / 2);
      expect((await all(`near=${zip}&worth_the_trip=true`)).map((c) => c.id)).toEqual(expected.map((r) => r.id));
      const res = await list(`near=${zip}&worth_the_trip=true&page_size=5`);
      expect(res.data.pagination.total_count).toBe(expected.length);
      // false filters nothing
      expect((await list(`near=${zip}&worth_the_trip=false&page_size=5`)).data.pagination.total_count).toBe(ref.length);
    }
  });

  it('sort_by=delivered: cheapest delivered total first, lots without a price or a place last, every page; with filters too', async () => {
    for (const zip of ['50309', '77002', '99501']) {
      const ref = await reference(zip);
      const got = await all(`near=${zip}&sort_by=delivered`);
      expect(got.map((c) => c.id), zip).toEqual([...ref].sort(byDelivered).map((r) => r.id));
      for (const card of got) {
        const r = ref.find((x) => x.id === card.id)!;
        expect([card.delivered_total_low, card.delivered_total_high]).toEqual([r.total_low, r.total_high]);
      }
      const filtered = await all(`near=${zip}&sort_by=delivered&category=1&max_delivered=60000`);
      const category1 = new Set(((await db.execute(sql`SELECT id FROM listings WHERE category_id = 1`)) as unknown as Array<{ id: number }>).map((r) => r.id));
      expect(filtered.map((c) => c.id)).toEqual(
        ref.filter((r) => category1.has(r.id) && r.total_high !== null && r.total_high <= 60000).sort(byDelivered).map((r) => r.id),
      );
    }
  });

  it('what needs a ZIP code asked without one is a 400 in the contract shape; bad values too', async () => {
    for (const [query, field, message] of [
      ['max_delivered=50000', 'max_delivered', 'max_delivered: needs near (a ZIP code) to deliver to.'],
      ['worth_the_trip=true', 'worth_the_trip', 'worth_the_trip: needs near (a ZIP code) to deliver to.'],
      ['sort_by=delivered', 'sort_by', 'sort_by: delivered needs near (a ZIP code) to deliver to.'],
      ['near=50309&max_delivered=-5', 'max_delivered', 'max_delivered: must be at least 0.'],
      ['near=50309&max_delivered=12.5', 'max_delivered', 'max_delivered: must be a whole number.'],
      ['near=50309&worth_the_trip=yes', 'worth_the_trip', 'worth_the_trip: must be true or false.'],
    ]) {
      const res = await app.inject({ method: 'GET', url: `/api/auctions/list/?${query}` });
      expect(res.statusCode, query).toBe(400);
      expect(res.json(), query).toEqual({ [field!]: [message], detail: message });
    }
    // Not asked for: no delivered fields; worth_the_trip=false and an empty max_delivered need no ZIP.
    expect((await list('page_size=3')).data.items[0]).not.toHaveProperty('delivered_total_high');
    expect((await list('worth_the_trip=false&max_delivered=&page_size=3')).data.items).toHaveLength(3);
  });
});
