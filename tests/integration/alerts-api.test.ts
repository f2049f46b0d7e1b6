/**
 * The alerts API over the real app and database: CRUD for the signed-in user only, the spec's
 * validation in the contract's shape, plan limits from billing's entitlements (premium made
 * through the real Stripe webhook flow against the local fake), the unsubscribe link, the STOP
 * webhook with a real Twilio signature, and the SMS short link.
 */
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { alertLinkKey } from '../../services/alerts/alerts-service.js';
import { signUnsubscribeToken } from '../../services/alerts/unsubscribe-tokens.js';
import { optedOutPhones } from '../../services/shared/repositories/alerts-repository.js';
import { bearer, registerUser, type SignedIn } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';
import { startFakeStripe, type FakeStripe } from '../support/fake-stripe.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';
import { makePremium, premiumEnv } from '../support/premium.js';

const TWILIO_TOKEN = 'twilio-test-auth-token';

describe('alerts API', () => {
  let app: ApiApp;
  let ctx: TestContext;
  let close: () => Promise<void>;
  let stripe: FakeStripe;

  beforeAll(async () => {
    stripe = await startFakeStripe();
    ({ app, ctx, close } = await createTestApp({ env: { ...premiumEnv(stripe), TWILIO_AUTH_TOKEN: TWILIO_TOKEN, TWILIO_ACCOUNT_SID: 'AC00000000000000000000000000000000' } }));
  });
  afterAll(async () => {
    await close();
    await stripe.close();
  });

  const call = (user: SignedIn, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) =>
    app.inject({ method, url, headers: bearer(user.access_token), ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}) });

  it('needs a signed-in user: 401 before any body validation', async () => {
    for (const [method, url] of [['GET', '/api/alerts/'], ['POST', '/api/alerts/'], ['PATCH', '/api/alerts/1/'], ['DELETE', '/api/alerts/1/'], ['GET', '/api/alerts/notifications/']] as const) {
      const res = await app.inject({ method, url, payload: method === 'POST' || method === 'PATCH' ? { price_min: 'nonsense' } : undefined });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(res.json()).toEqual({ detail: 'Authentication credentials were not provided.' });
    }
  });

  it('creates, lists, changes and deletes alerts with the PRODUCT.md fields', async () => {
    const user = await registerUser(app);
    const created = await call(user, 'POST', '/api/alerts/', {
      equipment_type: 'Excavators', price_min: 20000, price_max: '60000', state: 'TX', condition: 'Good', delivery_method: 'email',
    });
    expect(created.statusCode).toBe(201);
    const alert = created.json().data;
    expect(alert).toEqual({
      id: expect.any(Number), equipment_type: 'Excavators', price_min: 20000, price_max: 60000, state: 'TX', condition: 'Good',
      delivery_method: 'email', is_active: true, created_at: expect.any(String), min_deal_score: null, deal_level: 'good', include_unscored: false, keywords: null, frequency: 'instant',
      near_zip: null, radius_miles: null, worth_the_trip: false,
    });
    expect(Date.now() - Date.parse(alert.created_at)).toBeLessThan(60_000);

    // 'any-location' / 'any-condition' and empty prices mean no filter; min above max is allowed (spec §5).
    const loose = await call(user, 'POST', '/api/alerts/', { equipment_type: 'bulldozers', state: 'any-location', condition: 'any-condition', price_min: 90000, price_max: 1000, frequency: 'daily' });
    expect(loose.statusCode).toBe(201);
    expect(loose.json().data).toMatchObject({ equipment_type: 'Bulldozers', state: null, condition: null, price_min: 90000, price_max: 1000, frequency: 'daily' });
    const empty = await call(user, 'POST', '/api/alerts/', { equipment_type: 'Cranes', price_min: '', price_max: null });
    expect(empty.json().data).toMatchObject({ price_min: null, price_max: null });

    const list = await call(user, 'GET', '/api/alerts/');
    expect(list.statusCode).toBe(200);
    expect(list.json().data.items.map((a: { equipment_type: string }) => a.equipment_type)).toEqual(['Cranes', 'Bulldozers', 'Excavators']);

    const off = await call(user, 'PATCH', `/api/alerts/${alert.id}/`, { is_active: false });
    expect(off.statusCode).toBe(200);
    expect(off.json().data).toMatchObject({ id: alert.id, is_active: false, equipment_type: 'Excavators', price_min: 20000, state: 'TX' });
    const changed = await call(user, 'PATCH', `/api/alerts/${alert.id}/`, { price_max: null, state: 'ca' });
    expect(changed.json().data).toMatchObject({ price_max: null, state: 'CA', is_active: false });

    const del = await call(user, 'DELETE', `/api/alerts/${alert.id}/`);
    expect(del.statusCode).toBe(204);
    expect((await call(user, 'DELETE', `/api/alerts/${alert.id}/`)).statusCode).toBe(404);
    expect((await call(user, 'GET', '/api/alerts/')).json().data.items).toHaveLength(2);
  });

  it('worth the trip: needs the ZIP code (400 in the field-error shape), is kept, listed and turned off with it', async () => {
    const user = await registerUser(app);
    const noZip = await call(user, 'POST', '/api/alerts/', { equipment_type: 'Excavators', worth_the_trip: true });
    expect(noZip.statusCode).toBe(400);
    expect(noZip.json()).toEqual({ worth_the_trip: ['Add a ZIP code to estimate the haul from.'], detail: 'Add a ZIP code to estimate the haul from.' });
    const notBool = await call(user, 'POST', '/api/alerts/', { equipment_type: 'Excavators', near_zip: '50309', worth_the_trip: 'yes' });
    expect(notBool.statusCode).toBe(400);
    expect(notBool.json()).toHaveProperty('worth_the_trip');
    expect((await call(user, 'GET', '/api/alerts/')).json().data.items).toEqual([]);

    const created = await call(user, 'POST', '/api/alerts/', { equipment_type: 'Excavators', near_zip: '50309', radius_miles: 300, worth_the_trip: true });
    expect(created.statusCode).toBe(201);
    const id = created.json().data.id;
    expect(created.json().data).toMatchObject({ near_zip: '50309', radius_miles: 300, worth_the_trip: true });
    expect((await call(user, 'GET', '/api/alerts/')).json().data.items[0]).toMatchObject({ id, worth_the_trip: true });
    // Clearing the ZIP code alone would leave the option without a place to measure from: refused, nothing changed.
    const cleared = await call(user, 'PATCH', `/api/alerts/${id}/`, { near_zip: null, radius_miles: null });
    expect(cleared.statusCode).toBe(400);
    expect(cleared.json()).toMatchObject({ worth_the_trip: ['Add a ZIP code to estimate the haul from.'] });
    expect((await call(user, 'GET', '/api/alerts/')).json().data.items[0]).toMatchObject({ near_zip: '50309', worth_the_trip: true });
    const off = await call(user, 'PATCH', `/api/alerts/${id}/`, { near_zip: null, radius_miles: null, worth_the_trip: false });
    expect(off.json().data).toMatchObject({ near_zip: null, radius_miles: null, worth_the_trip: false });

    // The OpenAPI document states the field, in the body and in the answer.
    const doc = (await app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    const post = doc.paths['/api/alerts/'].post;
    expect(post.requestBody.content['application/json'].schema.properties.worth_the_trip.description).toMatch(/haul/);
    expect(post.responses['201'].content['application/json'].schema.properties.data.properties.worth_the_trip.type).toBe('boolean');
  });

  it("never shows or changes another user's alert", async () => {
    const owner = await registerUser(app);
    const other = await registerUser(app);
    const id = (await call(owner, 'POST', '/api/alerts/', { equipment_type: 'Graders' })).json().data.id;
    expect((await call(other, 'GET', '/api/alerts/')).json().data.items).toEqual([]);
    expect((await call(other, 'PATCH', `/api/alerts/${id}/`, { is_active: false })).statusCode).toBe(404);
    expect((await call(other, 'DELETE', `/api/alerts/${id}/`)).statusCode).toBe(404);
    expect((await call(owner, 'GET', '/api/alerts/')).json().data.items[0]).toMatchObject({ id, is_active: true });
  });

  it('validates as the spec says, in the field-error shape', async () => {
    const user = await registerUser(app);
    const missing = await call(user, 'POST', '/api/alerts/', { price_min: 5 });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toEqual({ equipment_type: ['Please select an equipment type'], detail: 'Please select an equipment type' });
    const blank = await call(user, 'POST', '/api/alerts/', { equipment_type: '   ' });
    expect(blank.json().detail).toBe('Please select an equipment type');

    const bad = await call(user, 'POST', '/api/alerts/', { equipment_type: 'Spaceships', price_min: 12.5, price_max: -3, state: 'Atlantis', condition: 'Shiny' });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json()).sort()).toEqual(['condition', 'detail', 'equipment_type', 'price_max', 'price_min', 'state']);

    const wrongTypes = await call(user, 'POST', '/api/alerts/', { equipment_type: 'Cranes', delivery_method: 'pigeon', is_active: 'yes' });
    expect(wrongTypes.statusCode).toBe(400);
    expect(wrongTypes.json()).toHaveProperty('delivery_method');

    const hostile = await call(user, 'POST', '/api/alerts/', { equipment_type: '<script>alert(1)</script>'.repeat(50) });
    expect(hostile.statusCode).toBe(400);
    expect((await call(user, 'PATCH', '/api/alerts/abc/', { is_active: true })).statusCode).toBe(400);
    expect((await call(user, 'PATCH', '/api/alerts/99999/', { is_active: true })).statusCode).toBe(404);
    expect((await call(user, 'GET', '/api/alerts/')).json().data.items).toEqual([]);
  });

  it('free plan: at most 5 alerts, e-mail only, no advanced filters (403 with a clear message)', async () => {
    const user = await registerUser(app, { phone: '(512) 555-0100' });
    for (let i = 0; i < 5; i++) expect((await call(user, 'POST', '/api/alerts/', { equipment_type: 'Excavators', price_max: 1000 * (i + 1) })).statusCode).toBe(201);
    const sixth = await call(user, 'POST', '/api/alerts/', { equipment_type: 'Excavators' });
    expect(sixth.statusCode).toBe(403);
    expect(sixth.json().detail).toBe('Your free plan allows up to 5 alerts. Upgrade to Premium for unlimited alerts.');

    const other = await registerUser(app, { phone: '(512) 555-0101' });
    const sms = await call(other, 'POST', '/api/alerts/', { equipment_type: 'Cranes', delivery_method: 'sms' });
    expect(sms.statusCode).toBe(403);
    expect(sms.json().detail).toMatch(/SMS alerts are a Premium feature/);
    const score = await call(other, 'POST', '/api/alerts/', { equipment_type: 'Cranes', min_deal_score: 80 });
    expect(score.statusCode).toBe(403);
    expect(score.json().detail).toMatch(/Premium filters/);
    const keywords = await call(other, 'POST', '/api/alerts/', { equipment_type: 'Cranes', keywords: 'grove' });
    expect(keywords.statusCode).toBe(403);
    const id = (await call(other, 'POST', '/api/alerts/', { equipment_type: 'Cranes' })).json().data.id;
    expect((await call(other, 'PATCH', `/api/alerts/${id}/`, { delivery_method: 'sms' })).statusCode).toBe(403);
    expect((await call(other, 'PATCH', `/api/alerts/${id}/`, { min_deal_score: 70 })).statusCode).toBe(403);
    expect((await call(other, 'GET', '/api/alerts/')).json().data.items[0]).toMatchObject({ delivery_method: 'email', min_deal_score: null });
  });

  it('premium (through the Stripe webhook): unlimited alerts, SMS with a phone, advanced filters', async () => {
    const user = await registerUser(app, { phone: '512-555-0142' });
    await makePremium(app, stripe, user.access_token);
    for (let i = 0; i < 7; i++) expect((await call(user, 'POST', '/api/alerts/', { equipment_type: 'Skid Steers' })).statusCode).toBe(201);
    const sms = await call(user, 'POST', '/api/alerts/', { equipment_type: 'Excavators', delivery_method: 'sms', min_deal_score: 80, keywords: '  CAT  320 ' });
    expect(sms.statusCode).toBe(201);
    expect(sms.json().data).toMatchObject({ delivery_method: 'sms', min_deal_score: 80, keywords: 'CAT 320' });
    const badScore = await call(user, 'POST', '/api/alerts/', { equipment_type: 'Excavators', min_deal_score: 101 });
    expect(badScore.statusCode).toBe(400);
    expect(badScore.json()).toHaveProperty('min_deal_score');

    // SMS needs a phone number on the profile.
    const noPhone = await registerUser(app);
    await makePremium(app, stripe, noPhone.access_token);
    const refused = await call(noPhone, 'POST', '/api/alerts/', { equipment_type: 'Excavators', delivery_method: 'sms' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toEqual({ delivery_method: ['Add a mobile phone number to your profile to get SMS alerts.'], detail: 'Add a mobile phone number to your profile to get SMS alerts.' });
  });

  it('the unsubscribe link opens a confirm page (a GET changes nothing); the button or a one-click POST turns the alert off; forged links do nothing', async () => {
    const user = await registerUser(app);
    const id = (await call(user, 'POST', '/api/alerts/', { equipment_type: 'Wheel Loaders' })).json().data.id;
    const otherId = (await call(user, 'POST', '/api/alerts/', { equipment_type: 'Graders' })).json().data.id;
    const key = alertLinkKey(ctx.config);
    const token = signUnsubscribeToken(key, id);
    const url = `/api/alerts/unsubscribe/?token=${encodeURIComponent(token)}`;
    const active = async () => {
      const items = (await call(user, 'GET', '/api/alerts/')).json().data.items as Array<{ id: number; is_active: boolean }>;
      return { alert: items.find((a) => a.id === id)!.is_active, other: items.find((a) => a.id === otherId)!.is_active };
    };

    const forged = token.replace(/^[0-9a-z]+\./, `${otherId.toString(36)}.`);
    for (const method of ['GET', 'POST'] as const) {
      expect((await app.inject({ method, url: `/api/alerts/unsubscribe/?token=${encodeURIComponent(forged)}` })).statusCode).toBe(400);
      expect((await app.inject({ method, url: '/api/alerts/unsubscribe/?token=%3Cscript%3E' })).statusCode).toBe(400);
    }

    // A link scanner (or the buyer) opening the link: a page with a button, nothing changed.
    for (let i = 0; i < 3; i++) {
      const page = await app.inject({ method: 'GET', url });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/text\/html/);
      expect(page.body).toContain('Turn off your Wheel Loaders alert?');
      expect(page.body).toContain(`<form method="post" action="${url.replaceAll('&', '&amp;')}">`);
    }
    expect(await active()).toEqual({ alert: true, other: true });

    // The button posts the form; a mail client's one-click posts the RFC 8058 body (either encoding).
    const button = await app.inject({ method: 'POST', url, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(button.statusCode).toBe(200);
    expect(button.body).toContain('Your alert for Wheel Loaders is turned off');
    expect(await active()).toEqual({ alert: false, other: true });
    expect((await app.inject({ method: 'GET', url })).body).toContain('Alert already off');

    const otherUrl = `/api/alerts/unsubscribe/?token=${encodeURIComponent(signUnsubscribeToken(key, otherId))}`;
    const boundary = 'xYzZY';
    const multipart = await app.inject({
      method: 'POST',
      url: otherUrl,
      payload: `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(multipart.statusCode).toBe(200);
    expect(await active()).toEqual({ alert: false, other: false });
  });

  it('STOP from Twilio (signature verified) turns SMS off for that number; START turns it on again', async () => {
    const url = 'http://localhost:8080/api/alerts/sms/inbound/';
    const post = (params: Record<string, string>, signature?: string) =>
      app.inject({
        method: 'POST',
        url: '/api/alerts/sms/inbound/',
        payload: new URLSearchParams(params).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(signature ? { 'x-twilio-signature': signature } : {}) },
      });
    const stop = { From: '+15125550177', To: '+15005550006', Body: 'stop', MessageSid: 'SM1', AccountSid: 'AC00000000000000000000000000000000' };

    expect((await post(stop)).statusCode).toBe(403);
    expect((await post(stop, twilio.getExpectedTwilioSignature('wrong-token', url, stop))).statusCode).toBe(403);
    expect(await optedOutPhones(ctx.database.db, ['+15125550177'])).toEqual(new Set());

    const ok = await post(stop, twilio.getExpectedTwilioSignature(TWILIO_TOKEN, url, stop));
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('<Response>');
    expect(await optedOutPhones(ctx.database.db, ['+15125550177'])).toEqual(new Set(['+15125550177']));

    const start = { ...stop, Body: 'START', MessageSid: 'SM2' };
    expect((await post(start, twilio.getExpectedTwilioSignature(TWILIO_TOKEN, url, start))).statusCode).toBe(200);
    expect(await optedOutPhones(ctx.database.db, ['+15125550177'])).toEqual(new Set());
  });

  it('the SMS short link redirects to the deal page', async () => {
    const source = await insertSource(ctx.database.db);
    const [listing] = await insertListings(ctx.database.db, source, [{ title: 'CAT 320 Excavator', categoryId: 1 }]);
    const res = await app.inject({ method: 'GET', url: `/d/${listing!.id.toString(36)}` });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`/deal/${listing!.slug}`);
    expect((await app.inject({ method: 'GET', url: '/d/zzzzzz' })).headers.location).toBe('/dashboard');
  });
});
