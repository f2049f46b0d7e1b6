/**
 * Issue #22 — bounded volume for SMS, over the real database, queues, matcher and notifier, with
 * the real `twilio` SDK against the local fake: a premium SMS alert gets at most
 * `ALERT_DAILY_SMS_CAP` instant SMS per UTC day (default 3, not the e-mail cap of 5); the day's
 * other matches roll into the daily digest (one digest SMS); a non-default cap is honoured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { badgeScore } from '../../services/alerts/alert-matching.js';
import { createDigestHandler } from '../../services/matcher/match-listings.js';
import { startMatcher } from '../../services/matcher/index.js';
import { startNotifier } from '../../services/notifier/index.js';
import { listAlertNotifications } from '../../services/shared/repositories/alerts-repository.js';
import { listMessages } from '../../services/shared/repositories/outbox-repository.js';
import type { ServiceHandle } from '../../services/shared/service.js';
import { bearer, registerUser } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';
import { startFakeStripe, type FakeStripe } from '../support/fake-stripe.js';
import { startFakeTwilio, type FakeTwilio } from '../support/fake-twilio.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';
import { makePremium, premiumEnv } from '../support/premium.js';
import { waitFor } from '../support/wait.js';

const HOUR = 3_600_000;

/** A good-or-better excavator deal in `state`, as the volume test's lots (valued, ending in 30 h). */
const deal = (i: number, state: string) => ({
  title: `2016 Komatsu PC210LC Excavator lot ${i}`,
  make: 'Komatsu',
  model: 'PC210LC',
  categoryId: 1,
  priceUsd: 40_000 + i * 1_000,
  price: 40_000 + i * 1_000,
  state,
  condition: 'Good' as const,
  dealScore: 650 + (i % 10) * 30,
  fairValue: 80_000,
  valueLow: 60_000,
  valueHigh: 100_000,
  auctionEndAt: new Date(Date.now() + 30 * HOUR),
});

type Stack = { app: ApiApp; ctx: TestContext; stripe: FakeStripe; twilio: FakeTwilio; services: ServiceHandle[]; close: () => Promise<void>; source: { id: number; name: string } };

/** The API, matcher and notifier over a fresh database; premium through the fake Stripe, SMS through the fake Twilio. */
async function startStack(env: Record<string, string> = {}): Promise<Stack> {
  const stripe = await startFakeStripe();
  const twilio = await startFakeTwilio();
  const { app, ctx, close } = await createTestApp({ env: { ...premiumEnv(stripe), ...twilio.env(), ...env } });
  const services = [await startMatcher(ctx), await startNotifier(ctx)];
  return { app, ctx, stripe, twilio, services, close, source: await insertSource(ctx.database.db) };
}

async function stopStack(s: Stack | undefined): Promise<void> {
  if (!s) return;
  for (const service of s.services) await service.stop();
  await s.close();
  await s.twilio.close();
  await s.stripe.close();
}

/**
 * A premium buyer's instant SMS alert (alone in `state`) and `count` good deals scored at once,
 * one match job each as the scorer queues them; returns once every match is either sent by SMS
 * or rolled into the digest.
 */
async function smsAlertOverDeals(s: Stack, opts: { phone: string; e164: string; state: string; count: number; from?: number }) {
  const buyer = await registerUser(s.app, { phone: opts.phone });
  await makePremium(s.app, s.stripe, buyer.access_token);
  const res = await s.app.inject({
    method: 'POST',
    url: '/api/alerts/',
    headers: bearer(buyer.access_token),
    payload: { equipment_type: 'Excavators', delivery_method: 'sms', frequency: 'instant', state: opts.state },
  });
  expect(res.statusCode, res.body).toBe(201);
  const alertId = res.json().data.id as number;
  const lots = await scoreDeals(s, opts.state, opts.count, opts.from ?? 0);
  const rows = await settled(s, alertId, lots.length);
  return { buyer, alertId, lots, rows };
}

async function scoreDeals(s: Stack, state: string, count: number, from: number) {
  const lots = await insertListings(s.ctx.database.db, s.source, Array.from({ length: count }, (_, i) => deal(from + i, state)));
  expect(lots.every((l) => badgeScore(l.dealScore!) >= 60)).toBe(true);
  for (const l of lots) await s.ctx.queues.enqueue('match', { listingId: l.id, event: 'scored', eventKey: `score-${l.id}` });
  return lots;
}

/** The alert's notifications once `count` exist and each instant one has been sent. */
function settled(s: Stack, alertId: number, count: number) {
  return waitFor(async () => {
    const found = await listAlertNotifications(s.ctx.database.db, alertId);
    return found.length === count && found.every((r) => r.frequency === 'daily' || r.status === 'sent') ? found : undefined;
  }, 30_000, `the ${count} matches of alert ${alertId} sent or rolled over`);
}

const smsTo = (s: Stack, e164: string) => s.twilio.requests.filter((r) => r.form.To === e164).map((r) => r.form.Body!);

/** The digest handler as the daily schedule runs it, for today (UTC). */
async function runDigest(s: Stack) {
  const day = new Date().toISOString().slice(0, 10);
  return createDigestHandler(s.ctx)({ day, slot: `${day.replaceAll('-', '')}0700` }, {} as never);
}

describe('SMS daily cap, default (3 per alert per day)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack();
  });
  afterAll(async () => stopStack(s));

  it('a premium SMS alert gets at most 3 instant SMS a day; the rest roll into the digest, sent as one SMS', async () => {
    expect(s.ctx.config.ALERT_DAILY_SMS_CAP).toBe(3);
    expect(s.ctx.config.ALERT_DAILY_EMAIL_CAP).toBe(5);
    const phone = { phone: '(702) 555-0181', e164: '+17025550181' };
    const { buyer, alertId, lots, rows } = await smsAlertOverDeals(s, { ...phone, state: 'NV', count: 8 });

    // The SMS cap, not the e-mail cap: 3 instant, 5 in the digest.
    expect(rows.every((r) => r.channel === 'sms')).toBe(true);
    const instant = rows.filter((r) => r.frequency === 'instant');
    expect(instant).toHaveLength(3);
    expect(rows.filter((r) => r.frequency === 'daily')).toHaveLength(5);
    await waitFor(async () => (smsTo(s, phone.e164).length >= 3 ? true : undefined), 20_000, 'the 3 instant SMS');
    await new Promise((r) => setTimeout(r, 1_000)); // nothing more trickles out
    const sent = smsTo(s, phone.e164);
    expect(sent).toHaveLength(3);
    // Each SMS says why (the alert's criteria) and links its lot.
    const instantLinks = new Set(instant.map((r) => `http://localhost:8080/d/${r.listingId.toString(36)}`));
    for (const body of sent) {
      expect(body).toContain('Why: Excavators, NV, good+');
      expect(instantLinks.has(body.split(' ').pop()!)).toBe(true);
    }

    // The list says which ones wait for the digest.
    const listed = await s.app.inject({ method: 'GET', url: '/api/alerts/notifications/?limit=200', headers: bearer(buyer.access_token) });
    const items = listed.json().data.items as Array<{ rolled_into_digest: boolean; channel: string }>;
    expect(items).toHaveLength(lots.length);
    expect(items.filter((n) => n.rolled_into_digest)).toHaveLength(5);

    // Later the same day the cap is still spent: further matches go to the digest too.
    const more = await scoreDeals(s, 'NV', 2, 50);
    const after = await settled(s, alertId, lots.length + more.length);
    expect(after.filter((r) => r.frequency === 'instant')).toHaveLength(3);
    expect(after.filter((r) => r.frequency === 'daily')).toHaveLength(7);
    await new Promise((r) => setTimeout(r, 500));
    expect(smsTo(s, phone.e164)).toHaveLength(3);

    // The daily digest sends the 7 rolled-over matches as one SMS.
    expect(await runDigest(s)).toEqual({ gathered: 1, queued: 1 });
    await waitFor(async () => (smsTo(s, phone.e164).length === 4 ? true : undefined), 20_000, 'the digest SMS');
    const digest = smsTo(s, phone.e164)[3]!;
    expect(digest).toMatch(/^Deal Radar: 7 new Excavators matches today\. Top: /);
    expect(digest.endsWith(' http://localhost:8080/alerts')).toBe(true);
    // The message log agrees: 3 instant alert SMS, however many matches.
    expect((await listMessages(s.ctx.database.db, { to: phone.e164, limit: 50 })).filter((m) => m.kind === 'alert')).toHaveLength(3);
  }, 90_000);
});

describe('SMS daily cap, configured (ALERT_DAILY_SMS_CAP=2)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await startStack({ ALERT_DAILY_SMS_CAP: '2' });
  });
  afterAll(async () => stopStack(s));

  it('honours a non-default cap: 2 instant SMS, the rest in the digest', async () => {
    expect(s.ctx.config.ALERT_DAILY_SMS_CAP).toBe(2);
    const phone = { phone: '702-555-0182', e164: '+17025550182' };
    const { rows } = await smsAlertOverDeals(s, { ...phone, state: 'UT', count: 6 });
    const instant = rows.filter((r) => r.frequency === 'instant');
    expect(instant).toHaveLength(2);
    expect(rows.filter((r) => r.frequency === 'daily')).toHaveLength(4);
    await waitFor(async () => (smsTo(s, phone.e164).length >= 2 ? true : undefined), 20_000, 'the 2 instant SMS');
    await new Promise((r) => setTimeout(r, 1_000));
    expect(smsTo(s, phone.e164)).toHaveLength(2);

    expect(await runDigest(s)).toEqual({ gathered: 1, queued: 1 });
    await waitFor(async () => (smsTo(s, phone.e164).length === 3 ? true : undefined), 20_000, 'the digest SMS');
    expect(smsTo(s, phone.e164)[2]).toMatch(/^Deal Radar: 4 new Excavators matches today\. Top: /);
  }, 90_000);
});
