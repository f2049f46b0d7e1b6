/**
 * `npm run bench:notify -- [--messages 1000] [--concurrency 4]`
 *
 * Where an instant alert e-mail's delivery time goes, measured piece by piece on its own embedded
 * PostgreSQL (fresh each run, removed at the end), with the outbox transport:
 *   1. rendering the message (pure code);
 *   2. the per-message notifier's SQL round trips, one message at a time (record, claim, mark
 *      sent, report on the notification), each statement timed;
 *   3. the queue alone: no-op jobs through a worker on the PostgreSQL BullMQ backend;
 *   4. the per-message path end to end: one `notify` job per e-mail through the real handler;
 *   5. the batch path end to end: the matcher's dispatch (render, record, one `notify-batch` job per
 *      batch of messages) and the batch worker.
 * Prints one table. Talks only to 127.0.0.1.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { renderMatchEmail } from '../../services/alerts/alert-messages.js';
import { instantMessageKey } from '../../services/shared/rules/alert-message-keys.js';
import { alertLinkKey } from '../../services/alerts/alerts-service.js';
import { unsubscribeUrl } from '../../services/alerts/unsubscribe-tokens.js';
import { dispatchInstantNotifications } from '../../services/matcher/dispatch-notifications.js';
import { createNotifyBatchHandler } from '../../services/notifier/deliver-batch.js';
import { createNotifyHandler } from '../../services/notifier/deliver-message.js';
import { createOutboxTransport } from '../../services/notifier/transports/outbox-transport.js';
import type { AppContext } from '../../services/shared/context.js';
import type { Database } from '../../services/shared/database/db.js';
import { createLogger } from '../../services/shared/logger.js';
import { QueueRuntime, type PayloadInput } from '../../services/shared/queues.js';
import { recordAlertDelivery } from '../../services/shared/repositories/alerts-repository.js';
import { claimMessage, markMessageSent, recordQueuedMessage } from '../../services/shared/repositories/outbox-repository.js';
import { benchConfig, startBenchDatabase } from './bench-setup.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values: args } = parseArgs({
  options: {
    messages: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '4' },
    dir: { type: 'string', default: path.join(ROOT, '.data/bench-notify') },
  },
});
const N = Number(args.messages);
const CONCURRENCY = Number(args.concurrency);
const log = (msg: string) => process.stdout.write(`${msg}\n`);
const HOUR = 3_600_000;

type Row = { id: number; alertId: number; email: string };

/** N users with one instant e-mail alert each, one listing, and one pending notification per alert. */
async function seed(database: Database): Promise<{ listingId: number }> {
  const { sql } = database;
  await sql.unsafe(`INSERT INTO users (email, first_name, last_name) SELECT 'notify-' || g || '@bench.invalid', 'Bench', 'User' || g FROM generate_series(1, ${N}) g`);
  await sql.unsafe(`INSERT INTO alerts (user_id, category_id, price_max, state) SELECT id, 1, 60000, 'TX' FROM users`);
  const [source] = await sql<Array<{ id: number }>>`INSERT INTO sources (name, display_name, base_url) VALUES ('bench-notify', 'Bench', 'https://bench.invalid') RETURNING id`;
  const [listing] = await sql<Array<{ id: number }>>`
    INSERT INTO listings (source_id, external_id, slug, title, make, model, description, category_id, state, condition, price, price_usd,
                          deal_score, fair_value, status, auction_end_at, original_url, scored_at)
    VALUES (${source!.id}, 'n1', 'cat-320-gc-n1', '2019 Caterpillar 320 GC Hydraulic Excavator', 'Caterpillar', '320 GC', 'Bench lot', 1, 'TX', 'Good',
            45000, 45000, 871, 62000, 'open', ${new Date(Date.now() + 5 * HOUR).toISOString()}::timestamptz, 'https://bench.invalid/lot/n1', now())
    RETURNING id`;
  await resetNotifications(database, listing!.id);
  return { listingId: listing!.id };
}

/** Back to "matched, nothing sent": every notification pending again, no message recorded. */
async function resetNotifications(database: Database, listingId: number): Promise<void> {
  await database.sql`DELETE FROM outbox_messages`;
  await database.sql`DELETE FROM alert_notifications`;
  await database.sql`
    INSERT INTO alert_notifications (alert_id, user_id, listing_id, event, trigger, channel, frequency, price_usd, deal_score)
    SELECT a.id, a.user_id, ${listingId}, 'match', 'scored', 'email', 'instant', 45000, 871 FROM alerts a ORDER BY a.id`;
}

async function rows(database: Database): Promise<Row[]> {
  return (await database.sql`
    SELECT n.id, n.alert_id AS "alertId", u.email FROM alert_notifications n JOIN users u ON u.id = n.user_id ORDER BY n.id`) as unknown as Row[];
}

async function waitUntil(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 600_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function sentCount(database: Database): Promise<number> {
  const [row] = (await database.sql`SELECT count(*)::int AS n FROM alert_notifications WHERE status = 'sent'`) as unknown as [{ n: number }];
  return row.n;
}

const perMessage = (ms: number) => `${((ms * 1000) / N).toFixed(0)} µs/message`;
const rate = (ms: number) => `${Math.round(N / (ms / 1000)).toLocaleString('en-US')}/s`;

async function main(): Promise<void> {
  log(`bench:notify — ${N.toLocaleString('en-US')} instant alert e-mails, worker concurrency ${CONCURRENCY}; ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB`);
  const bench = await startBenchDatabase(args.dir!);
  const { database } = bench;
  const runtimes: QueueRuntime[] = [];
  const table: Array<[string, string]> = [];
  try {
    const { listingId } = await seed(database);
    const config = benchConfig(bench, { NOTIFY_CONCURRENCY: String(CONCURRENCY) });
    const logger = createLogger(config, 'bench-notify');
    const linkKey = alertLinkKey(config);
    const now = new Date();
    const listing = { id: listingId, slug: 'cat-320-gc-n1', title: '2019 Caterpillar 320 GC Hydraulic Excavator', priceUsd: 45000, dealScore: 871, fairValue: 62000, auctionEndAt: new Date(Date.now() + 5 * HOUR), city: 'Austin', state: 'TX' };
    const alert = (id: number) => ({ id, equipmentType: 'Excavators', priceMin: null, priceMax: 60000, state: 'TX', condition: null, minDealScore: null, keywords: null });

    // 1. Rendering.
    let all = await rows(database);
    let t = performance.now();
    const emails = all.map((r) => renderMatchEmail({ alert: alert(r.alertId), listing, event: 'match', appUrl: config.APP_URL, unsubscribeUrl: unsubscribeUrl(config.APP_URL, linkKey, r.alertId), now }));
    table.push(['render one e-mail (subject, text, HTML, signed unsubscribe link)', perMessage(performance.now() - t)]);

    // 2. The per-message notifier's statements, one message at a time.
    const statementMs = { record: 0, claim: 0, sent: 0, report: 0 };
    for (const [i, r] of all.entries()) {
      const key = instantMessageKey(r.id);
      const e = emails[i]!;
      t = performance.now();
      await recordQueuedMessage(database.db, { messageKey: key, channel: 'email', kind: 'alert', recipient: r.email, subject: e.subject, textBody: e.text, htmlBody: e.html });
      statementMs.record += performance.now() - t;
      t = performance.now();
      await claimMessage(database.db, key, 'outbox', 600);
      statementMs.claim += performance.now() - t;
      t = performance.now();
      await markMessageSent(database.db, key, null);
      statementMs.sent += performance.now() - t;
      t = performance.now();
      await recordAlertDelivery(database.db, key, { status: 'sent' });
      statementMs.report += performance.now() - t;
    }
    const sqlTotal = statementMs.record + statementMs.claim + statementMs.sent + statementMs.report;
    table.push(['SQL: record the message (INSERT … ON CONFLICT DO NOTHING)', perMessage(statementMs.record)]);
    table.push(['SQL: claim it (UPDATE … RETURNING)', perMessage(statementMs.claim)]);
    table.push(['SQL: mark it sent', perMessage(statementMs.sent)]);
    table.push(['SQL: report on the notification', perMessage(statementMs.report)]);
    table.push(['SQL: the four round trips of one message, in sequence', perMessage(sqlTotal)]);

    // 3. The queue alone: no-op jobs on the PostgreSQL backend.
    const noop = new QueueRuntime({ kind: 'postgres', url: bench.url }, logger, { prefix: 'bench_noop' });
    runtimes.push(noop);
    let done = 0;
    const noopWorker = noop.worker('notify', async () => undefined, { concurrency: CONCURRENCY });
    noopWorker.on('completed', () => void done++);
    const payloads: PayloadInput<'notify'>[] = all.map((r, i) => ({ channel: 'email', messageKey: `noop:${r.id}`, to: r.email, subject: emails[i]!.subject, text: emails[i]!.text, html: emails[i]!.html, kind: 'alert' }));
    await noop.queue('notify').waitUntilReady();
    await noopWorker.waitUntilReady();
    t = performance.now();
    for (let i = 0; i < payloads.length; i += 500) await noop.enqueueBulk('notify', payloads.slice(i, i + 500));
    const addMs = performance.now() - t;
    await waitUntil(async () => done >= N, 'no-op jobs');
    const noopMs = performance.now() - t;
    await noop.close();
    table.push([`queue: add jobs with addBulk (500 a call)`, perMessage(addMs)]);
    table.push([`queue: no-op jobs through a worker (concurrency ${CONCURRENCY}), added → completed`, `${perMessage(noopMs)} (${rate(noopMs)})`]);

    // 4. The per-message path: one notify job per e-mail through the real handler.
    await resetNotifications(database, listingId);
    all = await rows(database);
    const transport = createOutboxTransport();
    const single = new QueueRuntime({ kind: 'postgres', url: bench.url }, logger, { prefix: 'bench_single' });
    runtimes.push(single);
    const singleWorker = single.worker('notify', createNotifyHandler({ db: database.db, transport, mailFrom: config.MAIL_FROM, logger }), { concurrency: CONCURRENCY });
    const jobs: PayloadInput<'notify'>[] = all.map((r, i) => ({ channel: 'email', messageKey: instantMessageKey(r.id), to: r.email, subject: emails[i]!.subject, text: emails[i]!.text, html: emails[i]!.html, kind: 'alert', notificationId: r.id }));
    await single.queue('notify').waitUntilReady();
    await singleWorker.waitUntilReady();
    t = performance.now();
    for (let i = 0; i < jobs.length; i += 500) await single.enqueueBulk('notify', jobs.slice(i, i + 500));
    await waitUntil(async () => (await sentCount(database)) >= N, 'per-message sends');
    const singleMs = performance.now() - t;
    await single.close();
    table.push([`per-message path: one notify job per e-mail (concurrency ${CONCURRENCY}), added → all sent`, `${perMessage(singleMs)} (${rate(singleMs)})`]);

    // 5. The batch path: the matcher's dispatch and the notify-batch worker.
    await resetNotifications(database, listingId);
    const batched = new QueueRuntime({ kind: 'postgres', url: bench.url }, logger, { prefix: 'bench_batch' });
    runtimes.push(batched);
    const ctx: AppContext = { config, logger, database, queues: batched };
    const batchWorker = batched.worker('notifyBatch', createNotifyBatchHandler({ db: database.db, transport, mailFrom: config.MAIL_FROM, logger, parallelism: config.NOTIFY_SEND_PARALLELISM }), { concurrency: CONCURRENCY });
    await batched.queue('notifyBatch').waitUntilReady();
    await batchWorker.waitUntilReady();
    t = performance.now();
    await dispatchInstantNotifications(ctx, [listingId], now);
    const dispatchMs = performance.now() - t;
    await waitUntil(async () => (await sentCount(database)) >= N, 'batch sends');
    const batchMs = performance.now() - t;
    await batched.close();
    table.push([`batch path: dispatch (render, record ${N} messages, add ${Math.ceil(N / config.NOTIFY_BATCH_SIZE)} notify-batch jobs of ≤ ${config.NOTIFY_BATCH_SIZE})`, perMessage(dispatchMs)]);
    table.push([`batch path: dispatch → all sent (worker concurrency ${CONCURRENCY}, ${config.NOTIFY_SEND_PARALLELISM} sends at once per batch)`, `${perMessage(batchMs)} (${rate(batchMs)})`]);

    log('');
    log('| step | time |');
    log('|---|---|');
    for (const [step, value] of table) log(`| ${step} | ${value} |`);
  } finally {
    for (const r of runtimes) await r.close().catch(() => {});
    await bench.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
