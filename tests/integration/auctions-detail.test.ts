import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import type { Db } from '../../services/shared/database/db.js';
import { createTestApp } from '../support/app.js';
import { insertListings, insertPriceObservations, insertSource } from '../support/listing-fixtures.js';

describe('GET /api/auctions/detail/{id}/', () => {
  let app: ApiApp;
  let db: Db;
  let close: () => Promise<void>;
  let valued: { id: number; slug: string };
  let bare: { id: number; slug: string };
  let unsupported: { id: number; slug: string };
  let sourceId: number;

  beforeAll(async () => {
    const t = await createTestApp();
    ({ app, close } = t);
    db = t.ctx.database.db;
    const site = await insertSource(db, 'purplewave', 'Purple Wave');
    sourceId = site.id;
    const [a, b, c] = await insertListings(db, site, [
      {
        title: '2018 John Deere 310SL Backhoe', make: 'John Deere', model: '310SL', year: 2018, hours: 2300, condition: 'Like New',
        categoryId: 4, city: 'Wichita', state: 'KS', askingPrice: 60000, currentBid: 52000, bidCount: 7, status: 'sold',
        auctionEndAt: new Date(Date.UTC(2026, 0, 15, 18, 0, 0)),
        description: '<h2>Backhoe</h2><p>Cab &amp; heat.</p><img src=x onerror="alert(1)"><script>steal()</script>' + ' More.'.repeat(2000),
        images: ['https://img.example/a.jpg', 'https://img.example/b.jpg', 'https://img.example/c.jpg'],
        dealScore: 655, fairValue: 68000, valueLow: 61000, valueHigh: 75000, valuationConfidence: 0.72, valuationAsOf: '2026-01-14',
        comparables: [
          // written before today's dollars: one price
          { title: '2017 John Deere 310SL', price: 66000, sold_at: '2025-10-01', source: 'import:fastiron', url: null },
          { title: '2019 John Deere 310SL', price: 71000, original_price: 64500, sold_at: '2025-11-12', source: 'crawl:purplewave', url: 'https://purplewave.example/lot/9' },
        ],
      },
      { title: 'Pallet of hydraulic hoses', categoryId: 11, askingPrice: null, description: '' },
      { title: '2015 Terex RT555 crane', categoryId: 6, askingPrice: 90000, scoreReason: 'Not enough sales of this type yet', modelVersion: 3 },
    ]);
    valued = a!;
    bare = b!;
    unsupported = c!;
    await insertPriceObservations(db, valued.id, [
      { observedAt: new Date('2026-01-10T10:00:00Z'), price: 45000, currentBid: 45000, bidCount: 3 },
      { observedAt: new Date('2026-01-09T10:00:00Z'), price: 60000 },
      { observedAt: new Date('2026-01-12T10:00:00Z'), price: 52000, currentBid: 52000, bidCount: 7 },
      { observedAt: new Date('2026-01-11T10:00:00Z'), price: 45000, currentBid: 45000, bidCount: 3 },
    ]);
  });
  afterAll(async () => close());

  async function detail(key: string | number) {
    return app.inject({ method: 'GET', url: `/api/auctions/detail/${key}/` });
  }

  it('returns every deal field by numeric id, for ended lots too', async () => {
    const res = await detail(valued.id);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toEqual({
      id: valued.id,
      slug: valued.slug,
      make_model: 'John Deere 310SL',
      title: '2018 John Deere 310SL Backhoe',
      price: 52000,
      current_price: 52000,
      currency: 'USD',
      location: 'Wichita, KS',
      description: expect.stringMatching(/^Backhoe\nCab & heat\.\nMore\. More\./),
      images: ['https://img.example/a.jpg', 'https://img.example/b.jpg', 'https://img.example/c.jpg'],
      image_count: 3,
      auction_end_date: '2026-01-15T18:00:00.000Z',
      original_url: expect.stringContaining('/purplewave/lot/'),
      status: 'sold',
      bid_count: 7,
      category: { id: 4, name: 'Backhoe Loaders' },
      auction_site: { id: sourceId, name: 'Purple Wave' },
      deal_score: 655,
      deal_level: 'good',
      score_reason: null,
      year: 2018,
      hours: 2300,
      condition: 'Like New',
      valuation: {
        as_of: '2026-01-14',
        fair_value: 68000,
        low: 61000,
        high: 75000,
        confidence: 0.72,
        claim: expect.stringMatching(/^\$\d[\d,]* — about \d+% under similar sales; \d+ in \d+ sold for more$/),
        note: null,
        market_as_of: null,
        comparables: [
          { title: '2017 John Deere 310SL', price: 66000, original_price: 66000, adjusted_price: 66000, sold_at: '2025-10-01', source: 'import:fastiron', url: null },
          { title: '2019 John Deere 310SL', price: 71000, original_price: 64500, adjusted_price: 71000, sold_at: '2025-11-12', source: 'crawl:purplewave', url: 'https://purplewave.example/lot/9' },
        ],
      },
      // a sold lot has no bid limits (they are for open lots: tests/integration/bid-limits.test.ts)
      bid_limits: null,
      price_history: [
        { observed_at: '2026-01-09T10:00:00.000Z', price: 60000 },
        { observed_at: '2026-01-10T10:00:00.000Z', price: 45000 },
        { observed_at: '2026-01-12T10:00:00.000Z', price: 52000 },
      ],
    });
  });

  it('serves plain, bounded text: no markup survives', async () => {
    const { description } = (await detail(valued.id)).json().data as { description: string };
    expect(description).not.toMatch(/[<>]/);
    expect(description).not.toContain('steal()');
    expect(description).not.toContain('onerror');
    expect(description.length).toBeLessThanOrEqual(5000);
  });

  it('answers the same listing by slug', async () => {
    const byId = (await detail(valued.id)).json();
    const res = await detail(valued.slug);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(byId);
  });

  it('has valuation null, empty history and no images before valuation and crawls fill them', async () => {
    const data = (await detail(bare.slug)).json().data;
    expect(data).toMatchObject({
      valuation: null, price_history: [], images: [], image_count: 0, deal_score: null, deal_level: null,
      price: null, description: '', year: null, hours: null, condition: null, category: { id: 11, name: 'Other' },
      score_reason: 'Not valued yet',
    });
  });

  it('says why a listing has no score, as the scorer stored it', async () => {
    const data = (await detail(unsupported.id)).json().data;
    expect(data).toMatchObject({ deal_score: null, deal_level: null, valuation: null, score_reason: 'Not enough sales of this type yet' });
  });

  it('answers 404 {"detail": "Not found."} for unknown ids and slugs', async () => {
    const [{ max }] = (await db.execute(sql`SELECT max(id)::int AS max FROM listings`)) as unknown as [{ max: number }];
    for (const key of [String(max + 1000), 'no-such-lot-l000000000', '99999999999', '0', encodeURIComponent('<script>')]) {
      const res = await detail(key);
      expect(res.statusCode, key).toBe(404);
      expect(res.json()).toEqual({ detail: 'Not found.' });
    }
  });

  it('publishes the detail and list schemas in the OpenAPI description', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    const detailSchema = doc.paths['/api/auctions/detail/{id}/'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(detailSchema.properties.data.properties)).toEqual(
      expect.arrayContaining(['deal_level', 'score_reason', 'valuation', 'price_history', 'images', 'hours', 'condition']),
    );
    const valuationSchema = detailSchema.properties.data.properties.valuation;
    expect(Object.keys(valuationSchema.properties)).toEqual(expect.arrayContaining(['as_of', 'fair_value', 'comparables']));
    expect(Object.keys(valuationSchema.properties.comparables.items.properties)).toEqual(
      expect.arrayContaining(['price', 'original_price', 'adjusted_price', 'sold_at']),
    );
    const listParams = doc.paths['/api/auctions/list/'].get.parameters.map((p: { name: string }) => p.name);
    expect(listParams).toEqual(expect.arrayContaining(['category', 'min_price', 'max_price', 'location', 'search', 'sort_by', 'page', 'page_size']));
  });
});
