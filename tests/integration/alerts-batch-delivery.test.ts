/**
 * Instant alert messages sent in batches (one notify-batch job per batch of a listing's matches),
 * with the real `@sendgrid/mail` SDK against a local fake: in a batch, a 4xx fails only its own
 * message (recorded on its notification, never retried) while the others are sent; a 5xx is
 * retried with backoff and only that message is sent again; a batch job run twice sends nothing
 * twice; a batch left half-done by a worker that died sends only what was never sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { dispatchInstantNotifications } from '../../services/matcher/dispatch-notifications.js';
import { startMatcher } from '../../services/matcher/index.js';
import { startNotifier } from '../../services/notifier/index.js';
import { listAlertNotifications, markAlertMessagesSent, matchChangedListings } from '../../services/shared/repositories/alerts-repository.js';
import { findMessageByKey } from '../../services/shared/repositories/outbox-repository.js';
import type { ServiceHandle } from '../../services/shared/service.js';
import { bearer, registerUser } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';
import { startFakeSendGrid, type FakeSendGrid } from '../support/fake-sendgrid.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';
import { waitFor } from '../support/wait.js';

const HOUR = 3_600_000;

const lot = (title: string, state: string) => ({
  title,
  categoryId: 1,
  priceUsd: 45_000,
  state,
  condition: 'Good' as const,
  dealScore: 871,
  fairValue: 62_000,
  auctionEndAt: new Date(Date.now() + 5 * HOUR),
});

describe('instant alert e-mails in batches', () => {
  let app: ApiApp;
  let ctx: TestContext;
  let close: () => Promise<void>;
  let sendgrid: FakeSendGrid;
  let services: ServiceHandle[] = [];
  let source: { id: number; name: string };

  beforeAll(async () => {
    sendgrid = await startFakeSendGrid();
    // Small batches and several sends at once, so one listing's matches make two batches sent in parallel.
    ({ app, ctx, close } = await createTestApp({
      env: { SENDGRID_API_KEY: 'SG.test-key', SENDGRID_BASE_URL: sendgrid.baseUrl, NOTIFY_BATCH_SIZE: '3', NOTIFY_SEND_PARALLELISM: '4' },
    }));
    source = await insertSource(ctx.database.db);
  });
  afterAll(async () => {
    for (const s of services) await s.stop();
    await close();
    await sendgrid.close();
  });

  /** `count` users, each with one instant e-mail alert for excavators in `state`. */
  async function subscribers(count: number, state: string): Promise<Array<{ email: string; alertId: number }>> {
    const out: Array<{ email: string; alertId: number }> = [];
    for (let i = 0; i < count; i++) {
      const user = await registerUser(app);
      const res = await app.inject({ method: 'POST', url: '/api/alerts/', headers: bearer(user.access_token), payload: { equipment_type: 'Excavators', price_max: 50_000, state } });
      expect(res.statusCode).toBe(201);
      out.push({ email: user.user.email, alertId: res.json().data.id });
    }
    return out;
  }

  const mailsTo = (email: string) => sendgrid.requests.filter((r) => JSON.stringify(r.body.personalizations ?? []).includes(email));

  async function settled(alertIds: number[]) {
    return waitFor(
      async () => {
        const rows = (await Promise.all(alertIds.map((id) => listAlertNotifications(ctx.database.db, id)))).map((r) => r[0]);
        return rows.every((r) => r && ['sent', 'failed', 'skipped'].includes(r.status)) ? rows.map((r) => r!) : undefined;
      },
      30_000,
      'notifications settled',
    );
  }

  /**
   * The listing's notify-batch jobs once `count` of them are finished. Their messages are marked
   * sent before the job itself completes, so right after the notifications settle a job can be
   * between states and missing from every list.
   */
  async function batchJobsOf(listingId: number, count = 1) {
    return waitFor(
      async () => {
        const jobs = await ctx.queues.queue('notifyBatch').getJobs(['completed', 'failed', 'waiting', 'active', 'delayed', 'prioritized']);
        const mine = jobs.filter((j) => (j.data as { listingId: number }).listingId === listingId);
        return mine.length >= count ? mine : undefined;
      },
      15_000,
      `${count} notify-batch job(s) of listing ${listingId}`,
    );
  }

  describe('with the notifier running', () => {
    beforeAll(async () => {
      services = [await startMatcher(ctx), await startNotifier(ctx)];
    });

    it('a 4xx fails only its own message, the others are sent, once; a rerun of the batch sends nothing more', async () => {
      const subs = await subscribers(5, 'WY');
      sendgrid.scriptFor(subs[1]!.email, [400]);
      const [listing] = await insertListings(ctx.database.db, source, [lot('CAT 320 GC batch', 'WY')]);
      await ctx.queues.enqueue('match', { listingId: listing!.id, event: 'scored', eventKey: 'v1' });
      const rows = await settled(subs.map((s) => s.alertId));

      expect(rows.map((r) => r.status)).toEqual(['sent', 'failed', 'sent', 'sent', 'sent']);
      expect(rows[1]!.error).toMatch(/^SendGrid answered 400/);
      // 5 messages in batches of at most 3: two notify-batch jobs, no per-message job.
      const batches = await batchJobsOf(listing!.id, 2);
      expect(batches.map((j) => (j.data as { messageKeys: string[] }).messageKeys.length).sort()).toEqual([2, 3]);
      for (const [i, s] of subs.entries()) {
        expect(mailsTo(s.email)).toHaveLength(1);
        expect(await findMessageByKey(ctx.database.db, rows[i]!.messageKey!)).toMatchObject({ status: i === 1 ? 'failed' : 'sent', attempts: 1, transport: 'sendgrid' });
        const text = (mailsTo(s.email)[0]!.body.content as Array<{ type: string; value: string }>).find((c) => c.type === 'text/html')!.value;
        expect(text).toContain('Turn this alert off');
      }

      // The same batches run again (a retried or duplicated job): nothing is sent twice.
      for (const [n, job] of batches.entries()) {
        const again = await ctx.queues.enqueue('notifyBatch', job.data as { listingId: number; messageKeys: string[] }, { jobId: `batch-again-${n}` });
        await waitFor(async () => ((await ctx.queues.queue('notifyBatch').getJobState(again.id!)) === 'completed' ? true : undefined));
      }
      await new Promise((r) => setTimeout(r, 2500)); // longer than the first backoff: the 4xx was not retried either
      for (const s of subs) expect(mailsTo(s.email)).toHaveLength(1);
    });

    it('a 5xx is retried with backoff and only that message is sent again', async () => {
      const subs = await subscribers(3, 'VT');
      sendgrid.scriptFor(subs[2]!.email, [503]);
      const [listing] = await insertListings(ctx.database.db, source, [lot('Deere 210G batch', 'VT')]);
      await ctx.queues.enqueue('match', { listingId: listing!.id, event: 'new', eventKey: 'new' });
      const rows = await settled(subs.map((s) => s.alertId));
      expect(rows.map((r) => r.status)).toEqual(['sent', 'sent', 'sent']);
      expect(subs.map((s) => mailsTo(s.email).length)).toEqual([1, 1, 2]);
      const attempts = await Promise.all(rows.map(async (r) => (await findMessageByKey(ctx.database.db, r.messageKey!))!.attempts));
      expect(attempts).toEqual([1, 1, 2]);
      const [batch] = await batchJobsOf(listing!.id);
      expect(batch!.attemptsMade).toBeGreaterThanOrEqual(1);
    });
  });

  describe('a batch a dead worker left half-done', () => {
    it('sends what was never sent at once, what was held once the claim is stale, nothing twice', async () => {
      for (const s of services) await s.stop();
      services = [];
      const subs = await subscribers(4, 'ND');
      const [listing] = await insertListings(ctx.database.db, source, [lot('Komatsu PC210 batch', 'ND')]);
      // The matcher's work, with no notifier running: messages recorded, one batch job waiting.
      await matchChangedListings(ctx.database.db, [{ listingId: listing!.id, trigger: 'scored' }]);
      expect(await dispatchInstantNotifications(ctx, [listing!.id])).toBe(4);
      const keys = (await Promise.all(subs.map((s) => listAlertNotifications(ctx.database.db, s.alertId)))).map((r) => r[0]!.messageKey!);

      // What the dead worker got done: the first message sent and marked; the second claimed
      // 11 minutes ago and never finished; the third claimed a moment ago (still in someone's hands).
      await markAlertMessagesSent(ctx.database.db, [{ messageKey: keys[0]!, providerMessageId: 'sent-before-death' }]);
      await ctx.database.sql`UPDATE outbox_messages SET status = 'sending', attempts = 1, claimed_at = now() - interval '11 minutes' WHERE message_key = ${keys[1]!}`;
      await ctx.database.sql`UPDATE outbox_messages SET status = 'sending', attempts = 1, claimed_at = now() WHERE message_key = ${keys[2]!}`;

      services = [await startNotifier(ctx)];
      await waitFor(async () => (mailsTo(subs[1]!.email).length === 1 && mailsTo(subs[3]!.email).length === 1 ? true : undefined), 30_000, 'the unsent messages');
      // The message in another sender's hands is left to it: the batch waits (delayed, no attempt
      // spent) until that claim would be stale, rather than failing while it is held.
      const batch = (await batchJobsOf(listing!.id)).find((j) => (j.data as { messageKeys: string[] }).messageKeys.includes(keys[2]!));
      await waitFor(async () => ((await ctx.queues.queue('notifyBatch').getJobState(batch!.id!)) === 'delayed' ? true : undefined), 20_000, 'the batch job to wait');
      await new Promise((r) => setTimeout(r, 2500));
      expect(await ctx.queues.queue('notifyBatch').getJobState(batch!.id!)).toBe('delayed');
      expect(mailsTo(subs[2]!.email)).toHaveLength(0);
      expect(subs.map((s) => mailsTo(s.email).length)).toEqual([0, 1, 0, 1]);

      // Ten minutes on, that sender never finished (it died too): the claim is stale, the batch sends it, once.
      await ctx.database.sql`UPDATE outbox_messages SET claimed_at = now() - interval '11 minutes' WHERE message_key = ${keys[2]!}`;
      await (await ctx.queues.queue('notifyBatch').getJob(batch!.id!))!.promote();
      const rows = await settled(subs.map((s) => s.alertId));
      expect(rows.map((r) => r.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
      await waitFor(async () => ((await ctx.queues.queue('notifyBatch').getJobState(batch!.id!)) === 'completed' ? true : undefined), 20_000, 'the batch job to complete');
      expect(subs.map((s) => mailsTo(s.email).length)).toEqual([0, 1, 1, 1]);
      expect((await findMessageByKey(ctx.database.db, keys[1]!))!.attempts).toBe(2);
      expect((await findMessageByKey(ctx.database.db, keys[2]!))!.attempts).toBe(2);
    });
  });
});
