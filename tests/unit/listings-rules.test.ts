import { describe, expect, it } from 'vitest';
import {
  dealLevel,
  filterKey,
  formatLocation,
  makeModel,
  pagination,
  parseLocation,
  plainTextDescription,
  priceHistory,
  searchWords,
  toCard,
  toDetail,
  toListRequest,
  type DetailRow,
} from '../../services/listings/listing-rules.js';
import { listQuerySchema } from '../../services/listings/listing-schemas.js';
import { deliveredTotals } from '../../services/listings/delivered-total.js';
import { distanceMiles } from '../../services/shared/geo/distance.js';
import { weightClass } from '../../services/shared/rules/freight-rates.js';

const row: DetailRow = {
  id: 7, slug: 'cat-320-l000000001', title: '2016 Caterpillar 320FL Excavator', make: 'Caterpillar', model: '320FL', year: 2016,
  price: 85000, currentBid: 85000, dealScore: 801, currency: 'USD', city: 'Houston', state: 'TX', auctionEndAt: '2030-06-01T12:30:00.000Z',
  firstImageUrl: 'https://img/1.jpg', imageCount: 3, categoryId: 1, categoryName: 'Excavators', sourceId: 2, sourceName: 'IronPlanet',
  originalUrl: 'https://site/lot/1', description: '<p>Clean &amp; ready</p><script>alert(1)</script>', hours: 5400, condition: 'Good',
  status: 'open', bidCount: 4, fairValue: null, valueLow: null, valueHigh: null, valuationConfidence: null, comparables: null,
  scoreReason: null, valuationAsOf: null, lat: 29.7604, lon: -95.3698, geoPrecision: 'city', buyersPremiumPct: null, goodBidLimit: null, bidLimits: null, scoredAt: null,
};

describe('searchWords', () => {
  it('lowercases, strips accents and punctuation, drops duplicates, bounds count and length', () => {
    expect(searchWords('CAT 320-D, Excavators!')).toEqual(['cat', '320', 'd', 'excavators']);
    expect(searchWords('Déere deere')).toEqual(['deere']);
    expect(searchWords("cat' & !deere :*")).toEqual(['cat', 'deere']);
    expect(searchWords('a b c d e f g h i j')).toHaveLength(8);
    expect(searchWords('x'.repeat(100))[0]).toHaveLength(40);
    expect(searchWords('  ')).toEqual([]);
    expect(searchWords(undefined)).toEqual([]);
  });
});

describe('parseLocation', () => {
  it('reads a state code or name, a city, or "City, ST"', () => {
    expect(parseLocation('tx')).toEqual({ state: 'TX' });
    expect(parseLocation(' New  York ')).toEqual({ state: 'NY' });
    expect(parseLocation('Houston')).toEqual({ city: 'houston' });
    expect(parseLocation('Des Moines, Iowa')).toEqual({ city: 'des moines', state: 'IA' });
    expect(parseLocation('Paris, France')).toEqual({ city: 'paris, france' });
    expect(parseLocation('')).toBeUndefined();
  });
});

describe('toListRequest', () => {
  it('defaults to page 1 of 15 in deal_score_high order, with a search too', () => {
    expect(toListRequest(listQuerySchema.parse({}))).toMatchObject({ sort: 'deal_score_high', page: 1, pageSize: 15 });
    expect(toListRequest(listQuerySchema.parse({ search: 'deere' })).sort).toBe('deal_score_high');
  });
  it('uses relevance only with search words', () => {
    expect(toListRequest(listQuerySchema.parse({ search: 'deere', sort_by: 'relevance' })).sort).toBe('relevance');
    expect(toListRequest(listQuerySchema.parse({ search: '!!', sort_by: 'relevance' })).sort).toBe('deal_score_high');
  });
  it('parses integers from the query string and rejects the rest', () => {
    expect(listQuerySchema.parse({ min_price: '100', page: '2', category: '3' })).toMatchObject({ min_price: 100, page: 2, category: 3 });
    for (const bad of [{ min_price: 'abc' }, { page: '0' }, { page_size: '101' }, { sort_by: 'x' }, { max_price: '1.5' }]) {
      expect(listQuerySchema.safeParse(bad).success).toBe(false);
    }
  });
  it('keys counts by filter only', () => {
    const a = toListRequest(listQuerySchema.parse({ category: '1', page: '2', sort_by: 'price_low' }));
    const b = toListRequest(listQuerySchema.parse({ category: '1' }));
    const c = toListRequest(listQuerySchema.parse({ category: '2' }));
    expect(filterKey(a.filter)).toBe(filterKey(b.filter));
    expect(filterKey(a.filter)).not.toBe(filterKey(c.filter));
  });
});

describe('pagination', () => {
  it('counts pages and neighbours', () => {
    expect(pagination(1, 15, 0)).toEqual({ current_page: 1, total_pages: 0, total_count: 0, has_next: false, has_previous: false });
    expect(pagination(1, 15, 15)).toMatchObject({ total_pages: 1, has_next: false });
    expect(pagination(1, 15, 16)).toMatchObject({ total_pages: 2, has_next: true, has_previous: false });
    expect(pagination(2, 15, 16)).toMatchObject({ has_next: false, has_previous: true });
    expect(pagination(5, 15, 16)).toMatchObject({ current_page: 5, has_next: false, has_previous: true });
  });
});

describe('dealLevel', () => {
  it('divides by 10, rounds up and applies 80/60/40', () => {
    expect(dealLevel(800)).toBe('excellent');
    expect(dealLevel(791)).toBe('excellent');
    expect(dealLevel(790)).toBe('good');
    expect(dealLevel(600)).toBe('good');
    expect(dealLevel(591)).toBe('good');
    expect(dealLevel(590)).toBe('fair');
    expect(dealLevel(400)).toBe('fair');
    expect(dealLevel(390)).toBe('poor');
    expect(dealLevel(0)).toBe('poor');
    expect(dealLevel(1000)).toBe('excellent');
    expect(dealLevel(null)).toBeNull();
  });
});

describe('plainTextDescription', () => {
  it('removes markup and scripts, decodes entities, keeps paragraphs, bounds length', () => {
    expect(plainTextDescription('<p>Clean &amp; ready</p><script>alert(1)</script><p>Runs&nbsp;well</p>')).toBe('Clean & ready\nRuns well');
    expect(plainTextDescription('a <b>bold</b> &lt;img src=x onerror=1&gt;')).toBe('a bold ‹img src=x onerror=1›');
    expect(plainTextDescription('x\u0000y')).toBe('xy');
    const long = plainTextDescription('word '.repeat(5000));
    expect(long.length).toBeLessThanOrEqual(5000);
    expect(long.endsWith('…')).toBe(true);
    expect(plainTextDescription(null)).toBe('');
  });
});

describe('cards and details', () => {
  it('names the machine by make and model, else the title', () => {
    expect(makeModel({ make: 'CAT', model: '320', title: 't' })).toBe('CAT 320');
    expect(makeModel({ make: 'John Deere', model: 'John Deere 310SJ', title: 't' })).toBe('John Deere 310SJ');
    expect(makeModel({ make: null, model: null, title: 'Lot of tools' })).toBe('Lot of tools');
    expect(formatLocation('Houston', 'TX')).toBe('Houston, TX');
    expect(formatLocation(null, 'TX')).toBe('TX');
    expect(formatLocation(null, null)).toBeNull();
  });

  it('maps a row to a card', () => {
    expect(toCard(row)).toEqual({
      id: 7, slug: 'cat-320-l000000001', make_model: 'Caterpillar 320FL', year: 2016, price: 85000, current_price: 85000, deal_score: 801,
      currency: 'USD', location: 'Houston, TX', auction_end_date: '2030-06-01T12:30:00.000Z', first_image: 'https://img/1.jpg', image_count: 3,
      category: { id: 1, name: 'Excavators' }, auction_site: { id: 2, name: 'IronPlanet' }, original_url: 'https://site/lot/1', good_bid_limit: null,
    });
  });

  it("adds the distance and the delivered totals to a card when a buyer's point is given", () => {
    const near = { lat: 32.7767, lon: -96.797 }; // Dallas: Houston is about 225 miles away
    const placed = { ...row, buyersPremiumPct: 10, priceUsd: 85000 };
    const card = toCard(placed, near);
    const miles = distanceMiles(near, { lat: row.lat!, lon: row.lon! });
    expect(miles).toBeGreaterThan(200);
    const totals = deliveredTotals({ price: 85000, buyersPremiumPct: 10, weight: weightClass(row.categoryId, row.title), distanceMiles: miles })!;
    expect(card).toEqual({ ...toCard(placed), distance_miles: miles, location_precision: 'city', delivered_total_low: totals.low, delivered_total_high: totals.high });
    expect(totals.low).toBeGreaterThan(85000 + 8500);
    // Unplaced: the fields are there, null.
    expect(toCard({ ...placed, lat: null, lon: null, geoPrecision: null }, near)).toMatchObject({ distance_miles: null, location_precision: null, delivered_total_low: null, delivered_total_high: null });
    // Without a point, none of them.
    expect(Object.keys(toCard(placed))).not.toContain('distance_miles');
  });

  it('has no valuation until one exists, and a bounded, cleaned list of comparables after', () => {
    const bare = toDetail(row, [], []);
    expect(bare).toMatchObject({ valuation: null, price_history: [], images: ['https://img/1.jpg'], deal_level: 'excellent', description: 'Clean & ready' });
    const valued = toDetail(
      { ...row, fairValue: 100000, valueLow: 90000, valueHigh: 110000, valuationConfidence: 0.7, comparables: [
        { title: 'CAT 320', price: 98000, sold_at: '2025-01-02', source: 'import:fastiron', url: null },
        { title: 'broken', price: 'n/a', sold_at: '2025-01-02' },
        ...Array.from({ length: 20 }, (_, i) => ({ title: `c${i}`, price: i, sold_at: '2025-01-01', source: 's', url: 'https://x' })),
      ] },
      ['https://img/a.jpg'],
      [],
    );
    expect(valued.valuation).toMatchObject({ fair_value: 100000, low: 90000, high: 110000, confidence: 0.7 });
    // a score written before today's dollars: its one price is both the original and the adjusted one
    expect(valued.valuation!.comparables[0]).toEqual({ title: 'CAT 320', price: 98000, original_price: 98000, adjusted_price: 98000, sold_at: '2025-01-02', source: 'import:fastiron', url: null });
    expect(valued.valuation!.comparables).toHaveLength(10);
    expect(valued.images).toEqual(['https://img/a.jpg']);
  });

  it('carries the valuation date, both prices of a comparable, only http(s) links, and why a score is missing', () => {
    const valued = toDetail(
      { ...row, dealScore: null, scoreReason: 'Too few similar sales to be sure of its value yet', valuationAsOf: '2026-11-25', fairValue: 58300, valueLow: 50000, valueHigh: 66000, valuationConfidence: 0.4, comparables: [
        { title: '2004 CAT 320C', price: 58300, original_price: 41000, sold_at: '2012-02-21T00:00:00.000Z', source: 'Fast Iron auction records', url: 'javascript:alert(1)' },
        { title: '2005 CAT 320C', price: 60000, original_price: 60000, sold_at: '2026-10-01T00:00:00.000Z', source: 'West Auctions', url: 'https://westauction.example/lot/1' },
      ] },
      [],
      [],
    );
    expect(valued.score_reason).toBe('Too few similar sales to be sure of its value yet');
    expect(valued.deal_level).toBeNull();
    expect(valued.valuation!.as_of).toBe('2026-11-25');
    expect(valued.valuation!.comparables).toEqual([
      { title: '2004 CAT 320C', price: 58300, original_price: 41000, adjusted_price: 58300, sold_at: '2012-02-21T00:00:00.000Z', source: 'Fast Iron auction records', url: null },
      { title: '2005 CAT 320C', price: 60000, original_price: 60000, adjusted_price: 60000, sold_at: '2026-10-01T00:00:00.000Z', source: 'West Auctions', url: 'https://westauction.example/lot/1' },
    ]);
    // scored: no reason, whatever is stored; never scored: says so
    expect(toDetail({ ...row, scoreReason: 'stale' }, [], []).score_reason).toBeNull();
    expect(toDetail({ ...row, dealScore: null }, [], []).score_reason).toBe('Not valued yet');
  });

  it("says on the deal page that an impaired lot is valued below its comparables because its listing says so", () => {
    const comparables = [
      { title: 'Ford F-350 Stake Side Truck', price: 9000, sold_at: '2025-05-01', source: 'West Auctions', url: null, year: 2005, hours: null },
      { title: 'Ford F-350 Flatbed', price: 11000, sold_at: '2025-06-01', source: 'West Auctions', url: null, year: 2006, hours: null },
    ];
    const valued = { ...row, year: 2005, hours: null, fairValue: 2500, valueLow: 900, valueHigh: 6000, valuationConfidence: 0.3, comparables };
    expect(toDetail({ ...valued, title: '2005 Ford F-350 Stake Side Truck (Not Running)' }, [], []).valuation!.note).toBe(
      'The listing says it does not work, is sold for parts or with its contents, so valued below these sales.',
    );
    // the same value for a lot whose listing says nothing of it
    expect(toDetail({ ...valued, title: '2005 Ford F-350 Stake Side Truck', description: 'Runs and drives' }, [], []).valuation!.note).toMatch(/^Valued below these sales/);
  });

  it("says on the deal page that a reserve lot is valued above its comparables because its listing says so", () => {
    const comparables = [
      { title: 'John Deere 6130R Tractor', price: 9000, sold_at: '2025-05-01', source: 'West Auctions', url: null, year: 2015, hours: null },
      { title: 'John Deere 6120R Tractor', price: 11000, sold_at: '2025-06-01', source: 'West Auctions', url: null, year: 2015, hours: null },
    ];
    const valued = { ...row, title: '2015 John Deere 6130R Tractor', year: 2015, hours: null, fairValue: 30000, valueLow: 9000, valueHigh: 90000, valuationConfidence: 0.3, comparables };
    expect(toDetail({ ...valued, description: "Sale is subject to the seller's confirmation." }, [], []).valuation!.note).toBe(
      "Sold subject to the seller's confirmation (a reserve), as lots that fetch more are, so valued above these sales.",
    );
    expect(toDetail({ ...valued, description: 'Runs and drives' }, [], []).valuation!.note).toMatch(/^Valued above these sales/);
  });

  it('weighs in its note the same comparables the deal page shows (a stored one without a sale date is neither)', () => {
    const comparables = [
      { title: 'Cat 320C', price: 9000, sold_at: '2025-05-01', source: 'West Auctions', url: null, year: 2005, hours: null },
      { title: 'Cat 320C, no date', price: 50000, source: 'West Auctions', url: null, year: 2005, hours: null },
    ];
    const detail = toDetail({ ...row, year: 2005, hours: null, fairValue: 30000, valueLow: 9000, valueHigh: 60000, valuationConfidence: 0.3, comparables }, [], []);
    expect(detail.valuation!.comparables.map((c) => c.price)).toEqual([9000]);
    expect(detail.valuation!.note).toMatch(/^Valued above these sales/);
  });

  it('orders price history oldest first and keeps one point per change', () => {
    expect(
      priceHistory([
        { observedAt: '2026-01-03T00:00:00.000Z', price: 120 },
        { observedAt: '2026-01-01T00:00:00.000Z', price: 100 },
        { observedAt: '2026-01-02T00:00:00.000Z', price: 100 },
        { observedAt: '2026-01-04T00:00:00.000Z', price: 150 },
      ]),
    ).toEqual([
      { observedAt: '2026-01-01T00:00:00.000Z', price: 100 },
      { observedAt: '2026-01-03T00:00:00.000Z', price: 120 },
      { observedAt: '2026-01-04T00:00:00.000Z', price: 150 },
    ]);
  });
});
