/**
 * Alert delivery with the real SDKs pointed at local fakes: `twilio` (SMS) and `@sendgrid/mail`
 * (e-mail). Payloads are checked as the provider receives them; 5xx is retried with backoff, 4xx
 * is not and the failure is recorded on the notification; a job run twice sends once; a number
 * that replied STOP gets nothing.
 */
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { SMS_MAX_LENGTH } from '../../services/alerts/alert-messages.js';
import { startMatcher } from '../../services/matcher/index.js';
import { startNotifier } from '../../services/notifier/index.js';
import { listAlertNotifications } from '../../services/shared/repositories/alerts-repository.js';
import { findMessageByKey } from '../../services/shared/repositories/outbox-repository.js';
import type { ServiceHandle } from '../../services/shared/service.js';
import { bearer, registerUser, type SignedIn } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';
import { startFakeSendGrid, type FakeSendGrid } from '../support/fake-sendgrid.js';
import { startFakeStripe, type FakeStripe } from '../support/fake-stripe.js';
import { FAKE_TWILIO_FROM, FAKE_TWILIO_SID, FAKE_TWILIO_TOKEN, startFakeTwilio, type FakeTwilio } from '../support/fake-twilio.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';
import { makePremium, premiumEnv } from '../support/premium.js';
import { waitFor } from '../support/wait.js';

const HOUR = 3_600_000;

const lot = (title: string, extra: Record<string, unknown> = {}) => ({
  title,
  categoryId: 1,
  priceUsd: 45_000,
  state: 'TX',
  condition: 'Good' as const,
  dealScore: 871,
  fairValue: 62_000,
  auctionEndAt: new Date(Date.now() + 5 * HOUR + 10 * 60_000),
  ...extra,
});

async function settledNotification(ctx: TestContext, alertId: number, count = 1) {
  return waitFor(async () => {
    const rows = await listAlertNotifications(ctx.database.db, alertId);
    return rows.length >= count && rows.every((r) => ['sent', 'failed', 'skipped'].includes(r.status)) ? rows : undefined;
  }, 30_000, `notifications of alert ${alertId}`);
}

describe('SMS through the twilio SDK', () => {
  let app: ApiApp;
  let ctx: TestContext;
  let close: () => Promise<void>;
  let stripe: FakeStripe;
  let fake: FakeTwilio;
  let services: ServiceHandle[];
  let source: { id: number; name: string };

  beforeAll(async () => {
    stripe = await startFakeStripe();
    fake = await startFakeTwilio();
    ({ app, ctx, close } = await createTestApp({ env: { ...premiumEnv(stripe), ...fake.env() } }));
    services = [await startMatcher(ctx), await startNotifier(ctx)];
    source = await insertSource(ctx.database.db);
  });
  afterAll(async () => {
    for (const s of services ?? []) await s.stop();
    await close();
    await fake.close();
    await stripe.close();
  });

  // Each test's alert and lot share a state no other test uses, so lots only match that test's alert.
  async function smsUser(phone: string, state: string): Promise<{ user: SignedIn; alertId: number }> {
    const user = await registerUser(app, { phone });
    await makePremium(app, stripe, user.access_token);
    const res = await app.inject({ method: 'POST', url: '/api/alerts/', headers: bearer(user.access_token), payload: { equipment_type: 'Excavators', delivery_method: 'sms', min_deal_score: 80, state } });
    expect(res.statusCode).toBe(201);
    return { user, alertId: res.json().data.id };
  }

  const requestsTo = (phone: string) => fake.requests.filter((r) => r.form.To === phone);

  it('sends a short SMS (< 160 chars, short link) with the SDK’s payload; a rerun sends nothing more', async () => {
    const { alertId } = await smsUser('(512) 555-0142', 'TX');
    const [listing] = await insertListings(ctx.database.db, source, [lot('2015 Caterpillar 320D2 L Hydraulic Excavator with Thumb and Enclosed Cab, Low Hours, One Owner')]);
    await ctx.queues.enqueue('match', { listingId: listing!.id, event: 'scored', eventKey: 'v1' });
    const [notification] = await settledNotification(ctx, alertId);
    expect(notification).toMatchObject({ status: 'sent', channel: 'sms', error: null });

    const [request] = requestsTo('+15125550142');
    expect(request!.path).toBe(`/2010-04-01/Accounts/${FAKE_TWILIO_SID}/Messages.json`);
    expect(request!.headers.authorization).toBe(`Basic ${Buffer.from(`${FAKE_TWILIO_SID}:${FAKE_TWILIO_TOKEN}`).toString('base64')}`);
    expect(request!.headers['user-agent']).toMatch(/^twilio-node\//);
    expect(request!.form.From).toBe(FAKE_TWILIO_FROM);
    const body = request!.form.Body!;
    expect(body.length).toBeLessThan(160);
    expect(body.length).toBeLessThanOrEqual(SMS_MAX_LENGTH);
    expect(body).toMatch(/^Deal Radar: 2015 Caterpillar 320D2/);
    expect(body).toMatch(/\$45,000, 88 Excellent, \d+% under, 99% sure, 5h left\. Why: Excavators, TX, score 80\+ /);
    expect(body.endsWith(` http://localhost:8080/d/${listing!.id.toString(36)}`)).toBe(true);
    expect(await findMessageByKey(ctx.database.db, notification!.messageKey!)).toMatchObject({ channel: 'sms', status: 'sent', transport: 'twilio', providerMessageId: expect.stringMatching(/^SM/) });

    // The match job and the notify job run again: nothing is sent twice.
    await ctx.queues.enqueue('match', { listingId: listing!.id, event: 'scored', eventKey: 'v1' }, { jobId: 'match-again' });
    const again = await ctx.queues.enqueue('notify', { channel: 'sms', messageKey: notification!.messageKey!, to: '+15125550142', body, kind: 'alert' }, { jobId: 'notify-again' });
    await waitFor(async () => ((await ctx.queues.queue('notify').getJobState(again.id!)) === 'completed' ? true : undefined));
    await waitFor(async () => ((await ctx.queues.queue('match').getJobState('match-again')) === 'completed' ? true : undefined));
    expect(requestsTo('+15125550142')).toHaveLength(1);
  });

  it('retries a 5xx with backoff, then sends once', async () => {
    const { alertId } = await smsUser('512-555-0143', 'OK');
    fake.script([500]);
    const [listing] = await insertListings(ctx.database.db, source, [lot('Komatsu PC210LC-11', { state: 'OK' })]);
    await ctx.queues.enqueue('match', { listingId: listing!.id, event: 'scored', eventKey: 'v1' });
    const [notification] = await settledNotification(ctx, alertId);
    expect(notification!.status).toBe('sent');
    const requests = requestsTo('+15125550143');
    expect(requests).toHaveLength(2);
    expect(requests[0]!.form.Body).toBe(requests[1]!.form.Body);
    expect(await findMessageByKey(ctx.database.db, notification!.messageKey!)).toMatchObject({ status: 'sent', attempts: 2 });
  });

  it('does not retry a 4xx: the failure is recorded on the notification', async () => {
    const { user, alertId } = await smsUser('512-555-0144', 'NM');
    fake.script([400]);
    const [listing] = await insertListings(ctx.database.db, source, [lot('Hitachi ZX210', { state: 'NM' })]);
    await ctx.queues.enqueue('match', { listingId: listing!.id, event: 'scored', eventKey: 'v1' });
    const [notification] = await settledNotification(ctx, alertId);
    expect(notification!.status).toBe('failed');
    expect(notification!.error).toMatch(/^Twilio answered 400 \(error 21211\)/);
    await new Promise((r) => setTimeout(r, 2500)); // longer than the first backoff
    expect(requestsTo('+15125550144')).toHaveLength(1);
    const list = await app.inject({ method: 'GET', url: '/api/alerts/notifications/', headers: bearer(user.access_token) });
    expect(list.json().data.items[0]).toMatchObject({ status: 'failed', channel: 'sms', error: expect.stringContaining('21211') });
  });

  it('a number that replied STOP (signed webhook) gets no SMS', async () => {
    const { alertId } = await smsUser('+1 512 555 0145', 'AZ');
    const stop = { From: '+15125550145', To: FAKE_TWILIO_FROM, Body: 'STOP', MessageSid: 'SMstop', AccountSid: FAKE_TWILIO_SID };
    const signature = twilio.getExpectedTwilioSignature(FAKE_TWILIO_TOKEN, 'http://localhost:8080/api/alerts/sms/inbound/', stop);
    const reply = await app.inject({
      method: 'POST',
      url: '/api/alerts/sms/inbound/',
      payload: new URLSearchParams(stop).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    });
    expect(reply.statusCode).toBe(200);
    const [listing] = await insertListings(ctx.database.db, source, [lot('Volvo EC220E', { state: 'AZ' })]);
    await ctx.queues.enqueue('match', { listingId: listing!.id, event: 'scored', eventKey: 'v1' });
    const [notification] = await settledNotification(ctx, alertId);
    expect(notification).toMatchObject({ status: 'skipped', error: 'The phone number replied STOP' });
    expect(requestsTo('+15125550145')).toHaveLength(0);
  });
});

describe('e-mail through the @sendgrid/mail SDK', () => {
  let app: ApiApp;
  let ctx: TestContext;
  let close: () => Promise<void>;
  let sendgrid: FakeSendGrid;
  let services: ServiceHandle[];
  let source: { id: number; name: string };

  beforeAll(async () => {
    sendgrid = await startFakeSendGrid();
    ({ app, ctx, close } = await createTestApp({ env: { SENDGRID_API_KEY: 'SG.test-key', SENDGRID_BASE_URL: sendgrid.baseUrl } }));
    services = [await startMatcher(ctx), await startNotifier(ctx)];
    source = await insertSource(ctx.database.db);
  });
  afterAll(async () => {
    for (const s of services ?? []) await s.stop();
    await close();
    await sendgrid.close();
  });

  async function emailAlert(state: string): Promise<{ user: SignedIn; alertId: number }> {
    const user = await registerUser(app);
    const res = await app.inject({ method: 'POST', url: '/api/alerts/', headers: bearer(user.access_token), payload: { equipment_type: 'Excavators', price_max: 50_000, state } });
    return { user, alertId: res.json().data.id };
  }

  const mailsTo = (email: string) =>
    sendgrid.requests.filter((r) => JSON.stringify((r.body.personalizations as unknown[] | undefined) ?? []).includes(email));

  it('sends the alert e-mail with SendGrid’s payload, once, and retries a 5xx', async () => {
    const { user, alertId } = await emailAlert('TX');
    sendgrid.script([503]);
    const [listing] = await insertListings(ctx.database.db, source, [lot('CAT 320 GC')]);
    await ctx.queues.enqueue('match', { listingId: listing!.id, event: 'new', eventKey: 'new' });
    const [notification] = await settledNotification(ctx, alertId);
    expect(notification!.status).toBe('sent');
    const requests = mailsTo(user.user.email);
    expect(requests).toHaveLength(2);
    const body = requests[1]!.body as {
      from: { email: string; name?: string };
      personalizations: Array<{ to: Array<{ email: string }> }>;
      subject: string;
      content: Array<{ type: string; value: string }>;
      custom_args: Record<string, string>;
    };
    expect(body.from).toEqual({ email: 'alerts@dealradar.local', name: 'Deal Radar' });
    expect(body.personalizations[0]!.to).toEqual([{ email: user.user.email }]);
    expect(body.subject).toBe('Deal alert: CAT 320 GC at $45,000 (88 • Excellent Deal)');
    const text = body.content.find((c) => c.type === 'text/plain')!.value;
    const html = body.content.find((c) => c.type === 'text/html')!.value;
    expect(text).toContain(`View the deal: http://localhost:8080/deal/${listing!.slug}`);
    expect(text).toContain('Time left: 5h');
    expect(html).toContain('Turn this alert off');
    expect(body.custom_args).toEqual({ message_key: `alert:${notification!.id}` });

    // Running the notify job again sends nothing.
    const again = await ctx.queues.enqueue('notify', { channel: 'email', messageKey: `alert:${notification!.id}`, to: user.user.email, subject: 's', text: 't', kind: 'alert' }, { jobId: 'sg-again' });
    await waitFor(async () => ((await ctx.queues.queue('notify').getJobState(again.id!)) === 'completed' ? true : undefined));
    expect(mailsTo(user.user.email)).toHaveLength(2);
  });

  it('does not retry a 4xx: the failure is recorded on the notification', async () => {
    const { user, alertId } = await emailAlert('CO');
    sendgrid.script([400]);
    const [listing] = await insertListings(ctx.database.db, source, [lot('Deere 210G', { state: 'CO' })]);
    await ctx.queues.enqueue('match', { listingId: listing!.id, event: 'new', eventKey: 'new' });
    const [notification] = await settledNotification(ctx, alertId);
    expect(notification!.status).toBe('failed');
    expect(notification!.error).toMatch(/^SendGrid answered 400/);
    await new Promise((r) => setTimeout(r, 2500));
    expect(mailsTo(user.user.email)).toHaveLength(1);
  });
});
