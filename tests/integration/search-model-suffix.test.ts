/**
 * Model designations with a dash suffix ("PC120-6", "WA380-6"): PostgreSQL's parser reads the
 * suffix as a signed integer ('-6'), while a buyer's "PC120-6" is the words "pc120" and "6".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { createTestApp } from '../support/app.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';

describe('search by a model with a dash suffix', () => {
  let app: ApiApp;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const t = await createTestApp();
    ({ app, close } = t);
    const db = t.ctx.database.db;
    const site = await insertSource(db, 'demo', 'Demo');
    await insertListings(db, site, [
      { title: '1998 Komatsu PC120-6 Excavator', make: 'Komatsu', model: 'PC120-6', year: 1998, categoryId: 1, state: 'TN', askingPrice: 3000, dealScore: 700 },
      { title: '2004 Komatsu PC120-8 Excavator', make: 'Komatsu', model: 'PC120-8', year: 2004, categoryId: 1, state: 'TN', askingPrice: 9000, dealScore: 600 },
      { title: '2006 Komatsu WA380-6 Wheel Loader', make: 'Komatsu', model: 'WA380-6', year: 2006, categoryId: 3, state: 'OH', askingPrice: 40000, dealScore: 500 },
    ]);
  });
  afterAll(async () => close());

  const found = async (q: string) => {
    const res = await app.inject({ method: 'GET', url: `/api/auctions/list/?search=${encodeURIComponent(q)}` });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { data: { items: { make_model: string }[] } }).data.items.map((i) => i.make_model).sort();
  };

  it('finds the model as written, and tells its suffixes apart', async () => {
    expect(await found('PC120-6')).toEqual(['Komatsu PC120-6']);
    expect(await found('komatsu pc120-8')).toEqual(['Komatsu PC120-8']);
    expect(await found('PC120')).toEqual(['Komatsu PC120-6', 'Komatsu PC120-8']);
    expect(await found('-6')).toEqual(['Komatsu PC120-6', 'Komatsu WA380-6']);
  });
});
