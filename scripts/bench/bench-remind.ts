/**
 * `npm run bench:remind -- [--watched 100000] [--users 20000] [--window 60] [--lead 90] [--json]`
 *
 * Watchlist reminders under load (issue 31): seeds --watched watched lots (--users buyers, five
 * lots each, every lot its own listing) whose 1-hour reminders all fall due within --window
 * seconds, starting --lead seconds after the services are up. Then the product's own pieces run
 * on the PostgreSQL queue backend with the outbox transport: the scheduler's watch tick (every
 * 15 s, WATCH_REMIND_SCHEDULE), the matcher's watch-due worker (the dispatcher: one indexed claim
 * per batch of due rows) and the notifier's notify-batch worker. For every reminder, its lateness
 * is measured in the database: message recorded (handed to the notifier) and message sent, each
 * minus its due time. Prints p50/p95/p99/max and, with --json, one JSON line.
 *
 * Starts its own embedded PostgreSQL under --dir (fresh each run, removed at the end). Talks only
 * to 127.0.0.1.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startMatcher } from '../../services/matcher/index.js';
import { WATCH_SCHEDULES } from '../../services/matcher/watch-schedule.js';
import { startNotifier } from '../../services/notifier/index.js';
import { startSchedules } from '../../services/scheduler/index.js';
import type { AppContext } from '../../services/shared/context.js';
import { benchConfig, benchContext, percentile, startBenchDatabase } from './bench-setup.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values: args } = parseArgs({
  options: {
    watched: { type: 'string', default: '100000' },
    users: { type: 'string', default: '20000' },
    window: { type: 'string', default: '60' },
    lead: { type: 'string', default: '90' },
    timeout: { type: 'string', default: '900' },
    dir: { type: 'string', default: path.join(ROOT, '.data/bench-remind') },
    json: { type: 'boolean', default: false },
  },
});
const WATCHED = Number(args.watched);
const USERS = Math.min(Number(args.users), WATCHED);
const WINDOW_S = Number(args.window);
const LEAD_S = Number(args.lead);
const log = (msg: string) => {
  if (!args.json) process.stdout.write(`${msg}\n`);
};

async function main(): Promise<void> {
  log(`bench:remind — ${WATCHED.toLocaleString('en-US')} watched lots, reminders due within ${WINDOW_S} s; ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const loadBefore = os.loadavg()[0]!;
  const bench = await startBenchDatabase(args.dir!);
  let ctx: AppContext | undefined;
  const services: Array<{ stop(): Promise<void> }> = [];
  try {
    const { sql } = bench.database;
    let t = performance.now();
    const perUser = Math.ceil(WATCHED / USERS);
    await sql.unsafe(`INSERT INTO sources (name, display_name, base_url) VALUES ('bench', 'Bench Auctions', 'http://127.0.0.1/bench')`);
    await sql.unsafe(`
      INSERT INTO users (email, first_name) SELECT 'bench-' || g || '@bench.invalid', 'Bench' FROM generate_series(1, ${USERS}) g`);
    // Listings end far away for now; their end times are set once the services run (below).
    await sql.unsafe(`
      INSERT INTO listings (source_id, external_id, slug, title, category_id, original_url, current_bid, price, price_usd, auction_end_at)
      SELECT 1, 'lot-' || g, 'bench-lot-' || g, 'Bench excavator ' || g, 1, 'http://127.0.0.1/bench/lot/' || g, 20000 + g % 50000, 20000 + g % 50000, 20000 + g % 50000,
             now() + interval '30 days'
      FROM generate_series(1, ${WATCHED}) g`);
    await sql.unsafe(`
      INSERT INTO watched_lots (user_id, listing_id, remind_before_minutes, due_at)
      SELECT 1 + (g - 1) / ${perUser}, g, 60, now() + interval '30 days' - interval '60 minutes' FROM generate_series(1, ${WATCHED}) g`);
    await sql.unsafe('ANALYZE');
    log(`seeded ${WATCHED.toLocaleString('en-US')} watched lots (${USERS.toLocaleString('en-US')} users) in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    ctx = benchContext(bench, benchConfig(bench, { SERVICES: 'matcher,notifier,scheduler' }), 'bench-remind');
    services.push(await startMatcher(ctx), await startNotifier(ctx), startSchedules(ctx, WATCH_SCHEDULES));

    // The crawler's view changes: every lot now ends one hour and LEAD..LEAD+WINDOW seconds from
    // now, spread evenly; the listings trigger marks each watched row due now and the dispatcher
    // sets its reminder (due one hour before the end) — the path a real end time takes.
    t = performance.now();
    await sql.unsafe(`
      UPDATE listings SET auction_end_at = date_trunc('second', now()) + interval '60 minutes' + make_interval(secs => ${LEAD_S} + ((id - 1) % ${WATCHED}) * ${WINDOW_S}::float8 / ${WATCHED})`);
    log(`end times moved in ${((performance.now() - t) / 1000).toFixed(1)} s; waiting for ${WATCHED.toLocaleString('en-US')} reminders`);

    const deadline = Date.now() + Number(args.timeout) * 1000;
    let sent = 0;
    for (;;) {
      const [row] = (await sql`SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent, count(*)::int AS recorded FROM outbox_messages WHERE kind = 'watch_reminder'`) as unknown as [{ sent: number; recorded: number }];
      sent = row.sent;
      if (sent >= WATCHED || Date.now() > deadline) break;
      log(`  ${row.recorded.toLocaleString('en-US')} recorded, ${sent.toLocaleString('en-US')} sent`);
      await new Promise((r) => setTimeout(r, 5000));
    }
    const rows = (await sql`
      SELECT extract(epoch FROM (m.created_at - (l.auction_end_at - interval '60 minutes')))::float8 AS queued,
             extract(epoch FROM (m.sent_at - (l.auction_end_at - interval '60 minutes')))::float8 AS sent
      FROM outbox_messages m
      JOIN watched_lots w ON w.id = split_part(m.message_key, ':', 2)::int
      JOIN listings l ON l.id = w.listing_id
      WHERE m.kind = 'watch_reminder' AND m.status = 'sent'`) as unknown as Array<{ queued: number; sent: number }>;
    const queued = rows.map((r) => r.queued).sort((a, b) => a - b);
    const sentLate = rows.map((r) => r.sent).sort((a, b) => a - b);
    const [dups] = (await sql`SELECT count(*)::int AS n FROM (SELECT split_part(message_key, ':', 2) FROM outbox_messages WHERE kind = 'watch_reminder' GROUP BY 1 HAVING count(*) > 1) d`) as unknown as [{ n: number }];
    const figure = (xs: number[]) => ({ p50: percentile(xs, 50), p95: percentile(xs, 95), p99: percentile(xs, 99), max: xs.at(-1) ?? NaN });
    const result = {
      bench: 'remind',
      at: new Date().toISOString(),
      watched: WATCHED,
      users: USERS,
      windowSeconds: WINDOW_S,
      sent: rows.length,
      duplicates: dups.n,
      recordedLatenessSeconds: figure(queued),
      sentLatenessSeconds: figure(sentLate),
      targetP95Seconds: 60,
      met: rows.length === WATCHED && percentile(sentLate, 95) <= 60,
      loadBefore,
      loadAfter: os.loadavg()[0]!,
      cores: os.cpus().length,
    };
    const s = (v: number) => `${v.toFixed(1)} s`;
    log(`reminders sent: ${rows.length.toLocaleString('en-US')} of ${WATCHED.toLocaleString('en-US')}; duplicates: ${dups.n}`);
    log(`due → recorded (handed to the notifier): p50 ${s(result.recordedLatenessSeconds.p50)}, p95 ${s(result.recordedLatenessSeconds.p95)}, p99 ${s(result.recordedLatenessSeconds.p99)}, max ${s(result.recordedLatenessSeconds.max)}`);
    log(`due → sent (outbox transport):          p50 ${s(result.sentLatenessSeconds.p50)}, p95 ${s(result.sentLatenessSeconds.p95)}, p99 ${s(result.sentLatenessSeconds.p99)}, max ${s(result.sentLatenessSeconds.max)}`);
    log(`target p95 ≤ 60 s: ${result.met ? 'met' : 'NOT met'}; load ${loadBefore.toFixed(1)} before, ${result.loadAfter.toFixed(1)} after`);
    if (args.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exitCode = result.met ? 0 : 1;
  } finally {
    for (const s of services.reverse()) await s.stop().catch(() => {});
    await ctx?.queues.close().catch(() => {});
    await bench.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:remind failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
