import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import type { Db } from '../../services/shared/database/db.js';
import { RELEVANCE_CANDIDATES } from '../../services/listings/listing-index/index.js';
import { createTestApp } from '../support/app.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';

const DAY = 24 * 3600 * 1000;
const END = new Date(Date.UTC(2030, 5, 1, 12, 30, 0));

type Card = Record<string, unknown> & { id: number; deal_score: number | null; price: number | null; make_model: string };
type Page = { data: { items: Card[]; pagination: { current_page: number; total_pages: number; total_count: number; has_next: boolean; has_previous: boolean } } };

describe('GET /api/auctions/list/', () => {
  let app: ApiApp;
  let db: Db;
  let close: () => Promise<void>;
  const id: Record<string, number> = {};

  async function list(query = ''): Promise<Page> {
    const res = await app.inject({ method: 'GET', url: `/api/auctions/list/${query}` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Page;
  }
  const names = (page: Page) => page.data.items.map((i) => i.make_model);

  beforeAll(async () => {
    const t = await createTestApp();
    ({ app, close } = t);
    db = t.ctx.database.db;
    const site = await insertSource(db, 'ironplanet', 'IronPlanet');
    const gsa = await insertSource(db, 'gsaauctions', 'GSA Auctions');
    const rows = await insertListings(db, site, [
      {
        title: '2016 Caterpillar 320FL Hydraulic Excavator', make: 'Caterpillar', model: '320FL', year: 2016, hours: 5400,
        condition: 'Good', description: 'Clean machine with thumb.', categoryId: 1, city: 'Houston', state: 'TX',
        askingPrice: 90000, currentBid: 85000, bidCount: 4, dealScore: 910, auctionEndAt: END,
        images: ['https://img.example/320-1.jpg', 'https://img.example/320-2.jpg'],
      },
      { title: '2014 CAT 320E L Excavator', make: 'CAT', model: '320E L', year: 2014, categoryId: 1, city: 'Dallas', state: 'TX', askingPrice: 70000, dealScore: 640 },
      { title: '2019 John Deere 310SJ Backhoe Loader', make: 'John Deere', model: '310SJ', year: 2019, categoryId: 4, city: 'Des Moines', state: 'IA', askingPrice: 65000, dealScore: 720 },
      { title: 'Komatsu D61PX Dozer', make: 'Komatsu', model: 'D61PX', categoryId: 2, city: 'Denver', state: 'CO', askingPrice: 120000, dealScore: null },
      { title: 'Bobcat S650 Skid Steer', make: 'Bobcat', model: 'S650', categoryId: 5, city: 'Austin', state: 'TX', askingPrice: 30000, dealScore: 640 },
      { title: 'Generac 20KW Diesel Generator', make: 'Generac', model: 'SD020', categoryId: 8, city: 'Reno', state: 'NV', askingPrice: null, dealScore: 300, auctionEndAt: null },
      { title: 'Ended Caterpillar D6T Dozer', make: 'Caterpillar', model: 'D6T', categoryId: 2, state: 'TX', askingPrice: 50000, dealScore: 990, auctionEndAt: new Date(Date.now() - DAY) },
      { title: 'Sold Volvo EC220 Excavator', make: 'Volvo', model: 'EC220', categoryId: 1, state: 'TX', askingPrice: 40000, dealScore: 995, status: 'sold' },
    ]);
    const others = await insertListings(db, gsa, [
      {
        title: 'Surplus tracked units: two Hitachi ZX210', make: 'Hitachi', model: 'ZX210', categoryId: 1, city: 'Phoenix', state: 'AZ',
        askingPrice: 100000, currentBid: 45000, bidCount: 2, dealScore: null,
        description: 'Two tracked excavators sold together. Includes buckets.',
      },
    ]);
    for (const r of [...rows, ...others]) id[r.model!] = r.id;
  });
  afterAll(async () => close());

  describe('cards and default order', () => {
    it('lists only open listings not yet ended, best score first, unscored last, ties by id', async () => {
      const page = await list();
      expect(page.data.items.map((i) => i.deal_score)).toEqual([910, 720, 640, 640, 300, null, null]);
      expect(page.data.items[2]!.id).toBe(id['320E L']);
      expect(page.data.items[3]!.id).toBe(id.S650);
      expect(page.data.items[5]!.id).toBe(id.D61PX);
      expect(page.data.items[6]!.id).toBe(id.ZX210);
      expect(names(page)).not.toContain('Caterpillar D6T');
      expect(names(page)).not.toContain('Volvo EC220');
      expect(page.data.pagination).toEqual({ current_page: 1, total_pages: 1, total_count: 7, has_next: false, has_previous: false });
    });

    it('returns every card field of the spec', async () => {
      const card = (await list()).data.items[0]!;
      const [source] = (await db.execute(sql`SELECT id FROM sources WHERE name = 'ironplanet'`)) as unknown as Array<{ id: number }>;
      expect(card).toEqual({
        id: id['320FL'],
        slug: expect.stringMatching(/^2016-caterpillar-320fl-hydraulic-excavator-l[0-9a-z]{9}$/),
        make_model: 'Caterpillar 320FL',
        year: 2016,
        price: 85000,
        current_price: 85000,
        deal_score: 910,
        currency: 'USD',
        location: 'Houston, TX',
        auction_end_date: '2030-06-01T12:30:00.000Z',
        first_image: 'https://img.example/320-1.jpg',
        image_count: 2,
        category: { id: 1, name: 'Excavators' },
        auction_site: { id: source!.id, name: 'IronPlanet' },
        original_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1\/ironplanet\/lot\//),
        // stored with the score by the scorer (none here: this lot was never scored by it)
        good_bid_limit: null,
      });
    });

    it('shows null price and no end date as null, and an unbidden lot has no current price', async () => {
      const items = (await list()).data.items;
      const generator = items.find((i) => i.id === id.SD020)!;
      expect(generator).toMatchObject({ price: null, current_price: null, auction_end_date: null, first_image: null, image_count: 0, location: 'Reno, NV' });
      const cat = items.find((i) => i.id === id['320E L'])!;
      expect(cat).toMatchObject({ price: 70000, current_price: null });
    });
  });

  describe('sorts', () => {
    it('deal_score_low: lowest first, unscored still last', async () => {
      const page = await list('?sort_by=deal_score_low');
      expect(page.data.items.map((i) => i.deal_score)).toEqual([300, 640, 640, 720, 910, null, null]);
      expect(page.data.items[1]!.id).toBe(id['320E L']);
    });

    it('price_low and price_high order by what the buyer pays now, unpriced last', async () => {
      const low = await list('?sort_by=price_low');
      expect(low.data.items.map((i) => i.price)).toEqual([30000, 45000, 65000, 70000, 85000, 120000, null]);
      const high = await list('?sort_by=price_high');
      expect(high.data.items.map((i) => i.price)).toEqual([120000, 85000, 70000, 65000, 45000, 30000, null]);
    });

    it('relevance without a search is the default order', async () => {
      expect((await list('?sort_by=relevance')).data.items.map((i) => i.id)).toEqual((await list()).data.items.map((i) => i.id));
    });
  });

  describe('filters', () => {
    it('category by id', async () => {
      expect(names(await list('?category=1')).sort()).toEqual(['CAT 320E L', 'Caterpillar 320FL', 'Hitachi ZX210']);
      expect((await list('?category=6')).data.items).toEqual([]);
    });

    it('min_price and max_price apply to the current bid where there is one, else the asking price', async () => {
      // Hitachi: asking 100,000 but bid at 45,000 → it is a 45,000 lot.
      expect(names(await list('?max_price=50000')).sort()).toEqual(['Bobcat S650', 'Hitachi ZX210']);
      expect(names(await list('?min_price=85000')).sort()).toEqual(['Caterpillar 320FL', 'Komatsu D61PX']);
      expect(names(await list('?min_price=60000&max_price=70000')).sort()).toEqual(['CAT 320E L', 'John Deere 310SJ']);
      // Price on request never matches a price filter.
      expect(names(await list('?min_price=0'))).not.toContain('Generac SD020');
    });

    it('location matches a state code or name in any case, a city, or "City, ST"', async () => {
      const texas = ['Bobcat S650', 'CAT 320E L', 'Caterpillar 320FL'];
      expect(names(await list('?location=TX')).sort()).toEqual(texas);
      expect(names(await list('?location=tx')).sort()).toEqual(texas);
      expect(names(await list('?location=Texas')).sort()).toEqual(texas);
      expect(names(await list('?location=%20texas%20')).sort()).toEqual(texas);
      expect(names(await list('?location=houston'))).toEqual(['Caterpillar 320FL']);
      expect(names(await list('?location=Des%20Moines'))).toEqual(['John Deere 310SJ']);
      expect(names(await list('?location=Dallas,%20TX'))).toEqual(['CAT 320E L']);
      expect((await list('?location=Atlantis')).data.items).toEqual([]);
    });

    it('combines filters', async () => {
      expect(names(await list('?category=1&min_price=50000&location=TX'))).toEqual(['Caterpillar 320FL', 'CAT 320E L']);
    });

    it('treats empty parameters as not set', async () => {
      expect((await list('?category=&min_price=&max_price=&location=&search=&sort_by=&page=&page_size=')).data.pagination.total_count).toBe(7);
    });
  });

  describe('search', () => {
    it('matches make and model, case-insensitively, with make shorthand both ways', async () => {
      expect(names(await list('?search=caterpillar')).sort()).toEqual(['CAT 320E L', 'Caterpillar 320FL']);
      expect(names(await list('?search=CAT')).sort()).toEqual(['CAT 320E L', 'Caterpillar 320FL']);
      expect(names(await list('?search=DEERE%20310SJ'))).toEqual(['John Deere 310SJ']);
      expect(names(await list('?search=deere%20310sj'))).toEqual(['John Deere 310SJ']);
    });

    it('tolerates small typos in the make and matches model prefixes', async () => {
      expect(names(await list('?search=catterpillar%20320')).sort()).toEqual(['CAT 320E L', 'Caterpillar 320FL']);
      expect(names(await list('?search=komatsue'))).toEqual(['Komatsu D61PX']);
      expect(names(await list('?search=bobcatt%20s650'))).toEqual(['Bobcat S650']);
      expect(names(await list('?search=hitachy'))).toEqual(['Hitachi ZX210']);
    });

    it('matches plurals and words of the title and description', async () => {
      expect(names(await list('?search=excavators')).sort()).toEqual(['CAT 320E L', 'Caterpillar 320FL', 'Hitachi ZX210']);
      expect(names(await list('?search=bucket'))).toEqual(['Hitachi ZX210']);
      expect(names(await list('?search=generators'))).toEqual(['Generac SD020']);
    });

    it('requires every word', async () => {
      expect(names(await list('?search=caterpillar%20dozer'))).toEqual([]);
      expect(names(await list('?search=hitachi%20excavators'))).toEqual(['Hitachi ZX210']);
    });

    it('keeps the chosen order among matches, and ranks by relevance on request', async () => {
      const site = await insertSource(db, 'tempsite', 'Temp');
      const [plate] = await insertListings(db, site, [
        { title: 'Wacker WP1550 Plate Compactor', make: 'Wacker', model: 'WP1550', categoryId: 9, askingPrice: 1500, dealScore: 999, description: 'Mounts on any excavator.' },
      ]);
      try {
        // Default order: the best deal among the matches first, wherever the word was found.
        expect(names(await list('?search=excavator'))).toEqual(['Wacker WP1550', 'Caterpillar 320FL', 'CAT 320E L', 'Hitachi ZX210']);
        // Relevance: title matches before description-only matches; equal ranks by score.
        expect(names(await list('?search=excavator&sort_by=relevance'))).toEqual(['Caterpillar 320FL', 'CAT 320E L', 'Wacker WP1550', 'Hitachi ZX210']);
        // Make/model matches rank above title-only ones.
        expect(names(await list('?search=wacker%20compactor&sort_by=relevance'))).toEqual(['Wacker WP1550']);
      } finally {
        await db.execute(sql`DELETE FROM listings WHERE id = ${plate!.id}`);
      }
    });

    it('relevance ranks the best-scored matches, then the rest by deal score, walking pages without repeats', async () => {
      const site = await insertSource(db, 'ranksite', 'Rank');
      // 320 matches, scores 1000 down to 681: the even ones carry the word in their make, the odd
      // ones only in their description.
      const rows = await insertListings(
        db,
        site,
        Array.from({ length: RELEVANCE_CANDIDATES + 20 }, (_, i) => ({
          title: `Lot ${i}`,
          make: i % 2 === 0 ? 'Zetaco' : 'Other',
          model: `Z${i}`,
          description: i % 2 === 0 ? '' : 'Built by Zetaco.',
          dealScore: 1000 - i,
        })),
      );
      try {
        const seen: number[] = [];
        for (let page = 1; ; page++) {
          const res = await list(`?search=zetaco&sort_by=relevance&page_size=100&page=${page}`);
          seen.push(...res.data.items.map((item) => item.id));
          if (!res.data.pagination.has_next) break;
        }
        const index = (listingId: number) => rows.findIndex((r) => r.id === listingId);
        const candidates = Array.from({ length: RELEVANCE_CANDIDATES }, (_, i) => i);
        const expected = [...candidates.filter((i) => i % 2 === 0), ...candidates.filter((i) => i % 2 === 1), ...Array.from({ length: 20 }, (_, i) => RELEVANCE_CANDIDATES + i)];
        expect(seen.map(index)).toEqual(expected);
      } finally {
        await db.execute(sql`DELETE FROM listings WHERE source_id = ${site.id}`);
      }
    });

    it('finds nothing for unknown words, and ignores text without letters or digits', async () => {
      const none = await list('?search=zzyzx');
      expect(none.data).toEqual({ items: [], pagination: { current_page: 1, total_pages: 0, total_count: 0, has_next: false, has_previous: false } });
      expect((await list('?search=%21%21%20%26%7C')).data.pagination.total_count).toBe(7);
      // tsquery syntax in the input is data, not syntax.
      expect((await list("?search=cat%27%20%26%20!deere%20%3A*")).data.items.length).toBeGreaterThanOrEqual(0);
    });
  });

  describe('pagination', () => {
    it('walks every listing exactly once across pages', async () => {
      const seen: number[] = [];
      let page = 1;
      for (;;) {
        const res = await list(`?page_size=2&page=${page}`);
        const p = res.data.pagination;
        expect(p).toMatchObject({ current_page: page, total_pages: 4, total_count: 7, has_previous: page > 1, has_next: page < 4 });
        seen.push(...res.data.items.map((i) => i.id));
        if (!p.has_next) break;
        page++;
      }
      expect(page).toBe(4);
      expect(seen).toHaveLength(7);
      expect(new Set(seen).size).toBe(7);
      expect(seen).toEqual((await list()).data.items.map((i) => i.id));
    });

    it('has a short last page, an empty page past the end, and 15 per page by default', async () => {
      expect((await list('?page_size=3&page=3')).data.items).toHaveLength(1);
      const past = await list('?page_size=3&page=9');
      expect(past.data).toEqual({ items: [], pagination: { current_page: 9, total_pages: 3, total_count: 7, has_next: false, has_previous: true } });
      expect((await list()).data.items).toHaveLength(7);
    });
  });

  describe('bad parameters', () => {
    const cases: Array<[string, string]> = [
      ['min_price=abc', 'min_price'],
      ['max_price=1.5', 'max_price'],
      ['min_price=-5', 'min_price'],
      ['page=0', 'page'],
      ['page=abc', 'page'],
      ['page_size=1000000', 'page_size'],
      ['page_size=0', 'page_size'],
      ['sort_by=cheapest', 'sort_by'],
      ['category=excavators', 'category'],
      [`search=${'a'.repeat(201)}`, 'search'],
      [`location=${'b'.repeat(101)}`, 'location'],
      ['page=1&page=2', 'page'],
    ];
    it.each(cases)('?%s → 400 naming %s', async (query, field) => {
      const res = await app.inject({ method: 'GET', url: `/api/auctions/list/?${query}` });
      expect(res.statusCode).toBe(400);
      const body = res.json() as Record<string, unknown>;
      expect(Object.keys(body)).toContain(field);
      expect(body.detail).toEqual(expect.stringContaining(field));
    });
  });

  it('says what is wrong with the parameter', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/auctions/list/?page=0' });
    expect(res.json()).toEqual({ page: ['page: must be at least 1.'], detail: 'page: must be at least 1.' });
    const sort = await app.inject({ method: 'GET', url: '/api/auctions/list/?sort_by=cheap' });
    expect(sort.json().detail).toBe('sort_by: must be one of deal_score_high, deal_score_low, price_low, price_high, relevance, distance, delivered.');
  });

  it('a card shows what changed on its listing at the next request (a card kept in memory is dropped when its listing changes)', async () => {
    const card = async () => (await list('?search=s650')).data.items.find((i) => i.id === id.S650)!;
    const before = await card();
    expect(before).toMatchObject({ make_model: 'Bobcat S650', current_price: null, first_image: null, image_count: 0 });
    // columns only the card shows (nothing the index filters, orders or searches on)
    await db.execute(sql`UPDATE listings SET first_image_url = 'https://img.example/s650.jpg', image_count = 3 WHERE id = ${id.S650}`);
    expect(await card()).toMatchObject({ first_image: 'https://img.example/s650.jpg', image_count: 3 });
    await db.execute(sql`UPDATE listings SET model = 'S650 T4', current_bid = 21000 WHERE id = ${id.S650}`);
    expect(await card()).toMatchObject({ make_model: 'Bobcat S650 T4', current_price: 21000 });
    await db.execute(sql`UPDATE listings SET model = 'S650', current_bid = NULL, first_image_url = NULL, image_count = 0 WHERE id = ${id.S650}`);
    expect(await card()).toMatchObject(before);
  });

  it('ended listings stay reachable by detail', async () => {
    const res = await app.inject({ method: 'GET', url: `/api/auctions/detail/${id.D6T}/` });
    expect(res.statusCode).toBe(200);
  });
});

describe('GET /api/auctions/categories/', () => {
  let app: ApiApp;
  let close: () => Promise<void>;
  beforeAll(async () => ({ app, close } = await createTestApp()));
  afterAll(async () => close());

  it('lists the ten equipment types in order, then Other', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/auctions/categories/' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: {
        categories: [
          { id: 1, name: 'Excavators' }, { id: 2, name: 'Bulldozers' }, { id: 3, name: 'Wheel Loaders' },
          { id: 4, name: 'Backhoe Loaders' }, { id: 5, name: 'Skid Steers' }, { id: 6, name: 'Cranes' },
          { id: 7, name: 'Dump Trucks' }, { id: 8, name: 'Generators' }, { id: 9, name: 'Compactors' },
          { id: 10, name: 'Graders' }, { id: 11, name: 'Other' },
        ],
      },
    });
  });

  it('an empty catalogue lists nothing but answers the contract', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/auctions/list/' });
    expect(res.json()).toEqual({ data: { items: [], pagination: { current_page: 1, total_pages: 0, total_count: 0, has_next: false, has_previous: false } } });
  });
});
