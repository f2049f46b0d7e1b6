/**
 * Watch a lot to its close (issue 31), over the real database, queues and notifier (outbox
 * transport): the reminder goes out at its due time (the dispatcher is handed the clock), then
 * the price-rise notice, then how the lot ended with its final price beside our fair value; an
 * end time that moves moves the reminder; nothing is sent twice when a dispatch dies before or
 * after its commit and runs again, or when a dispatcher process is killed (SIGKILL) inside its
 * transaction and another one runs; the scheduler's tick reaches the matcher's worker.
 */
import { spawn } from 'node:child_process';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { dispatchDueWatches } from '../../services/matcher/dispatch-watch-notices.js';
import { startMatcher } from '../../services/matcher/index.js';
import { WATCH_SCHEDULES } from '../../services/matcher/watch-schedule.js';
import { requeueStrandedMessages } from '../../services/notifier/requeue-stranded.js';
import { startNotifier } from '../../services/notifier/index.js';
import { listMessages, type OutboxMessage } from '../../services/shared/repositories/outbox-repository.js';
import { suppressEmail } from '../../services/shared/repositories/suppressions-repository.js';
import type { ServiceHandle } from '../../services/shared/service.js';
import { bearer, registerUser, type SignedIn } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';
import { startFakeStripe, type FakeStripe } from '../support/fake-stripe.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';
import { makePremium, premiumEnv } from '../support/premium.js';
import { waitFor } from '../support/wait.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('watchlist reminders and notices', () => {
  let app: ApiApp;
  let ctx: TestContext;
  let close: () => Promise<void>;
  let stripe: FakeStripe;
  let services: ServiceHandle[] = [];
  let source: { id: number; name: string };

  beforeAll(async () => {
    stripe = await startFakeStripe();
    ({ app, ctx, close } = await createTestApp({ env: premiumEnv(stripe) }));
    source = await insertSource(ctx.database.db);
    services = [await startNotifier(ctx)];
  });
  afterAll(async () => {
    for (const s of services) await s.stop();
    await close();
    await stripe.close();
  });

  const watch = async (user: SignedIn, body: Record<string, unknown>) => {
    const res = await app.inject({ method: 'POST', url: '/api/watchlist/', headers: bearer(user.access_token), payload: body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { watch_id: number; next_notice_at: string | null };
  };
  const mail = (to: string) => listMessages(ctx.database.db, { to, limit: 100 });
  const sentMail = (to: string, count: number) =>
    waitFor(async () => {
      const found = await mail(to);
      return found.length === count && found.every((m) => m.status === 'sent') ? found : undefined;
    }, 20_000, `${count} sent message(s) to ${to}`);
  const dueAt = async (watchId: number) => {
    const [row] = (await ctx.database.db.execute(sql`SELECT due_at FROM watched_lots WHERE id = ${watchId}`)) as unknown as Array<{ due_at: string | null }>;
    return row!.due_at === null ? null : new Date(row!.due_at).getTime();
  };

  it('sends the reminder at its due time, then the price-rise notice, then how the lot ended', async () => {
    const user = await registerUser(app);
    await makePremium(app, stripe, user.access_token);
    const end = new Date(Date.now() + 3 * HOUR);
    const [lot] = await insertListings(ctx.database.db, source, [
      { title: '2016 Caterpillar 320F Excavator', make: 'Caterpillar', model: '320F', currentBid: 30_000, fairValue: 46_600, dealScore: 760, auctionEndAt: end },
    ]);
    const w = await watch(user, { listing_id: lot!.id, remind_before_minutes: 60, max_price: 40_000 });
    expect(Date.parse(w.next_notice_at!)).toBe(end.getTime() - HOUR);

    // The clock a minute before the reminder: nothing. At its time: the reminder, once.
    expect((await dispatchDueWatches(ctx, new Date(end.getTime() - 61 * MIN))).queued).toBe(0);
    const remindAt = new Date(end.getTime() - HOUR + 5_000);
    expect(await dispatchDueWatches(ctx, remindAt)).toMatchObject({ evaluated: 1, queued: 1 });
    const [reminder] = await sentMail(user.user.email, 1);
    expect(reminder).toMatchObject({ channel: 'email', kind: 'watch_reminder', subject: 'Closes in 1 hour: 2016 Caterpillar 320F Excavator — now $30,000' });
    expect(reminder!.textBody).toContain('Your maximum: $40,000');
    expect(reminder!.headers).toMatchObject({ 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' });
    expect(reminder!.headers!['List-Unsubscribe']).toMatch(/^<http:\/\/localhost:8080\/api\/watchlist\/unsubscribe\/\?token=/);
    expect((await dispatchDueWatches(ctx, remindAt)).queued).toBe(0);

    // A bid past the buyer's maximum (the crawler's write): the price-rise notice, once.
    await ctx.database.db.execute(sql`UPDATE listings SET current_bid = 41000, price = 41000, price_usd = 41000 WHERE id = ${lot!.id}`);
    const bidAt = new Date(end.getTime() - 30 * MIN);
    expect(await dispatchDueWatches(ctx, bidAt)).toMatchObject({ queued: 1 });
    await ctx.database.db.execute(sql`UPDATE listings SET current_bid = 42000, price = 42000, price_usd = 42000 WHERE id = ${lot!.id}`);
    expect((await dispatchDueWatches(ctx, bidAt)).queued).toBe(0);
    const messages = await sentMail(user.user.email, 2);
    expect(messages[0]).toMatchObject({ kind: 'watch_price_rise', subject: 'Price passed your maximum: 2016 Caterpillar 320F Excavator now $41,000' });

    // It sells for $41,000 (the fair value shown was $46,600): the closing notice says so.
    await ctx.database.db.transaction(async (tx) => {
      await tx.execute(sql`UPDATE listings SET status = 'sold', current_bid = 41000, price = 41000, price_usd = 41000 WHERE id = ${lot!.id}`);
      await tx.execute(sql`INSERT INTO sold_results (origin, external_id, listing_id, title, category_id, sold_at, price) VALUES (${`crawl:${source.name}`}, ${lot!.externalId}, ${lot!.id}, ${lot!.title}, 11, now(), 41000)`);
    });
    // A rescore after the close changes what the outcome compares with nothing.
    await ctx.database.db.execute(sql`UPDATE listings SET fair_value = 60000 WHERE id = ${lot!.id}`);
    expect(await dispatchDueWatches(ctx, new Date(end.getTime() + 5 * MIN))).toMatchObject({ queued: 1 });
    const closed = (await sentMail(user.user.email, 3))[0]!;
    expect(closed.kind).toBe('watch_closed');
    expect(closed.subject).toBe('Closed: 2016 Caterpillar 320F Excavator — Sold for $41,000 — 12% under our fair value of $46,600');
    expect((await dispatchDueWatches(ctx, new Date(end.getTime() + 7 * HOUR))).queued).toBe(0);

    const list = await app.inject({ method: 'GET', url: '/api/watchlist/', headers: bearer(user.access_token) });
    expect(list.json().data.items[0]).toMatchObject({
      listing_status: 'sold',
      final_price: 41_000,
      fair_value: 46_600,
      outcome: 'Sold for $41,000 — 12% under our fair value of $46,600',
      next_notice_at: null,
      notices: { reminder_sent_at: remindAt.toISOString(), price_notice_sent_at: bidAt.toISOString(), closed_notice_sent_at: expect.any(String), last_error: null },
    });
  });

  it('moves the reminder when the end time moves, and reports a lot that vanished once', async () => {
    const user = await registerUser(app);
    const end = new Date(Date.now() + 5 * HOUR);
    const [lot] = await insertListings(ctx.database.db, source, [{ title: 'Deere 310SL Backhoe', currentBid: 20_000, auctionEndAt: end }]);
    const w = await watch(user, { listing_id: lot!.id, remind_before_minutes: 15 });
    expect(await dueAt(w.watch_id)).toBe(end.getTime() - 15 * MIN);

    // The auction is extended by two hours: the reminder follows it.
    const later = new Date(end.getTime() + 2 * HOUR);
    await ctx.database.db.execute(sql`UPDATE listings SET auction_end_at = ${later.toISOString()}::timestamptz WHERE id = ${lot!.id}`);
    await dispatchDueWatches(ctx, new Date(Date.now() + 1000));
    expect(await dueAt(w.watch_id)).toBe(later.getTime() - 15 * MIN);
    expect((await dispatchDueWatches(ctx, new Date(end.getTime() - 10 * MIN))).queued).toBe(0);
    expect((await dispatchDueWatches(ctx, new Date(later.getTime() - 14 * MIN))).queued).toBe(1);
    expect((await sentMail(user.user.email, 1))[0]!.subject).toMatch(/^Closes in 14 minutes: Deere 310SL Backhoe/);

    // A soft close adds two minutes: no second reminder.
    const soft = new Date(later.getTime() + 2 * MIN);
    await ctx.database.db.execute(sql`UPDATE listings SET auction_end_at = ${soft.toISOString()}::timestamptz WHERE id = ${lot!.id}`);
    expect((await dispatchDueWatches(ctx, new Date(later.getTime() - 5 * MIN))).queued).toBe(0);

    // Never seen closing: reported once, six hours past its end.
    await dispatchDueWatches(ctx, new Date(soft.getTime() + 5 * HOUR));
    expect(await mail(user.user.email)).toHaveLength(1);
    await dispatchDueWatches(ctx, new Date(soft.getTime() + 6 * HOUR + 1000));
    expect((await sentMail(user.user.email, 2))[0]).toMatchObject({ kind: 'watch_gone', subject: 'No longer listed: Deere 310SL Backhoe' });
    await dispatchDueWatches(ctx, new Date(soft.getTime() + 30 * HOUR));
    expect(await mail(user.user.email)).toHaveLength(2);
  });

  it('sends nothing twice when a dispatch dies before its commit or after it, and runs again', async () => {
    const user = await registerUser(app);
    const end = new Date(Date.now() + 2 * HOUR);
    const [lot] = await insertListings(ctx.database.db, source, [{ title: 'Bobcat T770 Track Loader', currentBid: 25_000, auctionEndAt: end }]);
    await watch(user, { listing_id: lot!.id });
    const at = new Date(end.getTime() - 59 * MIN);

    // Dies inside its transaction (the message log refuses the write): nothing is left behind.
    await ctx.database.db.execute(sql.raw(`
      CREATE FUNCTION fail_watch_outbox() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$;
      CREATE TRIGGER fail_watch_outbox BEFORE INSERT ON outbox_messages FOR EACH ROW WHEN (NEW.kind LIKE 'watch%') EXECUTE FUNCTION fail_watch_outbox();`));
    try {
      const failed = await dispatchDueWatches(ctx, at).then(() => null, (err: unknown) => err as Error & { cause?: Error });
      expect(`${failed?.message} ${failed?.cause?.message}`).toMatch(/disk full/);
    } finally {
      await ctx.database.db.execute(sql.raw('DROP TRIGGER fail_watch_outbox ON outbox_messages; DROP FUNCTION fail_watch_outbox();'));
    }
    expect(await mail(user.user.email)).toEqual([]);

    // Dies after its commit, before the jobs are added (the queue store is down): the messages
    // are in the log; the rerun finds nothing due, and the notifier's sweep sends them once.
    const noQueue = { ...ctx, queues: { enqueueBulk: async () => Promise.reject(new Error('queue store down')) } } as unknown as TestContext;
    await expect(dispatchDueWatches(noQueue, at)).rejects.toThrow(/queue store down/);
    expect((await mail(user.user.email)).map((m: OutboxMessage) => m.status)).toEqual(['queued']);
    expect(await dispatchDueWatches(ctx, at)).toMatchObject({ evaluated: 0, queued: 0 });
    await ctx.database.db.execute(sql`UPDATE outbox_messages SET updated_at = now() - interval '2 minutes' WHERE lower(recipient) = lower(${user.user.email})`);
    expect(await requeueStrandedMessages(ctx)).toBeGreaterThanOrEqual(1);
    await sentMail(user.user.email, 1);
    await requeueStrandedMessages(ctx);
    expect(await dispatchDueWatches(ctx, new Date(at.getTime() + 30_000))).toMatchObject({ queued: 0 });
    await new Promise((r) => setTimeout(r, 300));
    expect(await mail(user.user.email)).toHaveLength(1);
  });

  it('sends nothing twice when a dispatcher process is killed (SIGKILL) mid-dispatch and another runs', async () => {
    const user = await registerUser(app);
    const end = new Date(Date.now() + 2 * HOUR);
    const [lot] = await insertListings(ctx.database.db, source, [{ title: 'Volvo EC220E Excavator', currentBid: 60_000, auctionEndAt: end }]);
    await watch(user, { listing_id: lot!.id });
    const runChild = () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'tests/support/watch-dispatch-child.ts'], {
        env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: ctx.database.url, REDIS_URL: '', WATCH_NOW: new Date(end.getTime() - 59 * MIN).toISOString() },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      return { child, exited, output: () => out };
    };
    const childBackends = async (where: ReturnType<typeof sql>) =>
      (await ctx.database.db.execute(sql`SELECT pid FROM pg_stat_activity WHERE application_name = 'watch-child' AND ${where}`)) as unknown as Array<{ pid: number }>;

    // Hold the daily-cap table: the child claims the due row and stops, inside its transaction, waiting for it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = ctx.database.db.transaction(async (tx) => {
      await tx.execute(sql`LOCK TABLE watch_notice_days IN ACCESS EXCLUSIVE MODE`);
      locked();
      await held;
    });
    await isLocked;
    const first = runChild();
    const [blocked] = await waitFor(async () => {
      const found = await childBackends(sql`wait_event_type = 'Lock'`);
      return found.length > 0 ? found : undefined;
    }, 30_000, 'the child dispatcher to wait inside its transaction');
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    release();
    await holder;
    // The dead process's backend rolls back; its claim on the row goes with it.
    await waitFor(async () => ((await childBackends(sql`pid = ${blocked!.pid}`)).length === 0 ? true : undefined), 30_000, 'the killed dispatcher’s backend to end');
    expect(await mail(user.user.email)).toEqual([]);

    // Restarted: the reminder goes out once; a third run finds nothing more to send.
    const second = runChild();
    expect(await second.exited).toBe(0);
    expect(JSON.parse(second.output())).toMatchObject({ queued: 1 });
    const third = runChild();
    expect(await third.exited).toBe(0);
    expect(JSON.parse(third.output())).toMatchObject({ queued: 0 });
    const [sent] = await sentMail(user.user.email, 1);
    expect(sent!.subject).toMatch(/Volvo EC220E Excavator/);
  });

  it('honours suppressed addresses and the daily cap, and records why nothing was sent', async () => {
    const user = await registerUser(app);
    const end = new Date(Date.now() + 2 * HOUR);
    const [a, b] = await insertListings(ctx.database.db, source, [
      { title: 'Kubota KX040 Mini Excavator', currentBid: 15_000, auctionEndAt: end },
      { title: 'Kubota SVL75 Track Loader', currentBid: 16_000, auctionEndAt: end },
    ]);
    await watch(user, { listing_id: a!.id });
    await suppressEmail(ctx.database.db, user.user.email.toLowerCase(), 'bounce', 'mailbox full');
    expect(await dispatchDueWatches(ctx, new Date(end.getTime() - 59 * MIN))).toMatchObject({ queued: 0, skipped: 1 });
    const items = (await app.inject({ method: 'GET', url: '/api/watchlist/', headers: bearer(user.access_token) })).json().data.items;
    expect(items[0].notices.last_error).toMatch(/bounced or reported spam/);
    expect(await mail(user.user.email)).toEqual([]);

    // The cap: a user whose day is used up gets nothing more that day.
    const capped = await registerUser(app);
    await ctx.database.db.execute(sql`INSERT INTO watch_notice_days (user_id, day, email_used) VALUES (${capped.user.id}, ${new Date(end.getTime() - 59 * MIN).toISOString().slice(0, 10)}, ${ctx.config.WATCH_DAILY_EMAIL_CAP})`);
    await watch(capped, { listing_id: b!.id });
    expect(await dispatchDueWatches(ctx, new Date(end.getTime() - 59 * MIN))).toMatchObject({ queued: 0, skipped: 1 });
    expect(await mail(capped.user.email)).toEqual([]);
  });

  it('texts premium buyers who chose SMS; a phone that replied STOP gets e-mail instead', async () => {
    const user = await registerUser(app, { phone: '(512) 555-0142' });
    await makePremium(app, stripe, user.access_token);
    const end = new Date(Date.now() + 2 * HOUR);
    const [a, b] = await insertListings(ctx.database.db, source, [
      { title: 'Hitachi ZX210 Excavator', currentBid: 50_000, auctionEndAt: end },
      { title: 'Hitachi ZX350 Excavator', currentBid: 90_000, auctionEndAt: new Date(end.getTime() + 10 * MIN) },
    ]);
    await watch(user, { listing_id: a!.id, delivery_method: 'sms' });
    await watch(user, { listing_id: b!.id, delivery_method: 'sms' });
    expect(await dispatchDueWatches(ctx, new Date(end.getTime() - 59 * MIN))).toMatchObject({ queued: 1 });
    const sms = await waitFor(async () => {
      const [m] = await listMessages(ctx.database.db, { to: '+15125550142' });
      return m?.status === 'sent' ? m : undefined;
    }, 20_000, 'the SMS reminder');
    expect(sms).toMatchObject({ channel: 'sms', kind: 'watch_reminder' });
    expect(sms.textBody).toMatch(/^Closes in 59 minutes: \$50,000 Hitachi ZX210 Excavator http:\/\/localhost:8080\/d\//);
    expect(sms.textBody.length).toBeLessThanOrEqual(159);

    await ctx.database.db.execute(sql`INSERT INTO sms_opt_outs (phone, keyword) VALUES ('+15125550142', 'STOP')`);
    expect(await dispatchDueWatches(ctx, new Date(end.getTime() - 49 * MIN))).toMatchObject({ queued: 1 });
    const [email] = await sentMail(user.user.email, 1);
    expect(email).toMatchObject({ channel: 'email', kind: 'watch_reminder' });
    expect(email!.subject).toMatch(/Hitachi ZX350/);
    expect(await listMessages(ctx.database.db, { to: '+15125550142' })).toHaveLength(1);
  });

  it('runs from the scheduler’s tick through the matcher’s watch-due worker', async () => {
    const matcher = await startMatcher(ctx);
    try {
      const user = await registerUser(app);
      // Ends in 30 minutes with a 1-hour lead: due at once.
      const [lot] = await insertListings(ctx.database.db, source, [{ title: 'Case 580N Backhoe', currentBid: 22_000, auctionEndAt: new Date(Date.now() + 30 * MIN) }]);
      await watch(user, { listing_id: lot!.id });
      await WATCH_SCHEDULES[0]!.tick(ctx, 'ignored');
      const [m] = await sentMail(user.user.email, 1);
      expect(m!.subject).toMatch(/^Closes in 30 minutes: Case 580N Backhoe/);
    } finally {
      await matcher.stop();
    }
  });
});
