/**
 * The matcher over the real database and queues: the set-based SQL agrees with the pure rule on
 * random alerts and listings, a batch run twice records nothing new, and from the `match` queue
 * to the outbox: one instant e-mail with why the lot matched, nothing more on a rerun or after
 * the alert is turned off, a price drop notifies again, and the daily digest gathers matches.
 */
import { randomInt } from 'node:crypto';
import { eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertNotifications, alerts, listings, users } from '../../db/schema/index.js';
import type { ApiApp } from '../../services/api/app.js';
import { alertMatches, worthTheTripFor } from '../../services/alerts/alert-matching.js';
import type { AlertCriteria } from '../../services/alerts/alert-rules.js';
import { alertLinkKey } from '../../services/alerts/alerts-service.js';
import { verifyUnsubscribeToken } from '../../services/alerts/unsubscribe-tokens.js';
import { startMatcher } from '../../services/matcher/index.js';
import { createDigestHandler } from '../../services/matcher/match-listings.js';
import { startNotifier } from '../../services/notifier/index.js';
import { insertAlertWithinLimit, listAlertNotifications, matchChangedListings } from '../../services/shared/repositories/alerts-repository.js';
import { listMessages } from '../../services/shared/repositories/outbox-repository.js';
import type { ServiceHandle } from '../../services/shared/service.js';
import { bearer, registerUser, type SignedIn } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';
import { geocode, lookupZip } from '../../services/shared/geo/gazetteer.js';
import { distanceMiles } from '../../services/shared/geo/distance.js';
import { waitFor } from '../support/wait.js';
import { haulEstimate } from '../../services/shared/rules/freight-rates.js';
import { worthTheTripExact } from '../../services/listings/delivered-total.js';

const HOUR = 3_600_000;

const DALLAS = lookupZip('75201')!;
const OKC = lookupZip('73102')!;
/** Lots in Texas, Oklahoma and beyond (and unplaced), at distances on either side of the radii. */
const PLACES = [
  { lat: null, lon: null },
  geocode({ city: 'Dallas', state: 'TX' })!,
  geocode({ city: 'Houston', state: 'TX' })!,
  geocode({ city: 'Austin', state: 'TX' })!,
  geocode({ city: 'Tulsa', state: 'OK' })!,
  geocode({ city: 'Lubbock', state: 'TX' })!,
  geocode({ state: 'CA' })!,
].map((p) => ({ lat: p.lat, lon: p.lon }));

function pick<T>(items: readonly T[]): T {
  return items[randomInt(items.length)]!;
}

describe('matching SQL agrees with the pure rule', () => {
  let ctx: TestContext;
  let close: () => Promise<void>;
  let app: ApiApp;
  beforeAll(async () => {
    ({ app, ctx, close } = await createTestApp());
  });
  afterAll(async () => close());

  it('worth the trip at the exact cent: a discount equal to the haul is not worth it, a cent more is (SQL, pure rule and list agree)', async () => {
    const owner = await registerUser(app);
    const criteria: AlertCriteria = {
      categoryId: 1, priceMin: null, priceMax: null, state: null, condition: null, deliveryMethod: 'email', frequency: 'instant',
      dealLevel: 'good', minDealScore: null, includeUnscored: false, keywords: null, keywordTerms: null, isActive: true,
      nearZip: '75201', nearLat: DALLAS.lat, nearLon: DALLAS.lon, radiusMiles: null, worthTheTrip: true,
    };
    const row = await insertAlertWithinLimit(ctx.database.db, owner.user.id, criteria, null);
    if (row === 'limit') throw new Error('no limit expected');
    const place = PLACES[4]!; // Tulsa
    const haul = haulEstimate('compact', distanceMiles(DALLAS, place as { lat: number; lon: number })).high;
    // $100.13 and a fair value exactly the haul above it: in floats the difference is a hair over the haul.
    const fairAt = (cents: number) => (10_013 + haul * 100 + cents) / 100;
    expect(fairAt(0) - 100.13).toBeGreaterThan(haul);
    const lot = (fairValue: number, i: number) => ({
      title: `Kubota KX040 mini excavator #${i}`, make: 'Kubota', model: 'KX040', description: '', categoryId: 1, priceUsd: 100.13, state: 'OK',
      condition: null, dealScore: 800, fairValue, status: 'open' as const, auctionEndAt: null, ...place,
    });
    const [tie, cent] = await insertListings(ctx.database.db, await insertSource(ctx.database.db), [lot(fairAt(0), 1), lot(fairAt(1), 2)]);
    expect(worthTheTripFor(criteria, tie!)).toBe(false);
    expect(worthTheTripFor(criteria, cent!)).toBe(true);
    expect([tie, cent].map((l) => worthTheTripExact(l!.priceUsd, l!.fairValue ?? null, haul))).toEqual([false, true]);
    await matchChangedListings(ctx.database.db, [tie!, cent!].map((l) => ({ listingId: l.id, trigger: 'scored' as const })));
    expect((await listAlertNotifications(ctx.database.db, row.id)).map((n) => n.listingId)).toEqual([cent!.id]);
    // Leave nothing behind for the next test (it compares every notification in the database).
    await ctx.database.db.delete(alertNotifications).where(eq(alertNotifications.alertId, row.id));
    await ctx.database.db.update(alerts).set({ isActive: false }).where(eq(alerts.id, row.id));
    await ctx.database.db.update(listings).set({ status: 'closed' }).where(inArray(listings.id, [tie!.id, cent!.id]));
  });

  it('on random alerts and listings, and a second run of the batch records nothing', async () => {
    const db = ctx.database.db;
    const owners = await Promise.all([registerUser(app), registerUser(app), registerUser(app)]);
    const words = ['cat', '320', 'deere', 'komatsu', 'cab', 'low hours', 'tracks'];
    const states = ['TX', 'CA', 'OK'];
    const conditions = ['New', 'Good', 'Fair', 'Parts Only'] as const;
    const alerts: Array<{ id: number; criteria: AlertCriteria }> = [];
    for (let i = 0; i < 300; i++) {
      const min = pick([null, null, 10_000, 30_000]);
      const keywordTerms = pick([null, null, null, ['cat'], ['320', 'cab'], ['komatsu']]);
      const criteria: AlertCriteria = {
        categoryId: pick([1, 2, 3]),
        priceMin: min,
        priceMax: pick([null, null, 25_000, 60_000, 5_000]),
        state: pick([null, null, ...states]),
        condition: pick([null, null, ...conditions]),
        deliveryMethod: 'email',
        frequency: pick(['instant', 'daily'] as const),
        dealLevel: pick(['good', 'good', 'excellent'] as const),
        minDealScore: pick([null, null, null, 50, 80, 100, 0]),
        includeUnscored: pick([false, false, true]),
        keywords: keywordTerms?.join(' ') ?? null,
        keywordTerms,
        isActive: pick([true, true, true, false]),
        ...pick([
          { nearZip: null, nearLat: null, nearLon: null, radiusMiles: null },
          { nearZip: null, nearLat: null, nearLon: null, radiusMiles: null },
          // Dallas (75201) or Oklahoma City (73102), within 50–400 miles, or a ZIP code without a radius
          { nearZip: '75201', nearLat: DALLAS.lat, nearLon: DALLAS.lon, radiusMiles: pick([50, 200, 400]) },
          { nearZip: '73102', nearLat: OKC.lat, nearLon: OKC.lon, radiusMiles: pick([100, 250]) },
          { nearZip: '75201', nearLat: DALLAS.lat, nearLon: DALLAS.lon, radiusMiles: null },
          // worth the trip from Dallas or Oklahoma City, with or without a radius
          { nearZip: '75201', nearLat: DALLAS.lat, nearLon: DALLAS.lon, radiusMiles: null, worthTheTrip: true },
          { nearZip: '73102', nearLat: OKC.lat, nearLon: OKC.lon, radiusMiles: pick([null, 400]), worthTheTrip: true },
        ]),
      };
      const row = await insertAlertWithinLimit(db, pick(owners).user.id, criteria, null);
      if (row === 'limit') throw new Error('no limit expected');
      alerts.push({ id: row.id, criteria });
    }
    const source = await insertSource(db);
    const now = new Date();
    const inserted = await insertListings(
      db,
      source,
      Array.from({ length: 120 }, (_, i) => ({
        // model numbers and size words that give every weight class (freight.ts): mini, 320, 349, D8
        title: `${pick(['CAT', 'Deere', 'Komatsu'])} ${pick(['320', '210', '650', '349', 'D8', 'mini'])} ${pick(['excavator', 'dozer', 'loader with cab'])} #${i}`,
        make: pick([null, 'Caterpillar', 'John Deere']),
        model: pick([null, '320D', 'D6']),
        description: pick(['', 'Low hours, enclosed cab', 'Runs on tracks']),
        categoryId: pick([1, 2, 3, 4]),
        priceUsd: pick([null, 4_000, 9_999, 10_000, 24_999, 25_000, 45_000, 60_000, 80_000]),
        state: pick([null, ...states, 'NY']),
        condition: pick([null, ...conditions, 'Like New' as const]),
        dealScore: pick([null, 0, 1, 491, 500, 791, 799, 800, 801, 991, 1000]),
        // discounts on either side of the hauls (about $600 to $16,000 from these places)
        fairValue: pick([null, 5_000, 12_000, 26_000, 30_000, 50_000, 90_000]),
        status: pick(['open', 'open', 'open', 'closed'] as const),
        auctionEndAt: pick([null, new Date(now.getTime() + 5 * HOUR), new Date(now.getTime() - HOUR)]),
        ...pick(PLACES),
      })),
    );

    const created = await matchChangedListings(db, inserted.map((l) => ({ listingId: l.id, trigger: 'scored' as const })), now);
    const rows = await db.select().from(alertNotifications);
    expect(rows.length).toBe(created);
    const got = new Set(rows.map((r) => `${r.alertId}:${r.listingId}`));
    const expected = new Set<string>();
    for (const l of inserted) {
      for (const a of alerts) {
        if (alertMatches(a.criteria, { ...l, priceUsd: l.priceUsd, auctionEndAt: l.auctionEndAt }, now)) expected.add(`${a.id}:${l.id}`);
      }
    }
    expect(expected.size).toBeGreaterThan(20); // the data exercises the rule
    // ... worth the trip among it: pairs it keeps, and pairs it alone turns away
    const tripAlerts = alerts.filter((a) => a.criteria.worthTheTrip);
    const keptByTrip = inserted.flatMap((l) => tripAlerts.filter((a) => expected.has(`${a.id}:${l.id}`)));
    const turnedAway = inserted.flatMap((l) =>
      tripAlerts.filter((a) => !worthTheTripFor(a.criteria, l) && alertMatches({ ...a.criteria, worthTheTrip: false }, l, now)),
    );
    expect(keptByTrip.length).toBeGreaterThan(3);
    expect(turnedAway.length).toBeGreaterThan(3);
    expect([...got].sort()).toEqual([...expected].sort());
    expect(rows.every((r) => r.event === 'match' && r.eventKey === '' && r.status === 'pending')).toBe(true);

    // The same batch again (a job run twice), a rescore, a "price drop" without a lower price: nothing new.
    const batch = (trigger: 'scored' | 'price_drop') => inserted.map((l) => ({ listingId: l.id, trigger }));
    expect(await matchChangedListings(db, batch('scored'), now)).toBe(0);
    expect(await matchChangedListings(db, batch('price_drop'), now)).toBe(0);

    // Every price falls 10%: a price_drop for each lot that matched before and still matches.
    await db.execute(sql`UPDATE listings SET price_usd = round(price_usd * 0.9) WHERE price_usd IS NOT NULL`);
    const lowered = await db.select().from(listings);
    const expectedDrops = new Set<string>();
    for (const l of lowered) {
      for (const a of alerts) {
        if (l.priceUsd !== null && expected.has(`${a.id}:${l.id}`) && alertMatches(a.criteria, l, now)) expectedDrops.add(`${a.id}:${l.id}`);
      }
    }
    expect(expectedDrops.size).toBeGreaterThan(5);
    expect(await matchChangedListings(db, batch('scored'), now)).toBe(expectedDrops.size + [...expected].length * 0 + newMatches(lowered));
    const drops = (await db.select().from(alertNotifications)).filter((r) => r.event === 'price_drop');
    expect(new Set(drops.map((r) => `${r.alertId}:${r.listingId}`))).toEqual(expectedDrops);
    expect(drops.every((r) => r.eventKey === String(Number(lowered.find((l) => l.id === r.listingId)!.priceUsd)))).toBe(true);
    expect(await matchChangedListings(db, batch('price_drop'), now)).toBe(0);

    /** Pairs that match only now (the lower price entered a budget): first matches, not drops. */
    function newMatches(rows: typeof lowered): number {
      let n = 0;
      for (const l of rows) for (const a of alerts) if (!expected.has(`${a.id}:${l.id}`) && alertMatches(a.criteria, l, now)) n++;
      return n;
    }
  });
});

describe('from the match queue to the outbox', () => {
  let ctx: TestContext;
  let app: ApiApp;
  let close: () => Promise<void>;
  let services: ServiceHandle[];
  let source: { id: number; name: string };

  beforeAll(async () => {
    ({ app, ctx, close } = await createTestApp());
    services = [await startMatcher(ctx), await startNotifier(ctx)];
    source = await insertSource(ctx.database.db);
  });
  afterAll(async () => {
    for (const s of services ?? []) await s.stop();
    await close();
  });

  const createAlert = async (user: SignedIn, body: Record<string, unknown>) => {
    const res = await app.inject({ method: 'POST', url: '/api/alerts/', headers: bearer(user.access_token), payload: body });
    expect(res.statusCode).toBe(201);
    return res.json().data as { id: number };
  };

  const underpricedExcavator = (title: string) => ({
    title,
    make: 'Caterpillar',
    model: '320D',
    categoryId: 1,
    priceUsd: 45_000,
    price: 45_000,
    state: 'TX',
    city: 'Dallas',
    condition: 'Good' as const,
    dealScore: 871,
    fairValue: 62_000,
    auctionEndAt: new Date(Date.now() + 2 * 24 * HOUR + 5 * HOUR + 10 * 60_000),
  });

  const sentTo = async (email: string) => (await listMessages(ctx.database.db, { to: email, limit: 100 })).filter((m) => m.status === 'sent');

  it('within 150 miles of a ZIP code: fires for a lot 100 miles away, not for one 400 miles away; the e-mail shows the price delivered', async () => {
    const user = await registerUser(app);
    const bad = await app.inject({ method: 'POST', url: '/api/alerts/', headers: bearer(user.access_token), payload: { equipment_type: 'Excavators', near_zip: '9999', radius_miles: 150 } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({ near_zip: ['Enter a US ZIP code (5 digits).'], detail: 'Enter a US ZIP code (5 digits).' });
    const alert = await createAlert(user, { equipment_type: 'Excavators', near_zip: '50309', radius_miles: 150 });
    // Points due north of Des Moines' 50309: 100 and 400 miles as the crow flies.
    const buyer = lookupZip('50309')!;
    const north = (miles: number) => ({ lat: buyer.lat + miles / 69.09, lon: buyer.lon });
    expect(distanceMiles(buyer, north(100))).toBeCloseTo(100, 0);
    expect(distanceMiles(buyer, north(400))).toBeCloseTo(400, 0);
    const [near, far] = await insertListings(ctx.database.db, source, [
      { ...underpricedExcavator('2014 CAT 320D Excavator, 100 miles'), state: 'MN', city: null, ...north(100), geoPrecision: 'city', buyersPremiumPct: 10 },
      { ...underpricedExcavator('2014 CAT 320D Excavator, 400 miles'), state: 'MN', city: null, ...north(400), geoPrecision: 'city' },
    ]);
    const jobs = [];
    for (const l of [near!, far!]) jobs.push(await ctx.queues.enqueue('match', { listingId: l.id, event: 'scored', eventKey: `near-${l.id}` }));
    const [message] = await waitFor(async () => {
      const sent = await sentTo(user.user.email);
      return sent.length > 0 ? sent : undefined;
    }, 20_000, 'alert e-mail');
    // Both jobs done, and only the near lot notified.
    for (const job of jobs) await waitFor(async () => ((await ctx.queues.queue('match').getJobState(job.id!)) === 'completed' ? true : undefined));
    const notified = await listAlertNotifications(ctx.database.db, alert.id);
    expect(notified.map((n) => n.listingId)).toEqual([near!.id]);
    const text = message!.textBody;
    expect(text).toContain('Why it matched: Excavators · Any price · within 150 mi of 50309 · any condition');
    expect(text).toContain('Distance: about 100 mi from 50309');
    // A 20-ton excavator 120 road miles away: the lowboy's minimum charges; the stated 10% premium.
    expect(text).toContain('Haul (estimate): $800 - $2,500');
    expect(text).toContain("Delivered (estimate): $50,300 - $52,000 incl. $4,500 buyer's premium");
    expect(await sentTo(user.user.email)).toHaveLength(1);
  });

  it('sends exactly one e-mail saying why the lot matched; a rerun sends nothing; turned off → nothing more', async () => {
    const user = await registerUser(app);
    const alert = await createAlert(user, { equipment_type: 'Excavators', price_max: 50_000, state: 'TX' });
    const [listing] = await insertListings(ctx.database.db, source, [underpricedExcavator('2015 CAT 320D <b>Excavator</b>')]);

    await ctx.queues.enqueue('match', { listingId: listing!.id, event: 'scored', eventKey: 'score-1' });
    const [message] = await waitFor(async () => {
      const sent = await sentTo(user.user.email);
      return sent.length > 0 ? sent : undefined;
    }, 20_000, 'alert e-mail');
    expect(message).toMatchObject({ channel: 'email', kind: 'alert', transport: 'outbox', recipient: user.user.email });
    expect(message!.subject).toBe('Deal alert: 2015 CAT 320D <b>Excavator</b> at $45,000 (88 • Excellent Deal)');
    const text = message!.textBody;
    expect(text).toContain('A listing matches your Excavators alert.');
    expect(text).toContain('Price: $45,000');
    expect(text).toContain('Deal score: 88 • Excellent Deal');
    expect(text).toContain('The deal: $45,000 — about 27% under similar sales; 99 in 100 sold for more');
    expect(text).toContain('Fair value: $62,000');
    expect(text).toContain('Time left: 2d 5h');
    expect(text).toContain('Location: Dallas, TX');
    expect(text).toContain('Why it matched: Excavators · Below $50,000 · TX · any condition');
    expect(text).toContain(`View the deal: http://localhost:8080/deal/${listing!.slug}`);
    // Untrusted titles are escaped in HTML.
    expect(message!.htmlBody).toContain('2015 CAT 320D &lt;b&gt;Excavator&lt;/b&gt;');
    expect(message!.htmlBody).not.toContain('<b>Excavator</b>');
    const unsubscribe = /Turn this alert off: (\S+)/.exec(text)![1]!;
    const token = new URL(unsubscribe).searchParams.get('token')!;
    expect(verifyUnsubscribeToken(alertLinkKey(ctx.config), token)).toBe(alert.id);

    const [notification] = await listAlertNotifications(ctx.database.db, alert.id);
    await waitFor(async () => ((await listAlertNotifications(ctx.database.db, alert.id))[0]?.status === 'sent' ? true : undefined));
    expect(notification).toMatchObject({ listingId: listing!.id, event: 'match', trigger: 'scored', channel: 'email', messageKey: `alert:${notification!.id}` });

    // The same job again under another id, and a rescore: no second message.
    const rerun = await ctx.queues.enqueue('match', { listingId: listing!.id, event: 'scored', eventKey: 'score-1' }, { jobId: 'rerun-1' });
    const rescore = await ctx.queues.enqueue('match', { listingId: listing!.id, event: 'scored', eventKey: 'score-2' });
    for (const job of [rerun, rescore]) {
      await waitFor(async () => ((await ctx.queues.queue('match').getJobState(job.id!)) === 'completed' ? true : undefined));
    }
    expect(await sentTo(user.user.email)).toHaveLength(1);

    // The notifications list shows it, newest first.
    const list = await app.inject({ method: 'GET', url: '/api/alerts/notifications/', headers: bearer(user.access_token) });
    expect(list.json().data.items).toEqual([
      expect.objectContaining({ alert_id: alert.id, equipment_type: 'Excavators', event: 'match', channel: 'email', status: 'sent', price: 45_000, deal_score: 871, listing: expect.objectContaining({ id: listing!.id, slug: listing!.slug }) }),
    ]);

    // One-click unsubscribe as mail clients do it (RFC 8058): the headers name the URL, a POST
    // turns the alert off; a new matching lot sends nothing.
    expect(message!.headers).toEqual({ 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' });
    const oneClick = await app.inject({
      method: 'POST',
      url: new URL(unsubscribe).pathname + new URL(unsubscribe).search,
      payload: 'List-Unsubscribe=One-Click',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(oneClick.statusCode).toBe(200);
    const [second] = await insertListings(ctx.database.db, source, [underpricedExcavator('2016 CAT 320D Excavator')]);
    const job = await ctx.queues.enqueue('match', { listingId: second!.id, event: 'new', eventKey: 'new' });
    await waitFor(async () => ((await ctx.queues.queue('match').getJobState(job.id!)) === 'completed' ? true : undefined));
    expect(await sentTo(user.user.email)).toHaveLength(1);
  });

  it('a price drop notifies again; closed or ended lots never', async () => {
    const user = await registerUser(app);
    const alert = await createAlert(user, { equipment_type: 'Excavators', price_max: 50_000 });
    const [listing, closed, ended] = await insertListings(ctx.database.db, source, [
      underpricedExcavator('Komatsu PC210 Excavator'),
      { ...underpricedExcavator('Closed lot'), status: 'closed' },
      { ...underpricedExcavator('Ended lot'), auctionEndAt: new Date(Date.now() - HOUR) },
    ]);
    for (const l of [listing!, closed!, ended!]) await ctx.queues.enqueue('match', { listingId: l.id, event: 'new', eventKey: 'new' });
    await waitFor(async () => ((await sentTo(user.user.email)).length === 1 ? true : undefined), 20_000);

    await ctx.database.db.update(listings).set({ priceUsd: 39_000, price: 39_000 }).where(eq(listings.id, listing!.id));
    await ctx.queues.enqueue('match', { listingId: listing!.id, event: 'price_drop', eventKey: 'obs-2' });
    const sent = await waitFor(async () => {
      const all = await sentTo(user.user.email);
      return all.length === 2 ? all : undefined;
    }, 20_000, 'price drop e-mail');
    expect(sent[0]!.subject).toBe('Price drop: Komatsu PC210 Excavator now $39,000');
    expect(sent[0]!.textBody).toContain('The price dropped on a listing that matches your Excavators alert.');
    const rows = await listAlertNotifications(ctx.database.db, alert.id);
    expect(rows.map((r) => [r.listingId, r.event, r.eventKey])).toEqual([
      [listing!.id, 'match', ''],
      [listing!.id, 'price_drop', '39000'],
    ]);
  });

  it('daily alerts wait for the digest: one e-mail per alert with the day’s matches, once', async () => {
    const user = await registerUser(app);
    const alert = await createAlert(user, { equipment_type: 'Bulldozers', frequency: 'daily' });
    const lots = await insertListings(ctx.database.db, source, [
      { ...underpricedExcavator('CAT D6T Dozer'), categoryId: 2, dealScore: 640 },
      { ...underpricedExcavator('Deere 850K Dozer'), categoryId: 2, dealScore: 910, priceUsd: 88_000 },
    ]);
    for (const l of lots) await ctx.queues.enqueue('match', { listingId: l.id, event: 'scored', eventKey: 's1' });
    await waitFor(async () => ((await listAlertNotifications(ctx.database.db, alert.id)).length === 2 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(await sentTo(user.user.email)).toHaveLength(0);

    const digest = createDigestHandler(ctx);
    const day = new Date().toISOString().slice(0, 10);
    await digest({ day, slot: 'test-1' }, undefined as never);
    const [message] = await waitFor(async () => {
      const sent = await sentTo(user.user.email);
      return sent.length > 0 ? sent : undefined;
    }, 20_000, 'digest e-mail');
    expect(message!.subject).toBe('Daily digest: 2 matches for your Bulldozers alert');
    expect(message!.kind).toBe('alert_digest');
    // Best deal first.
    expect(message!.textBody.indexOf('Deere 850K Dozer')).toBeLessThan(message!.textBody.indexOf('CAT D6T Dozer'));
    expect(message!.textBody).toContain('Deal score: 91 • Excellent Deal');
    expect(message!.textBody).toContain('Turn this alert off: http://localhost:8080/api/alerts/unsubscribe/?token=');

    await digest({ day, slot: 'test-2' }, undefined as never);
    await new Promise((r) => setTimeout(r, 500));
    expect(await sentTo(user.user.email)).toHaveLength(1);
    await waitFor(async () => ((await listAlertNotifications(ctx.database.db, alert.id)).every((n) => n.status === 'sent') ? true : undefined));
  });

  it('worth the trip within a radius: fires for a lot whose discount exceeds the haul, not for one whose discount does not; the digest shows the price delivered', async () => {
    const user = await registerUser(app);
    const trip = await createAlert(user, { equipment_type: 'Excavators', near_zip: '50309', radius_miles: 500, worth_the_trip: true });
    const daily = await createAlert(user, { equipment_type: 'Excavators', near_zip: '50309', frequency: 'daily' });
    const buyer = lookupZip('50309')!;
    const north = (miles: number) => ({ lat: buyer.lat + miles / 69.09, lon: buyer.lon });
    // A CAT 320 (heavy: a lowboy) at $45,000: 100 miles off the haul is $800–2,500, 400 miles off $1,920–2,880.
    const lot = (title: string, miles: number, fairValue: number) => ({ ...underpricedExcavator(title), state: 'MN', city: null, ...north(miles), geoPrecision: 'city' as const, fairValue, buyersPremiumPct: 10 });
    const [worth, notWorth, tooFar] = await insertListings(ctx.database.db, source, [
      lot('CAT 320D Excavator, $17,000 under, 100 miles', 100, 62_000),
      lot('CAT 320D Excavator, $1,500 under, 100 miles', 100, 46_500),
      lot('CAT 320D Excavator, $2,800 under, 400 miles', 400, 47_800),
    ]);
    for (const l of [worth!, notWorth!, tooFar!]) await ctx.queues.enqueue('match', { listingId: l.id, event: 'scored', eventKey: `trip-${l.id}` });
    // The daily alert (no filter but the ZIP code) takes all three: once it has, every match job is done.
    await waitFor(async () => ((await listAlertNotifications(ctx.database.db, daily.id)).length === 3 ? true : undefined), 20_000, 'daily matches');
    expect((await listAlertNotifications(ctx.database.db, trip.id)).map((n) => n.listingId)).toEqual([worth!.id]);
    const [instant] = await waitFor(async () => {
      const sent = await sentTo(user.user.email);
      return sent.length > 0 ? sent : undefined;
    }, 20_000, 'alert e-mail');
    expect(instant!.textBody).toContain('Why it matched: Excavators · Any price · within 500 mi of 50309 · any condition · good deals or better · worth the trip to 50309');
    expect(instant!.textBody).toContain("Delivered (estimate): $50,300 - $52,000 incl. $4,500 buyer's premium");

    const day = new Date().toISOString().slice(0, 10);
    await createDigestHandler(ctx)({ day, slot: 'trip-1' }, undefined as never);
    const digest = await waitFor(async () => (await sentTo(user.user.email)).find((m) => m.kind === 'alert_digest'), 20_000, 'digest e-mail');
    expect(digest.subject).toBe('Daily digest: 3 matches for your Excavators alert');
    expect(digest.textBody).toContain('Delivered to 50309: about 100 mi away; ≈ $50,300–$52,000 delivered with premium and haul');
    expect(digest.textBody).toContain('Delivered to 50309: about 400 mi away; ≈ $51,420–$52,380 delivered with premium and haul');
  });

  it('an inactive account gets nothing', async () => {
    const user = await registerUser(app);
    await createAlert(user, { equipment_type: 'Excavators' });
    await ctx.database.db.update(users).set({ isActive: false }).where(eq(users.id, user.user.id));
    const [listing] = await insertListings(ctx.database.db, source, [underpricedExcavator('Hitachi ZX210')]);
    expect(await matchChangedListings(ctx.database.db, [{ listingId: listing!.id, trigger: 'new' }])).toBeGreaterThanOrEqual(0);
    const mine = (await ctx.database.db.select().from(alertNotifications).where(eq(alertNotifications.userId, user.user.id)));
    expect(mine).toEqual([]);
  });
});
