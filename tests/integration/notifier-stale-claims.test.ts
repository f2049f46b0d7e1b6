/**
 * Messages left claimed by a sender that is gone: a notify-batch job (or notify job) claimed
 * them, then died or failed for good without sending. The notifier's sweep gives each one whose
 * claim is older than NOTIFY_CLAIM_TIMEOUT_SECONDS a new job, and it is sent exactly once, with
 * the real `@sendgrid/mail` and `twilio` SDKs against local fakes. A claim younger than that (a
 * slow sender still at work) is left alone, and a slow sender's late failure cannot undo the
 * outcome of whoever took its message over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { dispatchInstantNotifications } from '../../services/matcher/dispatch-notifications.js';
import { startNotifier } from '../../services/notifier/index.js';
import { queueEmail } from '../../services/notifier/queue-email.js';
import { requeueStrandedMessages, staleClaimJobId } from '../../services/notifier/requeue-stranded.js';
import { ConfigError, parseConfig } from '../../services/shared/config.js';
import { NonRetryableError } from '../../services/shared/errors.js';
import { digest } from '../../services/shared/queues.js';
import { listAlertNotifications, markAlertMessagesSent, matchChangedListings } from '../../services/shared/repositories/alerts-repository.js';
import {
  claimMessage,
  claimMessages,
  findMessageByKey,
  markMessageAttemptFailed,
  markMessageSent,
  recordQueuedMessage,
} from '../../services/shared/repositories/outbox-repository.js';
import type { ServiceHandle } from '../../services/shared/service.js';
import { bearer, registerUser } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';
import { startFakeSendGrid, type FakeSendGrid } from '../support/fake-sendgrid.js';
import { startFakeStripe, type FakeStripe } from '../support/fake-stripe.js';
import { startFakeTwilio, type FakeTwilio } from '../support/fake-twilio.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';
import { makePremium, premiumEnv } from '../support/premium.js';
import { waitFor } from '../support/wait.js';

const HOUR = 3_600_000;
/** Shorter than the default (600 s), so a claim 3 minutes old is stale only if the setting is used. */
const CLAIM_TIMEOUT_SECONDS = 120;

describe('stale claims: the sweep sends what a dead sender left claimed, once', () => {
  let app: ApiApp;
  let ctx: TestContext;
  let close: () => Promise<void>;
  let sendgrid: FakeSendGrid;
  let twilio: FakeTwilio;
  let stripe: FakeStripe;
  let notifier: ServiceHandle | undefined;

  beforeAll(async () => {
    sendgrid = await startFakeSendGrid();
    twilio = await startFakeTwilio();
    stripe = await startFakeStripe();
    ({ app, ctx, close } = await createTestApp({
      env: {
        SENDGRID_API_KEY: 'SG.test-key',
        SENDGRID_BASE_URL: sendgrid.baseUrl,
        ...twilio.env(),
        ...premiumEnv(stripe),
        NOTIFY_SEND_TIMEOUT_MS: '5000',
        NOTIFY_CLAIM_TIMEOUT_SECONDS: String(CLAIM_TIMEOUT_SECONDS),
      },
    }));
  });
  afterAll(async () => {
    await notifier?.stop();
    await close();
    await sendgrid.close();
    await twilio.close();
    await stripe.close();
  });

  const mailsTo = (email: string) => sendgrid.requests.filter((r) => JSON.stringify(r.body.personalizations ?? []).includes(email));
  const smsTo = (phone: string) => twilio.requests.filter((r) => r.form.To === phone);
  /** Moves a message's claim into the past, as if its claimer took it that long ago and vanished. */
  const claimedAgo = (messageKey: string, seconds: number) =>
    ctx.database.sql`UPDATE outbox_messages SET claimed_at = now() - make_interval(secs => ${seconds}) WHERE message_key = ${messageKey}`;
  const jobState = (name: 'notify' | 'notifyBatch', id: string) => ctx.queues.queue(name).getJobState(id);
  const failedJob = (name: 'notify' | 'notifyBatch', id: string) =>
    waitFor(async () => ((await jobState(name, id)) === 'failed' ? true : undefined), 20_000, `job ${id} to fail`);

  async function restartNotifier() {
    await notifier?.stop();
    notifier = await startNotifier(ctx);
  }

  it('refuses a claim timeout a send could outlast', () => {
    expect(() => parseConfig({ NOTIFY_SEND_TIMEOUT_MS: '30000', NOTIFY_CLAIM_TIMEOUT_SECONDS: '120' })).toThrow(ConfigError);
    expect(() => parseConfig({ NOTIFY_SEND_TIMEOUT_MS: '30000', NOTIFY_CLAIM_TIMEOUT_SECONDS: '120' })).toThrow(/NOTIFY_CLAIM_TIMEOUT_SECONDS: must be at least 180 s/);
    expect(parseConfig({})).toMatchObject({ NOTIFY_SEND_TIMEOUT_MS: 15_000, NOTIFY_CLAIM_TIMEOUT_SECONDS: 600 });
  });

  it('an alert batch whose job failed holding its claims: the sweep sends each stale one once, leaves a fresh one to its sender', async () => {
    const source = await insertSource(ctx.database.db);
    const emailUsers = [];
    for (let i = 0; i < 2; i++) {
      const user = await registerUser(app);
      const res = await app.inject({ method: 'POST', url: '/api/alerts/', headers: bearer(user.access_token), payload: { equipment_type: 'Excavators', price_max: 50_000, state: 'ND' } });
      expect(res.statusCode).toBe(201);
      emailUsers.push({ email: user.user.email, alertId: res.json().data.id as number });
    }
    const smsUser = await registerUser(app, { phone: '(701) 555-0142' });
    await makePremium(app, stripe, smsUser.access_token);
    const smsAlert = await app.inject({ method: 'POST', url: '/api/alerts/', headers: bearer(smsUser.access_token), payload: { equipment_type: 'Excavators', delivery_method: 'sms', min_deal_score: 80, state: 'ND' } });
    expect(smsAlert.statusCode).toBe(201);
    const alertIds = [...emailUsers.map((u) => u.alertId), smsAlert.json().data.id as number];

    // The matcher's work: three messages recorded, one notify-batch job.
    const [listing] = await insertListings(ctx.database.db, source, [
      { title: 'Komatsu PC210 stale', categoryId: 1, priceUsd: 45_000, state: 'ND', condition: 'Good', dealScore: 871, fairValue: 62_000, auctionEndAt: new Date(Date.now() + 5 * HOUR) },
    ]);
    await matchChangedListings(ctx.database.db, [{ listingId: listing!.id, trigger: 'scored' }]);
    expect(await dispatchInstantNotifications(ctx, [listing!.id])).toBe(3);
    const keys = (await Promise.all(alertIds.map((id) => listAlertNotifications(ctx.database.db, id)))).map((r) => r[0]!.messageKey!);
    const [batchJob] = await ctx.queues.queue('notifyBatch').getJobs(['waiting', 'prioritized']);
    expect(batchJob!.data.messageKeys).toEqual(expect.arrayContaining(keys));

    // Its worker claims the batch and dies before sending anything; the job fails for good (as
    // after its last attempt), so no rerun of it will ever come back for these messages.
    const dying = ctx.queues.worker('notifyBatch', async (payload) => {
      await claimMessages(ctx.database.db, payload.messageKeys, { email: 'sendgrid', sms: 'twilio' }, CLAIM_TIMEOUT_SECONDS);
      throw new NonRetryableError('worker died mid-send');
    });
    await failedJob('notifyBatch', batchJob!.id!);
    await dying.close();
    for (const key of keys) expect(await findMessageByKey(ctx.database.db, key)).toMatchObject({ status: 'sending', attempts: 1 });

    // Three minutes on for the e-mail to user 0 and the SMS (older than the claim timeout); the
    // e-mail to user 1 was claimed 90 s ago: as far as anyone can tell, a slow sender still has it.
    await claimedAgo(keys[0]!, 180);
    await claimedAgo(keys[2]!, 180);
    await claimedAgo(keys[1]!, 90);

    // The sweep gives each stale message one job of its own; sweeping again adds none.
    expect(await requeueStrandedMessages(ctx)).toBe(2);
    expect(await requeueStrandedMessages(ctx)).toBe(2);
    const jobs = await ctx.queues.queue('notify').getJobs(['waiting', 'prioritized', 'delayed', 'active']);
    expect(jobs.map((j) => j.id).sort()).toEqual([staleClaimJobId({ messageKey: keys[0]!, attempts: 1 }), staleClaimJobId({ messageKey: keys[2]!, attempts: 1 })].sort());

    await restartNotifier(); // its own sweep at start runs too: nothing is added twice
    await waitFor(async () => ((await Promise.all([keys[0]!, keys[2]!].map((k) => findMessageByKey(ctx.database.db, k)))).every((m) => m?.status === 'sent') ? true : undefined), 20_000, 'the stale messages sent');
    expect(await findMessageByKey(ctx.database.db, keys[0]!)).toMatchObject({ status: 'sent', attempts: 2, transport: 'sendgrid', claimedAt: null });
    expect(await findMessageByKey(ctx.database.db, keys[2]!)).toMatchObject({ status: 'sent', attempts: 2, transport: 'twilio', providerMessageId: expect.stringMatching(/^SM/) });
    const notifications = await Promise.all(alertIds.map(async (id) => (await listAlertNotifications(ctx.database.db, id))[0]!));
    expect(notifications.map((n) => n.status)).toEqual(['sent', 'queued', 'sent']);

    // Nothing stale is left; the fresh claim is not touched, and nothing goes out twice.
    expect(await requeueStrandedMessages(ctx)).toBe(0);
    await new Promise((r) => setTimeout(r, 2500));
    expect(mailsTo(emailUsers[0]!.email)).toHaveLength(1);
    expect(smsTo('+17015550142')).toHaveLength(1);
    expect(mailsTo(emailUsers[1]!.email)).toHaveLength(0);
    expect(await findMessageByKey(ctx.database.db, keys[1]!)).toMatchObject({ status: 'sending', attempts: 1 });

    // The slow sender finishes: sent by it, so never by the sweep, even once its claim time has passed.
    await markAlertMessagesSent(ctx.database.db, [{ messageKey: keys[1]!, providerMessageId: 'the-slow-sender' }]);
    await claimedAgo(keys[1]!, 600);
    expect(await requeueStrandedMessages(ctx)).toBe(0);
    expect((await listAlertNotifications(ctx.database.db, alertIds[1]!))[0]!.status).toBe('sent');
    expect(mailsTo(emailUsers[1]!.email)).toHaveLength(0);
    expect(mailsTo(emailUsers[0]!.email)).toHaveLength(1);
    expect(smsTo('+17015550142')).toHaveLength(1);
  });

  it('a notify job that failed holding its claim (its job id still taken): the sweep sends the message once', async () => {
    await notifier?.stop();
    notifier = undefined;
    await queueEmail(ctx, { messageKey: 'reset:stale-claim', to: 'stale-reset@example.com', subject: 'Reset your password', text: 'Reset link', kind: 'password_reset' });
    const dying = ctx.queues.worker('notify', async (payload) => {
      await claimMessage(ctx.database.db, payload.messageKey, 'sendgrid', CLAIM_TIMEOUT_SECONDS);
      throw new NonRetryableError('worker died mid-send');
    });
    const firstJobId = `notify-${digest('reset:stale-claim')}`;
    await failedJob('notify', firstJobId);
    await dying.close();
    await claimedAgo('reset:stale-claim', 180);

    expect(await requeueStrandedMessages(ctx)).toBe(1);
    await restartNotifier();
    const sent = await waitFor(async () => {
      const m = await findMessageByKey(ctx.database.db, 'reset:stale-claim');
      return m?.status === 'sent' ? m : undefined;
    }, 20_000, 'the stale message sent');
    expect(sent).toMatchObject({ attempts: 2, transport: 'sendgrid' });
    expect(await jobState('notify', firstJobId)).toBe('failed'); // the failed job is kept: the new one had its own id
    expect(await requeueStrandedMessages(ctx)).toBe(0);
    await new Promise((r) => setTimeout(r, 2500));
    expect(mailsTo('stale-reset@example.com')).toHaveLength(1);
  });

  it('a sender slower than the claim timeout cannot undo the outcome of the one who took its message over', async () => {
    await recordQueuedMessage(ctx.database.db, { messageKey: 'fence-1', channel: 'email', kind: 'test', recipient: 'fence@example.com', subject: 'S', textBody: 'T' });
    const slow = await claimMessage(ctx.database.db, 'fence-1', 'sendgrid', CLAIM_TIMEOUT_SECONDS);
    expect(slow).toMatchObject({ attempts: 1 });
    // While the claim is fresh nobody else can take the message.
    expect(await claimMessage(ctx.database.db, 'fence-1', 'sendgrid', CLAIM_TIMEOUT_SECONDS)).toBeUndefined();
    await claimedAgo('fence-1', 180);
    const takeover = await claimMessage(ctx.database.db, 'fence-1', 'sendgrid', CLAIM_TIMEOUT_SECONDS);
    expect(takeover).toMatchObject({ attempts: 2 });
    await markMessageSent(ctx.database.db, 'fence-1', 'sent-by-takeover');
    // The slow sender's send timed out at last: its mark would have queued the message again (a second send).
    expect(await markMessageAttemptFailed(ctx.database.db, 'fence-1', 'SendGrid unreachable: timeout', false, slow!)).toBe(false);
    expect(await findMessageByKey(ctx.database.db, 'fence-1')).toMatchObject({ status: 'sent', attempts: 2, providerMessageId: 'sent-by-takeover' });
    // While its own claim holds, the mark is made.
    await recordQueuedMessage(ctx.database.db, { messageKey: 'fence-2', channel: 'email', kind: 'test', recipient: 'fence@example.com', subject: 'S', textBody: 'T' });
    const own = await claimMessage(ctx.database.db, 'fence-2', 'sendgrid', CLAIM_TIMEOUT_SECONDS);
    expect(await markMessageAttemptFailed(ctx.database.db, 'fence-2', 'SendGrid answered 503', false, own!)).toBe(true);
    expect(await findMessageByKey(ctx.database.db, 'fence-2')).toMatchObject({ status: 'queued', attempts: 1 });
  });
});
