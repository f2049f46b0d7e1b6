/**
 * Requests say what they mean (issue 40, PRODUCT.md "API conventions"), against the real API and
 * database: on every route with a JSON body a field the route does not know is a 400 in the
 * contract's shape naming it, with a hint where a near name exists, and nothing is done; the list
 * route does the same for query parameters; free-form maps (analytics properties) and the e-mail
 * unsubscribe links stay open; the OpenAPI document says which objects are closed.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { UNKNOWN_PARAMETERS_NOTE } from '../../services/api/plugins/openapi-error-answers.js';
import { bearer, registerUser, STRONG_PASSWORD, uniqueEmail, type SignedIn } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';

let app: ApiApp;
let ctx: TestContext;
let close: () => Promise<void>;
let user: SignedIn;
let listingId: number;

beforeAll(async () => {
  ({ app, ctx, close } = await createTestApp());
  user = await registerUser(app);
  const source = await insertSource(ctx.database.db);
  const [lot] = await insertListings(ctx.database.db, source, [{ title: '2015 Caterpillar 320 Excavator', city: 'Ames', state: 'IA', auctionEndAt: new Date(Date.now() + 3 * 86_400_000) }]);
  listingId = lot!.id;
});
afterAll(async () => close?.());

type Method = 'POST' | 'PUT' | 'PATCH';
const send = (method: Method, url: string, payload: Record<string, unknown>, headers: Record<string, string> = bearer(user.access_token)) =>
  app.inject({ method, url, headers, payload });
const count = async (table: string) =>
  ((await ctx.database.db.execute(sql.raw(`SELECT count(*)::int AS n FROM ${table}`))) as unknown as [{ n: number }])[0].n;

/** The 400 names the field first (the contract's shape: `{field: [message], detail: message}`). */
function expectUnknown(res: { statusCode: number; body: string; json(): unknown }, field: string, message: string): void {
  expect(res.statusCode, res.body).toBe(400);
  const body = res.json() as Record<string, unknown>;
  expect(body[field], res.body).toEqual([message]);
  expect(body.detail).toBe(message);
}

describe('a JSON body field the route does not know', () => {
  // One row per route with a JSON body: [method, url, a payload the route otherwise takes plus the stray field, field, message].
  const routes: Array<[Method, string, () => Record<string, unknown>, string, string]> = [
    ['POST', '/api/auth/register/', () => ({ email: uniqueEmail(), password: STRONG_PASSWORD, password2: STRONG_PASSWORD, first_name: 'Dana', last_name: 'Miller', terms_accepted: true }), 'password', 'password: unknown field; did you mean password1?'],
    ['POST', '/api/auth/login/', () => ({ email: 'someone@example.com', password: STRONG_PASSWORD, remember_me: true }), 'remember_me', 'remember_me: unknown field.'],
    ['POST', '/api/auth/google/', () => ({ idToken: 'x.y.z' }), 'idToken', 'idToken: unknown field; did you mean id_token?'],
    ['POST', '/api/auth/logout/', () => ({ refresh: 'token' }), 'refresh', 'refresh: unknown field; did you mean refresh_token?'],
    ['POST', '/api/auth/token/refresh/', () => ({ refresh_token: 'token' }), 'refresh_token', 'refresh_token: unknown field; did you mean refresh?'],
    ['PUT', '/api/auth/profile/', () => ({ email: user.user.email, first_name: 'Dana', last_name: 'Miller', zip_code: '50309' }), 'zip_code', 'zip_code: unknown field; did you mean zip?'],
    ['POST', '/api/auth/password/change/', () => ({ old_password: STRONG_PASSWORD, new_password: 'Another-Sunset-43', new_password2: 'Another-Sunset-43' }), 'new_password', 'new_password: unknown field; did you mean new_password1?'],
    ['POST', '/api/auth/password/reset/', () => ({ mail: user.user.email }), 'mail', 'mail: unknown field; did you mean email?'],
    ['POST', '/api/auth/password/reset/confirm/', () => ({ uidb64: 'MQ', token: 'abc', new_password1: 'x', new_password2: 'x' }), 'uidb64', 'uidb64: unknown field; did you mean uid?'],
    ['POST', '/api/subscriptions/create-checkout/', () => ({ plan: 'pro', success_url: 'http://localhost/a', cancel_url: 'http://localhost/b' }), 'plan', 'plan: unknown field; did you mean plan_id?'],
    ['POST', '/api/alerts/', () => ({ equipment_type: 'Excavators', location: 'Minnesota' }), 'location', 'location: unknown field; did you mean state?'],
    ['PATCH', '/api/alerts/1/', () => ({ active: false }), 'active', 'active: unknown field; did you mean is_active?'],
    ['POST', '/api/watchlist/', () => ({ listingId }), 'listingId', 'listingId: unknown field; did you mean listing_id?'],
    ['PATCH', '/api/watchlist/1/', () => ({ remind_before: 15 }), 'remind_before', 'remind_before: unknown field; did you mean remind_before_minutes?'],
    ['POST', '/api/events/', () => ({ deviceId: 'dr_device-1', events: [{ name: 'Home' }] }), 'deviceId', 'deviceId: unknown field; did you mean device_id?'],
  ];

  it.each(routes)('%s %s: a 400 naming it, with the near name', async (method, url, payload, field, message) => {
    expectUnknown(await send(method, url, payload()), field, message);
  });

  it('covers every route with a JSON body in the OpenAPI document', async () => {
    const paths = (await app.inject({ method: 'GET', url: '/api/docs/json' })).json().paths as Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>>;
    const withJsonBody = Object.entries(paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => op.requestBody?.content?.['application/json'])
        .map(([method]) => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '1')}`),
    );
    expect(withJsonBody.sort()).toEqual(routes.map(([method, url]) => `${method} ${url}`).sort());
  });

  it('POST /api/alerts/ with "location" creates nothing (it used to create an alert for every state)', async () => {
    const before = await count('alerts');
    expectUnknown(await send('POST', '/api/alerts/', { equipment_type: 'Excavators', location: 'Minnesota' }), 'location', 'location: unknown field; did you mean state?');
    expect(await count('alerts')).toBe(before);
    const meant = await send('POST', '/api/alerts/', { equipment_type: 'Excavators', state: 'MN' });
    expect(meant.statusCode, meant.body).toBe(201);
    expect(meant.json().data.state).toBe('MN');
  });

  it('names every unknown field, then what else is wrong; a name far from all has no hint', async () => {
    const res = await send('POST', '/api/auth/login/', { emial: 'someone@example.com', pasword: STRONG_PASSWORD, zzz: 1 });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.detail).toBe('emial: unknown field; did you mean email?');
    expect(body.pasword).toEqual(['pasword: unknown field; did you mean password?']);
    expect(body.zzz).toEqual(['zzz: unknown field.']);
    expect(body.email).toEqual(['email: This field is required.']);
    expect(Object.keys(body).slice(0, 3)).toEqual(['emial', 'pasword', 'zzz']);
  });

  it('a name written otherwise (camelCase, words swapped) is pointed at the route\'s spelling', async () => {
    expectUnknown(await send('POST', '/api/alerts/', { equipment_type: 'Cranes', priceMin: 100 }), 'priceMin', 'priceMin: unknown field; did you mean price_min?');
    expectUnknown(await send('POST', '/api/alerts/', { equipment_type: 'Cranes', min_price: 100 }), 'min_price', 'min_price: unknown field; did you mean price_min?');
  });

  it('looks into nested objects, not into free-form maps', async () => {
    const device = 'dr_strict-events-1';
    const nested = await send('POST', '/api/events/', { device_id: device, events: [{ name: 'Home', typ: 'page' }] });
    expectUnknown(nested, 'events', 'events.0.typ: unknown field; did you mean type?');
    // properties and user_properties are free-form by design (spec §5): any key is taken.
    const free = await send('POST', '/api/events/', {
      device_id: device,
      user_properties: { email: user.user.email, anything: 1 },
      events: [{ name: 'Auction Searched', type: 'track', properties: { query: 'cat 320', whatever_key: true }, timestamp: new Date().toISOString() }],
    });
    expect(free.statusCode, free.body).toBe(202);
  });

  it('the spec\'s and the web app\'s payloads pass as before', async () => {
    // §7 register with every field (the web app omits empty optional ones).
    const registered = await send('POST', '/api/auth/register/', {
      email: uniqueEmail(), password1: STRONG_PASSWORD, password2: STRONG_PASSWORD, first_name: 'Lee', last_name: 'Park', phone: '555-0100', city: 'Ames', address: '1 Main St', terms_accepted: true,
    }, {});
    expect(registered.statusCode, registered.body).toBe(201);
    const login = await send('POST', '/api/auth/login/', { email: user.user.email, password: STRONG_PASSWORD }, {});
    expect(login.statusCode, login.body).toBe(200);
    // The account page's profile form (web/src/features/account: ProfileInput).
    const profile = await send('PUT', '/api/auth/profile/', { first_name: 'Dana', last_name: 'Miller', email: user.user.email, phone: '', city: '', address: '', zip: '50309' });
    expect(profile.statusCode, profile.body).toBe(200);
    // The alert form's payload (web/src/features/alerts: alertPayload) with a ZIP code.
    const alert = await send('POST', '/api/alerts/', {
      equipment_type: 'Excavators', state: null, price_min: null, price_max: 50000, condition: null, delivery_method: 'email', deal_level: 'good', include_unscored: false, near_zip: '50309', radius_miles: 300, worth_the_trip: true,
    });
    expect(alert.statusCode, alert.body).toBe(201);
    const watched = await send('POST', '/api/watchlist/', { listing_id: listingId });
    expect(watched.statusCode, watched.body).toBe(201);
    const reminded = await send('PATCH', `/api/watchlist/${listingId}/`, { remind_before_minutes: 15 });
    expect(reminded.statusCode, reminded.body).toBe(200);
  });
});

describe('a query parameter the route does not know', () => {
  it('GET /api/auctions/list/: a 400 naming it, with the near name', async () => {
    for (const [query, field, message] of [
      ['state=TX', 'state', 'state: unknown parameter; did you mean location?'],
      ['q=excavator', 'q', 'q: unknown parameter; did you mean search?'],
      ['sortBy=price_low', 'sortBy', 'sortBy: unknown parameter; did you mean sort_by?'],
      ['zip=50309', 'zip', 'zip: unknown parameter; did you mean near?'],
      ['per_page=20', 'per_page', 'per_page: unknown parameter; did you mean page_size?'],
      ['categry=2', 'categry', 'categry: unknown parameter; did you mean category?'],
      ['page=1&foo=bar', 'foo', 'foo: unknown parameter.'],
    ]) {
      const res = await app.inject({ method: 'GET', url: `/api/auctions/list/?${query}` });
      expectUnknown(res, field!, message!);
    }
  });

  it('GET /api/auctions/list/: sort_by=distance without near is a 400 like sort_by=delivered; with near it sorts', async () => {
    for (const [sort, message] of [
      ['distance', 'sort_by: distance needs near (a ZIP code) to measure from.'],
      ['delivered', 'sort_by: delivered needs near (a ZIP code) to deliver to.'],
    ]) {
      const res = await app.inject({ method: 'GET', url: `/api/auctions/list/?sort_by=${sort}` });
      expect(res.statusCode, sort).toBe(400);
      expect(res.json()).toEqual({ sort_by: [message], detail: message });
      const near = await app.inject({ method: 'GET', url: `/api/auctions/list/?near=50309&sort_by=${sort}` });
      expect(near.statusCode, near.body).toBe(200);
    }
  });

  it('the detail route and the notifications list too', async () => {
    expectUnknown(await app.inject({ method: 'GET', url: `/api/auctions/detail/${listingId}/?zip=50309` }), 'zip', 'zip: unknown parameter; did you mean near?');
    expectUnknown(
      await app.inject({ method: 'GET', url: '/api/alerts/notifications/?per_page=5', headers: bearer(user.access_token) }),
      'per_page',
      'per_page: unknown parameter; did you mean limit?',
    );
    // What the web app sends still passes.
    expect((await app.inject({ method: 'GET', url: `/api/auctions/list/?category=1&min_price=0&max_price=90000&location=IA&search=cat&near=50309&radius_miles=300&max_delivered=900000&worth_the_trip=true&sort_by=distance&page=1&page_size=15` })).statusCode).toBe(200);
  });

  it('leaves the e-mail unsubscribe links open: mail clients add parameters to them', async () => {
    for (const url of ['/api/alerts/unsubscribe/?token=nope&utm_source=newsletter', '/api/watchlist/unsubscribe/?token=nope&utm_medium=email']) {
      const res = await app.inject({ method: 'GET', url });
      // The page for a bad token, not a 400 about utm_*.
      expect(res.statusCode, url).toBe(400);
      expect(res.headers['content-type'], url).toContain('text/html');
      expect(res.body).toContain('Link not valid');
    }
  });
});

describe('the OpenAPI document says so', () => {
  type Schema = { properties?: Record<string, Schema>; additionalProperties?: unknown; items?: Schema; anyOf?: Schema[] };
  let paths: Record<string, Record<string, { description?: string; requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  beforeAll(async () => {
    paths = (await app.inject({ method: 'GET', url: '/api/docs/json' })).json().paths;
  });
  const body = (path: string, method: string) => paths[path]![method]!.requestBody!.content['application/json']!.schema;

  it('closed bodies carry additionalProperties: false; free-form maps stay open', () => {
    expect(body('/api/alerts/', 'post').additionalProperties).toBe(false);
    expect(body('/api/auth/register/', 'post').additionalProperties).toBe(false);
    const events = body('/api/events/', 'post');
    expect(events.additionalProperties).toBe(false);
    expect(events.properties!.events!.items!.additionalProperties).toBe(false);
    const properties = events.properties!.events!.items!.properties!.properties!;
    expect(properties.additionalProperties ?? properties.anyOf?.[0]?.additionalProperties).not.toBe(false);
  });

  it('the list route says an unknown parameter is a 400; the unsubscribe link does not', () => {
    expect(paths['/api/auctions/list/']!.get!.description).toContain(UNKNOWN_PARAMETERS_NOTE);
    expect(paths['/api/alerts/unsubscribe/']!.get!.description ?? '').not.toContain(UNKNOWN_PARAMETERS_NOTE);
  });
});
