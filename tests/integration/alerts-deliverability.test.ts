/**
 * Mail that reaches the inbox (issue #22), over the real API, database and matcher:
 *   - SendGrid's event webhook, signed with an ECDSA key pair the test generates (SendGrid's own
 *     verification library checks it): a bounce suppresses the address, the account page's API
 *     shows it, alert mail to it is skipped, re-enabling lets mail through again; a forged or
 *     tampered post is refused and changes nothing;
 *   - Twilio's status callback (real SDK signature): an undelivered SMS is recorded as failed on
 *     its message and its notification; a forged one is refused;
 *   - the real SendGrid SDK, pointed at a local fake, carries the List-Unsubscribe headers.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { listUnsubscribeHeaders } from '../../services/alerts/unsubscribe-tokens.js';
import { dispatchInstantNotifications, SKIP_SUPPRESSED } from '../../services/matcher/dispatch-notifications.js';
import { createSendGridTransport } from '../../services/notifier/transports/sendgrid-transport.js';
import { insertAlertWithinLimit, listAlertNotifications, matchChangedListings } from '../../services/shared/repositories/alerts-repository.js';
import { findMessageByKey, listMessages, markMessageSent, recordQueuedMessage } from '../../services/shared/repositories/outbox-repository.js';
import { bearer, registerUser } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';
import { startFakeSendGrid } from '../support/fake-sendgrid.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';

const TWILIO_TOKEN = 'twilio-status-test-token';

function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), privateKey };
}

describe('deliverability: suppression from signed SendGrid events, Twilio status callbacks', () => {
  const sendgrid = keyPair();
  const forger = keyPair();
  let app: ApiApp;
  let ctx: TestContext;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ app, ctx, close } = await createTestApp({
      env: { SENDGRID_WEBHOOK_PUBLIC_KEY: sendgrid.publicKey, TWILIO_AUTH_TOKEN: TWILIO_TOKEN, TWILIO_ACCOUNT_SID: 'AC00000000000000000000000000000000' },
    }));
  });
  afterAll(async () => close());

  /** Posts events as SendGrid does: ECDSA (SHA-256) over timestamp + the raw body, base64 DER. */
  const postEvents = (events: unknown, signer = sendgrid.privateKey, tamper?: (body: string) => string) => {
    const body = JSON.stringify(events);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = sign('sha256', Buffer.from(timestamp + body), signer).toString('base64');
    return app.inject({
      method: 'POST',
      url: '/api/webhooks/sendgrid/events/',
      payload: tamper ? tamper(body) : body,
      headers: { 'content-type': 'application/json', 'x-twilio-email-event-webhook-signature': signature, 'x-twilio-email-event-webhook-timestamp': timestamp },
    });
  };

  it('a signed bounce suppresses the address; forged or tampered events are refused; re-enabling lets mail through', async () => {
    const buyer = await registerUser(app);
    const email = buyer.user.email;
    const status = async () => (await app.inject({ method: 'GET', url: '/api/alerts/suppressions/', headers: bearer(buyer.access_token) })).json().data;
    expect((await status()).email).toEqual({ address: email, suppressed: false, reason: null, detail: null, since: null });

    const bounce = [
      { email: email.toUpperCase(), event: 'bounce', type: 'bounce', reason: '550 5.1.1 mailbox does not exist', message_key: 'alert:999999', sg_event_id: 'e1' },
      { email: 'someone@else.example', event: 'delivered', sg_event_id: 'e2' },
      { email: 'blocked@else.example', event: 'bounce', type: 'blocked', reason: 'try later', sg_event_id: 'e3' },
    ];
    // Forged (another key), tampered (body changed after signing), unsigned: refused, nothing suppressed.
    expect((await postEvents(bounce, forger.privateKey)).statusCode).toBe(403);
    expect((await postEvents(bounce, sendgrid.privateKey, (b) => b.replace('bounce', 'spamreport'))).statusCode).toBe(403);
    expect((await app.inject({ method: 'POST', url: '/api/webhooks/sendgrid/events/', payload: JSON.stringify(bounce), headers: { 'content-type': 'application/json' } })).statusCode).toBe(403);
    expect((await status()).email.suppressed).toBe(false);

    const ok = await postEvents(bounce);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ data: { suppressed: 1 } }); // delivered and blocked suppress nothing
    expect((await status()).email).toMatchObject({ address: email, suppressed: true, reason: 'bounce', detail: '550 5.1.1 mailbox does not exist', since: expect.any(String) });

    // Alert mail to it is skipped, with why on the notification.
    const alert = await insertAlertWithinLimit(
      ctx.database.db,
      buyer.user.id,
      { categoryId: 1, priceMin: null, priceMax: null, state: null, condition: null, deliveryMethod: 'email', frequency: 'instant', dealLevel: 'good', minDealScore: null, includeUnscored: false, keywords: null, keywordTerms: null, isActive: true, nearZip: null, nearLat: null, nearLon: null, radiusMiles: null },
      null,
    );
    if (alert === 'limit') throw new Error('no limit expected');
    const source = await insertSource(ctx.database.db);
    const deal = (title: string) => ({ title, categoryId: 1, priceUsd: 50_000, price: 50_000, dealScore: 850, fairValue: 80_000, valueLow: 60_000, valueHigh: 100_000 });
    const [first] = await insertListings(ctx.database.db, source, [deal('CAT 320 bounced')]);
    await matchChangedListings(ctx.database.db, [{ listingId: first!.id, trigger: 'scored' }]);
    expect(await dispatchInstantNotifications(ctx, [first!.id])).toBe(0);
    expect(await listAlertNotifications(ctx.database.db, alert.id)).toEqual([expect.objectContaining({ listingId: first!.id, status: 'skipped', error: SKIP_SUPPRESSED })]);

    // The owner re-enables it on the account page: the next deal is mailed.
    const reenabled = await app.inject({ method: 'DELETE', url: '/api/alerts/suppressions/email/', headers: bearer(buyer.access_token) });
    expect(reenabled.statusCode).toBe(200);
    expect(reenabled.json().data.email.suppressed).toBe(false);
    const [second] = await insertListings(ctx.database.db, source, [deal('CAT 320 after re-enabling')]);
    await matchChangedListings(ctx.database.db, [{ listingId: second!.id, trigger: 'scored' }]);
    expect(await dispatchInstantNotifications(ctx, [second!.id])).toBe(1);
    const [message] = (await listMessages(ctx.database.db, { to: email })).filter((m) => m.kind === 'alert');
    expect(message!.headers).toMatchObject({ 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' });

    // A spam report later suppresses it again, and marks that message failed.
    expect((await postEvents([{ email, event: 'spamreport', message_key: message!.messageKey }])).json()).toEqual({ data: { suppressed: 1 } });
    expect((await status()).email).toMatchObject({ suppressed: true, reason: 'spamreport' });
    expect(await findMessageByKey(ctx.database.db, message!.messageKey)).toMatchObject({ status: 'failed', lastError: 'E-mail reported as spam' });
  });

  it("Twilio's status callback records an undelivered SMS as failed; a forged one is refused", async () => {
    const buyer = await registerUser(app);
    const phone = '+15125550199';
    const key = 'alert-test-sms:1';
    await recordQueuedMessage(ctx.database.db, { messageKey: key, channel: 'sms', kind: 'alert', recipient: phone, subject: '', textBody: 'Deal Radar: …' });
    await markMessageSent(ctx.database.db, key, 'SM0123456789abcdef0123456789abcdef');
    const url = 'http://localhost:8080/api/alerts/sms/status/';
    const params = { MessageSid: 'SM0123456789abcdef0123456789abcdef', MessageStatus: 'undelivered', ErrorCode: '30005', To: phone };
    const post = (signature: string) =>
      app.inject({
        method: 'POST',
        url: '/api/alerts/sms/status/',
        payload: new URLSearchParams(params).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
      });
    expect((await post(twilio.getExpectedTwilioSignature('wrong-token', url, params))).statusCode).toBe(403);
    expect(await findMessageByKey(ctx.database.db, key)).toMatchObject({ status: 'sent' });
    expect((await post(twilio.getExpectedTwilioSignature(TWILIO_TOKEN, url, params))).statusCode).toBe(204);
    expect(await findMessageByKey(ctx.database.db, key)).toMatchObject({ status: 'failed', lastError: 'SMS undelivered (Twilio error 30005)' });
    void buyer;
  });

  it('the real SendGrid SDK carries the List-Unsubscribe headers', async () => {
    const fake = await startFakeSendGrid();
    try {
      const transport = createSendGridTransport({ apiKey: 'SG.test-key', baseUrl: fake.baseUrl });
      const headers = listUnsubscribeHeaders('http://localhost:8080/api/alerts/unsubscribe/?token=abc');
      await transport.send({ messageKey: 'alert:1', from: 'Deal Radar <alerts@dealradar.local>', to: 'b@example.com', subject: 's', text: 't', headers });
      expect(fake.requests[0]!.body.headers).toEqual({
        'List-Unsubscribe': '<http://localhost:8080/api/alerts/unsubscribe/?token=abc>',
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      });
    } finally {
      await fake.close();
    }
  });
});
