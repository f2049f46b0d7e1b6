/**
 * The watchlist API over the real app and database (issue 31): watch, list with card fields and
 * reminder settings, change, stop watching; 404/409/403 and 400 in the contract's shapes; plan
 * limits from billing's entitlements (premium through the real Stripe webhook flow against the
 * local fake); the OpenAPI document; and the signed unsubscribe link.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { FREE_WATCH_LIMIT } from '../../services/billing/entitlements.js';
import { signWatchToken, watchLinkKey } from '../../services/watchlist/watch-unsubscribe.js';
import { bearer, registerUser, type SignedIn } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';
import { startFakeStripe, type FakeStripe } from '../support/fake-stripe.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';
import { makePremium, premiumEnv } from '../support/premium.js';

describe('watchlist API', () => {
  let app: ApiApp;
  let ctx: TestContext;
  let close: () => Promise<void>;
  let stripe: FakeStripe;
  let lots: Array<{ id: number; slug: string }>;

  beforeAll(async () => {
    stripe = await startFakeStripe();
    ({ app, ctx, close } = await createTestApp({ env: premiumEnv(stripe) }));
    const source = await insertSource(ctx.database.db);
    const hour = 3600_000;
    lots = await insertListings(
      ctx.database.db,
      source,
      Array.from({ length: FREE_WATCH_LIMIT + 3 }, (_, i) => ({
        title: `2015 Caterpillar 320 Excavator #${i}`,
        make: 'Caterpillar',
        model: '320',
        currentBid: 30_000 + i,
        fairValue: 50_000,
        dealScore: 700,
        // Lot 0 ends last, lot 1 first: the list is by time left.
        auctionEndAt: new Date(Date.now() + (i === 0 ? 90 : i + 2) * hour),
      })),
    );
  });
  afterAll(async () => {
    await close();
    await stripe.close();
  });

  const call = (user: SignedIn, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    app.inject({ method, url, headers: bearer(user.access_token), ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}) });

  it('needs a signed-in user: 401 before any body validation', async () => {
    for (const [method, url] of [['GET', '/api/watchlist/'], ['POST', '/api/watchlist/'], ['PATCH', '/api/watchlist/1/'], ['DELETE', '/api/watchlist/1/']] as const) {
      const res = await app.inject({ method, url, payload: method === 'POST' || method === 'PATCH' ? { remind_before_minutes: 'x' } : undefined });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    }
  });

  it('watches a lot, lists it with its card and reminder, changes and removes it', async () => {
    const user = await registerUser(app);
    const created = await call(user, 'POST', '/api/watchlist/', { listing_id: lots[0]!.id, remind_before_minutes: 180 });
    expect(created.statusCode).toBe(201);
    const item = created.json().data;
    expect(item).toMatchObject({
      id: lots[0]!.id,
      listing_id: lots[0]!.id,
      slug: lots[0]!.slug,
      make_model: 'Caterpillar 320',
      current_price: 30_000,
      deal_score: 700,
      listing_status: 'open',
      remind_before_minutes: 180,
      max_price: null,
      delivery_method: 'email',
      notify: true,
      fair_value: 50_000,
      final_price: null,
      outcome: null,
      notices: { reminder_sent_at: null, price_notice_sent_at: null, closed_notice_sent_at: null, gone_notice_sent_at: null, last_error: null },
    });
    // The reminder is due 3 h before the close.
    expect(Date.parse(item.next_notice_at)).toBe(Date.parse(item.auction_end_date) - 180 * 60_000);

    // Default lead: 1 hour. A string id is accepted as the number it spells.
    expect((await call(user, 'POST', '/api/watchlist/', { listing_id: String(lots[1]!.id) })).json().data.remind_before_minutes).toBe(60);

    const list = await call(user, 'GET', '/api/watchlist/');
    expect(list.statusCode).toBe(200);
    // Open lots by time left: lot 1 closes first.
    expect(list.json().data.items.map((i: { listing_id: number }) => i.listing_id)).toEqual([lots[1]!.id, lots[0]!.id]);

    const changed = await call(user, 'PATCH', `/api/watchlist/${lots[0]!.id}/`, { remind_before_minutes: 15 });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().data).toMatchObject({ remind_before_minutes: 15 });
    expect(Date.parse(changed.json().data.next_notice_at)).toBe(Date.parse(item.auction_end_date) - 15 * 60_000);

    expect((await call(user, 'DELETE', `/api/watchlist/${lots[0]!.id}/`)).statusCode).toBe(204);
    expect((await call(user, 'DELETE', `/api/watchlist/${lots[0]!.id}/`)).json()).toEqual({ detail: 'Not found.' });
    expect((await call(user, 'GET', '/api/watchlist/')).json().data.items).toHaveLength(1);
  });

  it('answers 409 for a lot already watched, 404 for an unknown listing, 400 in the error shape', async () => {
    const user = await registerUser(app);
    expect((await call(user, 'POST', '/api/watchlist/', { listing_id: lots[2]!.id })).statusCode).toBe(201);
    const again = await call(user, 'POST', '/api/watchlist/', { listing_id: lots[2]!.id });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({ detail: 'You already watch this lot.' });

    const unknown = await call(user, 'POST', '/api/watchlist/', { listing_id: 999_999 });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ detail: 'Not found.' });
    expect((await call(user, 'PATCH', `/api/watchlist/${lots[3]!.id}/`, { remind_before_minutes: 15 })).statusCode).toBe(404);

    const bad = await call(user, 'POST', '/api/watchlist/', { listing_id: lots[3]!.id, remind_before_minutes: 30 });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ remind_before_minutes: ['Choose one of 15, 60, 180, 1440 minutes before the close.'], detail: 'Choose one of 15, 60, 180, 1440 minutes before the close.' });
    const noId = await call(user, 'POST', '/api/watchlist/', { remind_before_minutes: 60 });
    expect(noId.statusCode).toBe(400);
    expect(noId.json().listing_id).toEqual(['Choose a listing to watch.']);
    const wrongType = await call(user, 'POST', '/api/watchlist/', { listing_id: { x: 1 } });
    expect(wrongType.statusCode).toBe(400);
    expect(typeof wrongType.json().detail).toBe('string');
    expect((await call(user, 'PATCH', '/api/watchlist/abc/', {})).statusCode).toBe(400);
    // Nothing was lost or added by the bad requests.
    expect((await call(user, 'GET', '/api/watchlist/')).json().data.items.map((i: { listing_id: number }) => i.listing_id)).toEqual([lots[2]!.id]);
  });

  it('keeps users apart', async () => {
    const a = await registerUser(app);
    const b = await registerUser(app);
    await call(a, 'POST', '/api/watchlist/', { listing_id: lots[4]!.id });
    expect((await call(b, 'GET', '/api/watchlist/')).json().data.items).toEqual([]);
    expect((await call(b, 'PATCH', `/api/watchlist/${lots[4]!.id}/`, { remind_before_minutes: 15 })).statusCode).toBe(404);
    expect((await call(b, 'DELETE', `/api/watchlist/${lots[4]!.id}/`)).statusCode).toBe(404);
    // b may watch the same lot.
    expect((await call(b, 'POST', '/api/watchlist/', { listing_id: lots[4]!.id })).statusCode).toBe(201);
  });

  it(`free plan: up to ${FREE_WATCH_LIMIT} lots, e-mail only, no price-rise notices; premium: unlimited, SMS, maximum price`, async () => {
    const user = await registerUser(app, { phone: '(512) 555-0100' });
    for (let i = 0; i < FREE_WATCH_LIMIT; i++) expect((await call(user, 'POST', '/api/watchlist/', { listing_id: lots[i]!.id })).statusCode).toBe(201);
    const over = await call(user, 'POST', '/api/watchlist/', { listing_id: lots[FREE_WATCH_LIMIT]!.id });
    expect(over.statusCode).toBe(403);
    expect(over.json()).toEqual({ detail: `Your free plan allows up to ${FREE_WATCH_LIMIT} watched lots. Upgrade to Premium to watch more.` });
    const sms = await call(user, 'PATCH', `/api/watchlist/${lots[0]!.id}/`, { delivery_method: 'sms' });
    expect(sms.statusCode).toBe(403);
    expect(sms.json().detail).toMatch(/Premium/);
    const max = await call(user, 'PATCH', `/api/watchlist/${lots[0]!.id}/`, { max_price: 40000 });
    expect(max.statusCode).toBe(403);
    expect(max.json().detail).toMatch(/Price-rise notices are a Premium feature/);

    await makePremium(app, stripe, user.access_token);
    expect((await call(user, 'POST', '/api/watchlist/', { listing_id: lots[FREE_WATCH_LIMIT]!.id })).statusCode).toBe(201);
    const premium = await call(user, 'PATCH', `/api/watchlist/${lots[0]!.id}/`, { delivery_method: 'sms', max_price: '$40,000' });
    expect(premium.statusCode).toBe(200);
    expect(premium.json().data).toMatchObject({ delivery_method: 'sms', max_price: 40_000 });
    expect((await call(user, 'GET', '/api/watchlist/')).json().data.items).toHaveLength(FREE_WATCH_LIMIT + 1);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/watchlist/', '/api/watchlist/{listing_id}/', '/api/watchlist/unsubscribe/']));
    expect(doc.paths['/api/watchlist/'].post.responses).toHaveProperty('409');
  });

  it('stops messages for one watched lot through the signed link (GET confirms, POST one-click), not others', async () => {
    const user = await registerUser(app);
    await call(user, 'POST', '/api/watchlist/', { listing_id: lots[5]!.id });
    await call(user, 'POST', '/api/watchlist/', { listing_id: lots[6]!.id });
    const rows = (await ctx.database.db.execute(sql`SELECT id, listing_id FROM watched_lots WHERE user_id = ${user.user.id} ORDER BY listing_id`)) as unknown as Array<{ id: number; listing_id: number }>;
    const token = signWatchToken(watchLinkKey(ctx.config), rows[0]!.id);

    const confirm = await app.inject({ method: 'GET', url: `/api/watchlist/unsubscribe/?token=${encodeURIComponent(token)}` });
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('Stop messages about this lot?');
    expect((await call(user, 'GET', '/api/watchlist/')).json().data.items.every((i: { notify: boolean }) => i.notify)).toBe(true);

    const oneClick = await app.inject({
      method: 'POST',
      url: `/api/watchlist/unsubscribe/?token=${encodeURIComponent(token)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.statusCode).toBe(200);
    const items = (await call(user, 'GET', '/api/watchlist/')).json().data.items as Array<{ listing_id: number; notify: boolean; next_notice_at: string | null }>;
    expect(items.find((i) => i.listing_id === lots[5]!.id)).toMatchObject({ notify: false, next_notice_at: null });
    expect(items.find((i) => i.listing_id === lots[6]!.id)).toMatchObject({ notify: true });

    const forged = await app.inject({ method: 'POST', url: `/api/watchlist/unsubscribe/?token=${encodeURIComponent(`${rows[1]!.id.toString(36)}.AAAAAAAAAAAAAAAAAAAAAAAA`)}` });
    expect(forged.statusCode).toBe(400);
  });
});
