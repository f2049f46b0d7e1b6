/**
 * Bid limits (issue 38) through the real pieces: Fast Iron sales imported, a model trained and
 * stored, the scorer's scoreAndWrite storing each lot's limits with its score; the detail and the
 * cards read them; a watch's default maximum follows the Good limit on a rescore (a buyer's own
 * does not move); a bid crossing it sends one notice; the estimate route values a machine with a
 * listed lot's facts exactly as the detail shows that lot, refuses bad input and counts its plans'
 * allowances.
 */
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importSalesCommand } from '../../scripts/cli/import-sales-command.js';
import type { ApiApp } from '../../services/api/app.js';
import { dispatchDueWatches } from '../../services/matcher/dispatch-watch-notices.js';
import { ModelStore } from '../../services/scorer/model-store.js';
import { scoreAndWrite } from '../../services/scorer/score-batch.js';
import { trainAndStoreModel } from '../../services/scorer/train-model.js';
import { listMessages } from '../../services/shared/repositories/outbox-repository.js';
import { bearer, registerUser, type SignedIn } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';
import { startFakeStripe, type FakeStripe } from '../support/fake-stripe.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';
import { makePremium, premiumEnv } from '../support/premium.js';
import { waitFor } from '../support/wait.js';

const DATA = path.resolve(process.env.SHARED_DIR ?? '../shared', 'data/bulldozers');
const BACKHOE = 4;
const HOUR = 3_600_000;
const backhoe = { categoryId: BACKHOE, make: 'Caterpillar', model: '416D', year: 2002, hours: 4000, state: 'TX', description: '' };

describe('bid limits', () => {
  let app: ApiApp;
  let ctx: TestContext;
  let close: () => Promise<void>;
  let stripe: FakeStripe;
  let models: ModelStore;
  let source: { id: number; name: string };

  beforeAll(async () => {
    stripe = await startFakeStripe();
    ({ app, ctx, close } = await createTestApp({ env: { ...premiumEnv(stripe), ESTIMATE_FREE_DAILY: '3', ESTIMATE_RATE_PER_MINUTE: '6' } }));
    expect(await importSalesCommand.run(ctx, ['--format', 'fastiron', path.join(DATA, 'Train_first10931rows.csv.gz')])).toBe(0);
    // a quicker fit than production (fewer trees); the path is the same
    await trainAndStoreModel(ctx.database.db, { params: { trees: 150, learningRate: 0.1 } });
    models = new ModelStore(ctx.database.db);
    // the market an estimate is valued on (machine-estimate.ts): a lot of this source has the same facts
    source = await insertSource(ctx.database.db, 'fastiron', 'Fast Iron Test');
  }, 300_000);
  afterAll(async () => {
    await close?.();
    await stripe?.close();
  });

  const detail = async (id: number) => {
    const res = await app.inject({ method: 'GET', url: `/api/auctions/detail/${id}/` });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data;
  };
  const watch = async (user: SignedIn, body: Record<string, unknown>) => {
    const res = await app.inject({ method: 'POST', url: '/api/watchlist/', headers: bearer(user.access_token), payload: body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { watch_id: number; max_price: number | null; max_price_follows_good: boolean; good_bid_limit: number | null };
  };
  const maxPrice = async (watchId: number) => {
    const [row] = (await ctx.database.db.execute(sql`SELECT max_price::float8 AS m FROM watched_lots WHERE id = ${watchId}`)) as unknown as Array<{ m: number | null }>;
    return row!.m;
  };

  it('stores the limits with the score; the detail and the cards read them; rescoring moves a default maximum, not a buyer\u2019s own; one notice when the bid passes it', async () => {
    const t0 = new Date();
    const end = new Date(t0.getTime() + 20 * HOUR);
    const [lot] = await insertListings(ctx.database.db, source, [
      { ...backhoe, title: '2002 Caterpillar 416D backhoe', currentBid: 2_000, buyersPremiumPct: 10, auctionEndAt: end, bidCount: 3, city: 'Dallas', lat: 32.7767, lon: -96.797, geoPrecision: 'city' },
    ]);
    await scoreAndWrite(ctx, models, [lot!.id], { now: t0 });
    const d = await detail(lot!.id);
    const limits = d.bid_limits;
    // 20 hours out a lot can be at most Good, and the page says so
    expect(limits).toMatchObject({ excellent: null, at_most: 'good', premium_rate: 0.1 });
    expect(limits.good).toBeGreaterThan(0);
    expect(limits.good).toBeLessThan(limits.market);
    expect(limits.market).toBe(Math.floor(d.valuation.fair_value / 1.1));
    expect(limits.line).toContain(`Bid up to $${limits.good.toLocaleString('en-US')} for a Good deal (19 in 20 similar machines sold for more)`);
    expect(limits.note).toMatch(/^With 20 hours left this lot can be at most Good/);
    // with a ZIP code, each limit delivered
    const near = (await app.inject({ method: 'GET', url: `/api/auctions/detail/${lot!.id}/?near=75201` })).json().data;
    expect(near.bid_limits.delivered.good.low).toBeGreaterThan(limits.good * 1.1);
    // the card
    const card = await waitFor(async () => {
      const items = (await app.inject({ method: 'GET', url: '/api/auctions/list/?search=416D' })).json().data.items as Array<{ id: number; good_bid_limit: number | null }>;
      return items.find((c) => c.id === lot!.id && c.good_bid_limit !== null);
    }, 20_000, 'the card with its Good limit');
    expect(card.good_bid_limit).toBe(limits.good);

    // a premium buyer watching it gets the Good limit as the maximum; another sets their own
    const follower = await registerUser(app);
    await makePremium(app, stripe, follower.access_token);
    const own = await registerUser(app);
    await makePremium(app, stripe, own.access_token);
    const followed = await watch(follower, { listing_id: lot!.id });
    expect(followed).toMatchObject({ max_price: limits.good, max_price_follows_good: true, good_bid_limit: limits.good });
    const mine = await watch(own, { listing_id: lot!.id, max_price: 900_000 });
    expect(mine).toMatchObject({ max_price: 900_000, max_price_follows_good: false });

    // ten hours later the rescore raises the limit (less time left): the default follows, the own stays
    const t1 = new Date(t0.getTime() + 10 * HOUR);
    await scoreAndWrite(ctx, models, [lot!.id], { now: t1 });
    const later = (await detail(lot!.id)).bid_limits;
    expect(later.good).toBeGreaterThan(limits.good);
    expect(await maxPrice(followed.watch_id)).toBe(later.good);
    expect(await maxPrice(mine.watch_id)).toBe(900_000);

    // a bid past the Good limit: one notice; a higher bid and another rescore: none more
    const over = later.good + 200;
    await ctx.database.db.execute(sql`UPDATE listings SET current_bid = ${over}, price = ${over}, price_usd = ${over} WHERE id = ${lot!.id}`);
    expect(await dispatchDueWatches(ctx, t1)).toMatchObject({ queued: 1 });
    await ctx.database.db.execute(sql`UPDATE listings SET current_bid = ${over + 500}, price = ${over + 500}, price_usd = ${over + 500} WHERE id = ${lot!.id}`);
    await scoreAndWrite(ctx, models, [lot!.id], { now: new Date(t1.getTime() + 2 * HOUR) });
    expect((await dispatchDueWatches(ctx, new Date(t1.getTime() + 2 * HOUR))).queued).toBe(0);
    const notices = (await listMessages(ctx.database.db, { to: follower.user.email, limit: 10 })).filter((m) => m.kind === 'watch_price_rise');
    expect(notices).toHaveLength(1);
    expect(notices[0]!.textBody).toContain(`now $${over.toLocaleString('en-US')}: above the Good price $${later.good.toLocaleString('en-US')}`);
    expect((await listMessages(ctx.database.db, { to: own.user.email, limit: 10 })).filter((m) => m.kind === 'watch_price_rise')).toHaveLength(0);
  });

  it('the estimate route values a machine as the detail shows a listed lot with the same facts', async () => {
    // a fixed-price lot with no premium: what an estimate values a machine as
    const [lot] = await insertListings(ctx.database.db, source, [
      { ...backhoe, title: '2002 Caterpillar 416D', askingPrice: 30_000, auctionEndAt: null, bidCount: 0 },
    ]);
    await scoreAndWrite(ctx, models, [lot!.id]);
    const d = await detail(lot!.id);
    const res = await app.inject({ method: 'GET', url: '/api/valuation/estimate/?category=4&make=Caterpillar&model=416D&year=2002&hours=4000&zip=75201', remoteAddress: '10.0.0.1' });
    expect(res.statusCode, res.body).toBe(200);
    const e = res.json().data;
    expect(e).toMatchObject({ title: '2002 Caterpillar 416D', state: 'TX', known_model: true, estimates_left_today: 2 });
    expect(e.valuation).toEqual({
      as_of: d.valuation.as_of,
      fair_value: d.valuation.fair_value,
      low: d.valuation.low,
      high: d.valuation.high,
      confidence: d.valuation.confidence,
      comparables: d.valuation.comparables,
    });
    for (const k of ['excellent', 'good', 'market', 'poor', 'premium_rate', 'at_most', 'line'] as const) expect(e.bid_limits[k]).toEqual(d.bid_limits[k]);
    // and they are the lot's score inverted: asked at its Good limit it scores Good, a dollar over it not
    const scoredAt = async (price: number) => {
      await ctx.database.db.execute(sql`UPDATE listings SET asking_price = ${price}, price = ${price}, price_usd = ${price} WHERE id = ${lot!.id}`);
      await scoreAndWrite(ctx, models, [lot!.id]);
      return (await detail(lot!.id)).deal_level;
    };
    expect(['good', 'excellent']).toContain(await scoredAt(d.bid_limits.good));
    expect(['good', 'excellent']).not.toContain(await scoredAt(d.bid_limits.good + 1));
    expect(await scoredAt(d.bid_limits.excellent)).toBe('excellent');
    expect(await scoredAt(d.bid_limits.excellent + 1)).not.toBe('excellent');

    // an unknown model is valued from its type and words, and says so
    const unknown = (await app.inject({ method: 'GET', url: '/api/valuation/estimate/?category=4&make=Caterpillar&model=ZZ999&year=2004', remoteAddress: '10.0.0.1' })).json().data;
    expect(unknown.known_model).toBe(false);
    expect(unknown.note).toMatch(/^We hold no sales of the Caterpillar ZZ999: valued from its type/);
    expect(unknown.valuation.fair_value).toBeGreaterThan(0);
  });

  it('refuses bad input and unknown parameters in the contract\u2019s shape, before counting them', async () => {
    const ask = (query: string) => app.inject({ method: 'GET', url: `/api/valuation/estimate/?${query}`, remoteAddress: '10.0.0.2' });
    const cases: Array<[string, string]> = [
      ['category=4&year=abc', 'year'],
      ['category=4&zip=00000', 'zip'],
      ['category=4&near=75201', 'near'],
      ['category=999999', 'category'],
      ['make=Caterpillar', 'category'],
    ];
    for (const [query, field] of cases) {
      const res = await ask(query);
      expect(res.statusCode, query).toBe(400);
      const body = res.json();
      expect(body[field], query).toEqual([expect.any(String)]);
      expect(body.detail).toBe(body[field][0]);
    }
    expect((await ask('category=4&near=75201')).json().near[0]).toContain('did you mean zip?');
    // none of those was counted: a fresh address still has its three
    expect((await ask('category=4&model=416D')).json().data.estimates_left_today).toBe(2);
  });

  it('Free: the daily allowance per account and per address; Pro: unlimited; everyone rate-limited per minute', async () => {
    const ask = (address: string, token?: string) =>
      app.inject({ method: 'GET', url: '/api/valuation/estimate/?category=4&model=416D', remoteAddress: address, headers: token ? bearer(token) : {} });
    // an address without an account: three, then a 403 saying why
    for (let i = 0; i < 3; i++) expect((await ask('10.0.1.1')).statusCode).toBe(200);
    const over = await ask('10.0.1.1');
    expect(over.statusCode).toBe(403);
    expect(over.json().detail).toMatch(/used your 3 free estimates today. Upgrade to Pro/);
    // a Free account counts its own, wherever it asks from
    const free = await registerUser(app);
    for (const address of ['10.0.2.1', '10.0.2.2', '10.0.2.3']) expect((await ask(address, free.access_token)).statusCode).toBe(200);
    expect((await ask('10.0.2.4', free.access_token)).statusCode).toBe(403);
    // Pro: past the Free allowance, up to the per-minute limit (6), then 429 with Retry-After
    const pro = await registerUser(app);
    await makePremium(app, stripe, pro.access_token);
    for (let i = 0; i < 6; i++) {
      const res = await ask('10.0.3.1', pro.access_token);
      expect(res.statusCode).toBe(200);
      expect(res.json().data.estimates_left_today).toBeNull();
    }
    const throttled = await ask('10.0.3.1', pro.access_token);
    expect(throttled.statusCode).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    // and per account: the same Pro account from another address is throttled too
    expect((await ask('10.0.3.2', pro.access_token)).statusCode).toBe(429);
  });
});
