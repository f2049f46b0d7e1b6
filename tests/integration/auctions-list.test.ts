import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import type { Db } from '../../services/shared/database/db.js';
import { createTestApp } from '../support/app.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';

const DAY = 24 * 3600 * 1000;

type Card = {
  id: number;
  slug: string;
  make_model: string;
  deal_score: number | null;
  price: number | null;
  [k: string]: unknown;
};
type ListBody = { data: { items: Card[]; pagination: Record<string, number | boolean> } };

describe('GET /api/auctions/list/', () => {
  let app: ApiApp;
  let db: Db;
  let close: () => Promise<void>;
  const ids: Record<string, number> = {};

  async function list(query: string): Promise<ListBody> {
    const res = await app.inject({ method: 'GET', url: `/api/auctions/list/${query}` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as ListBody;
  }

  beforeAll(async () => {
    const t = await createTestApp();
    ({ app, close } = t);
    db = t.ctx.database.db;
    const site = await insertSource(db, 'ironplanet', 'IronPlanet');
    const other = await insertSource(db, 'gsaauctions', 'GSA Auctions');
    const rows = await insertListings(db, site, [
      {
        title: '2016 Caterpillar 320FL Hydraulic Excavator',
        make: 'Caterpillar', model: '320FL', year: 2016, hours: 5400, condition: 'Good',
        description: 'Clean excavator with thumb.', categoryId: 1, city: 'Houston', state: 'TX',
        askingPrice: 90000, currentBid: 85000, bidCount: 4, dealScore: 910,
        images: ['https://img.example/320-1.jpg', 'https://img.example/320-2.jpg'],
      },
      {
        title: '2014 CAT 320E L Excavator', make: 'CAT', model: '320E L', year: 2014, categoryId: 1,
        city: 'Dallas', state: 'TX', askingPrice: 70000, dealScore: 640,
      },
      {
        title: '2019 John Deere 310SJ Backhoe Loader', make: 'John Deere', model: '310SJ', year: 2019, categoryId: 4,
        city: 'Des Moines', state: 'IA', askingPrice: 65000, dealScore: 720,
      },
      {
        title: 'Komatsu D61PX Dozer', make: 'Komatsu', model: 'D61PX', categoryId: 2, city: 'Denver', state: 'CO',
        askingPrice: 120000, dealScore: null,
      },
      {
        title: 'Bobcat S650 Skid Steer', make: 'Bobcat', model: 'S650', categoryId: 5, city: 'Austin', state: 'TX',
        askingPrice: 30000, dealScore: 640,
      },
      {
        title: 'Generac 20KW Diesel Generator', make: 'Generac', model: 'SD020', categoryId: 8, city: 'Reno', state: 'NV',
        askingPrice: null, dealScore: 300, auctionEndAt: null,
      },
      { title: 'Ended Caterpillar D6T Dozer', make: 'Caterpillar', model: 'D6T', categoryId: 2, state: 'TX', askingPrice: 50000, dealScore: 990, auctionEndAt: new Date(Date.now() - DAY) },
      { title: 'Sold Volvo EC220 Excavator', make: 'Volvo', model: 'EC220', categoryId: 1, state: 'TX', askingPrice: 40000, dealScore: 995, status: 'sold' },
    ]);
    const rowsOther = await insertListings(db, other, [
      {
        title: 'Used excavators lot: two Hitachi ZX210 units', make: 'Hitachi', model: 'ZX210', categoryId: 1, city: 'Phoenix', state: 'AZ',
        askingPrice: 100000, currentBid: 45000, bidCount: 2, currency: 'USD', dealScore: null,
        description: 'Two tracked units sold together. Includes buckets.',
      },
    ]);
    for (const r of [...rows, ...rowsOther]) ids[r.title] = r.id;
  });
  afterAll(async () => close());

  it('lists only open, not-ended listings, best score first with unscored last', async () => {
    const body = await list('');
    const scores = body.data.items.map((i) => i.deal_score);
    expect(body.data.items).toHaveLength(7);
    expect(scores.slice(0, 5)).toEqual([910, 720, 640, 640, 300]);
    expect(scores.slice(5)).toEqual([null, null]);
    // Ties (640) broken by id ascending.
    const tied = body.data.items.filter((i) => i.deal_score === 640).map((i) => i.id);
    expect(tied).toEqual([...tied].sort((a, b) => a - b));
    expect(body.data.items.map((i) => i.make_model)).not.toContain('Caterpillar D6T');
    expect(body.data.items.map((i) => i.make_model)).not.toContain('Volvo EC220');
  });
});
