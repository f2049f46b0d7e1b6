/**
 * `npm run bench:match -- [--alerts 100000] [--listings 10000] [--parallel 2] [--probe 120] [--rate 4] [--explain] [--match-concurrency 4] [--notify-concurrency 4]`
 *
 * 1. Matching: seeds --alerts active alerts (owned by alerts/5 users) and --listings changed
 *    listings with a fixed random seed, then runs the matcher's one set-based statement over the
 *    whole batch (alerts-repository `matchChangedListings`) and prints the time, notifications
 *    created and notifications/s; then the same batch again (a job run twice: nothing new).
 * 2. Latency: with those alerts in place, the real matcher and notifier services run on the
 *    PostgreSQL queue backend (the product's default) with the outbox transport (match jobs, then
 *    notify-batch jobs, each timed waiting and running); --probe new
 *    listings are "scored" at --rate per second the way the scorer does it (deal score written,
 *    then a `match` job), and for every instant e-mail the time from the score write to the
 *    message being sent to the outbox is measured in the database (clock_timestamp on both
 *    sides). Prints p50/p95/p99/max.
 *
 * Starts its own embedded PostgreSQL under --dir (fresh each run, removed at the end). Talks only
 * to 127.0.0.1.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startMatcher } from '../../services/matcher/index.js';
import { startNotifier } from '../../services/notifier/index.js';
import type { AppContext } from '../../services/shared/context.js';
import type { Database } from '../../services/shared/database/db.js';
import { dailyCapStatements, matchChangedListings, matchStatement } from '../../services/shared/repositories/alerts-repository.js';
import { sql } from 'drizzle-orm';
import { benchConfig, benchContext, percentile, startBenchDatabase } from './bench-setup.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values: args } = parseArgs({
  options: {
    alerts: { type: 'string', default: '100000' },
    listings: { type: 'string', default: '10000' },
    probe: { type: 'string', default: '120' },
    rate: { type: 'string', default: '4' },
    dir: { type: 'string', default: path.join(ROOT, '.data/bench-match') },
    explain: { type: 'boolean', default: false },
    /** The matcher's and notifier's worker concurrency (MATCH_CONCURRENCY, NOTIFY_CONCURRENCY; product defaults). */
    'match-concurrency': { type: 'string' },
    'notify-concurrency': { type: 'string' },
    /** Statements run at once, each over its share of the batch (the match worker runs jobs concurrently too). */
    parallel: { type: 'string', default: String(Math.max(1, os.cpus().length)) },
  },
});
const ALERTS = Number(args.alerts);
const LISTINGS = Number(args.listings);
const PROBE = Number(args.probe);
const RATE = Number(args.rate);
const PARALLEL = Math.max(1, Number(args.parallel));
const log = (msg: string) => process.stdout.write(`${msg}\n`);

const STATES = ['AL', 'AK', 'AZ', 'AR', 'CA', 'CO', 'CT', 'DE', 'FL', 'GA', 'HI', 'ID', 'IL', 'IN', 'IA', 'KS', 'KY', 'LA', 'ME', 'MD', 'MA', 'MI', 'MN', 'MS', 'MO', 'MT', 'NE', 'NV', 'NH', 'NJ', 'NM', 'NY', 'NC', 'ND', 'OH', 'OK', 'OR', 'PA', 'RI', 'SC', 'SD', 'TN', 'TX', 'UT', 'VT', 'VA', 'WA', 'WV', 'WI', 'WY'];
const CONDITIONS = ['New', 'Like New', 'Good', 'Fair', 'Poor', 'Parts Only'];
const MAKES = ['cat', 'deere', 'komatsu', 'volvo', 'case', 'bobcat', 'hitachi', 'kubota'];

const sqlArray = (items: string[]) => `ARRAY[${items.map((s) => `'${s}'`).join(',')}]`;

/**
 * The synthetic population, in SQL for speed. Alerts: a category; a state for 97% (buyers want
 * lots they can collect); a condition for half; a budget band for 85% (about ×1.5–×3 wide
 * around a price), only a ceiling for 10%, no price for 5%; a minimum badge score (60–90) for
 * 30%; one make keyword for 20%; daily digests for 20%. Listings: a category, state and condition,
 * log-uniform prices from $5k to $300k, a deal score, open and ending in 1–7 days.
 */
async function seed(db: Database): Promise<void> {
  const { sql } = db;
  const users = Math.ceil(ALERTS / 5);
  await sql`SELECT setseed(0.42)`;
  await sql.unsafe(`
    INSERT INTO users (email, first_name, last_name)
    SELECT 'bench-' || g || '@bench.invalid', 'Bench', 'User' || g FROM generate_series(1, ${users}) g`);
  await sql.unsafe(`
    INSERT INTO alerts (user_id, category_id, price_min, price_max, state, condition, delivery_method, frequency, min_deal_score, keywords, keyword_terms)
    SELECT u.id, a.category_id,
           CASE WHEN a.p < 0.85 THEN (a.center / sqrt(a.width))::int END,
           CASE WHEN a.p < 0.95 THEN (a.center * sqrt(a.width))::int END,
           CASE WHEN random() < 0.97 THEN (${sqlArray(STATES)})[1 + floor(random() * 50)::int] END,
           CASE WHEN random() < 0.5 THEN (${sqlArray(CONDITIONS)})[1 + floor(random() * 6)::int] END,
           'email',
           CASE WHEN random() < 0.2 THEN 'daily' ELSE 'instant' END,
           -- 30% ask for a minimum score; the others take any score (premium's minimum 0), so the
           -- batch matches as many pairs as before deals-only became the default (issue #22).
           CASE WHEN random() < 0.3 THEN 60 + 10 * floor(random() * 4)::int ELSE 0 END,
           a.kw, CASE WHEN a.kw IS NOT NULL THEN ARRAY[a.kw] END
    FROM (
      SELECT g, 1 + floor(random() * 10)::int AS category_id, random() AS p,
             exp(ln(5000) + random() * (ln(300000) - ln(5000))) AS center, 1.5 + random() * 1.5 AS width,
             CASE WHEN random() < 0.2 THEN (${sqlArray(MAKES)})[1 + floor(random() * 8)::int] END AS kw
      FROM generate_series(1, ${ALERTS}) g
    ) a
    JOIN (SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM users) u ON u.k = (a.g - 1) % ${users}`);
  const [source] = await sql<Array<{ id: number }>>`
    INSERT INTO sources (name, display_name, base_url) VALUES ('bench-match', 'Bench', 'https://bench.invalid') RETURNING id`;
  await insertListings(db, source!.id, 'b', LISTINGS, true);
  await sql`ANALYZE`;
}

async function insertListings(db: Database, sourceId: number, prefix: string, count: number, scored: boolean): Promise<void> {
  await db.sql.unsafe(`
    INSERT INTO listings (source_id, external_id, slug, title, make, model, description, category_id, state, condition,
                          price, price_usd, deal_score, fair_value, status, auction_end_at, original_url, scored_at)
    SELECT ${sourceId}, '${prefix}' || g, '${prefix}-lot-' || g, initcap(l.make) || ' ' || (100 + g % 900) || ' unit ' || g, initcap(l.make), (100 + g % 900)::text,
           'Bench lot', l.category_id, l.state, l.condition, l.price, l.price,
           ${scored ? 'l.score' : 'NULL'}, ${scored ? 'round(l.price * (1 + (l.score - 500) / 1000.0))' : 'NULL'}, 'open',
           now() + (1 + random() * 6) * interval '1 day', 'https://bench.invalid/lot/' || g, ${scored ? 'now()' : 'NULL'}
    FROM (
      SELECT g, (${sqlArray(MAKES)})[1 + floor(random() * 8)::int] AS make, 1 + floor(random() * 10)::int AS category_id,
             (${sqlArray(STATES)})[1 + floor(random() * 50)::int] AS state,
             CASE WHEN random() < 0.9 THEN (${sqlArray(CONDITIONS)})[1 + floor(random() * 6)::int] END AS condition,
             round(exp(ln(5000) + random() * (ln(300000) - ln(5000)))) AS price,
             least(1000, greatest(0, round(500 + 200 * (random() + random() + random() - 1.5) * 1.6)))::int AS score
      FROM generate_series(1, ${count}) g
    ) l`);
}

async function main(): Promise<void> {
  log(`bench:match — ${ALERTS.toLocaleString('en-US')} active alerts × ${LISTINGS.toLocaleString('en-US')} changed listings; ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB`);
  const bench = await startBenchDatabase(args.dir!);
  const { database } = bench;
  let ctx: AppContext | undefined;
  const services: Array<{ stop(): Promise<void> }> = [];
  try {
    let t = performance.now();
    await seed(database);
    const [{ n: active }] = (await database.sql`SELECT count(*)::int AS n FROM alerts WHERE is_active`) as unknown as [{ n: number }];
    log(`seeded ${active.toLocaleString('en-US')} active alerts and ${LISTINGS.toLocaleString('en-US')} listings in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    // 1. One set-based statement over the whole changed batch.
    const ids = (await database.sql`SELECT id FROM listings WHERE scored_at IS NOT NULL ORDER BY id`) as unknown as Array<{ id: number }>;
    const batch = ids.map((r) => ({ listingId: r.id, trigger: 'scored' as const }));
    if (args.explain) {
      // EXPLAIN ANALYZE runs the statement: inside a transaction that is rolled back.
      await database.db
        .transaction(async (tx) => {
          const plan = (await tx.execute(sql`EXPLAIN (ANALYZE, COSTS OFF) ${matchStatement(batch, new Date())}`)) as unknown as Array<Record<string, string>>;
          log(plan.map((r) => Object.values(r)[0]).join('\n'));
          throw new Error('rollback');
        })
        .catch((err: unknown) => {
          if (!(err instanceof Error && err.message === 'rollback')) throw err;
        });
    }
    // The batch in PARALLEL contiguous shares, one statement each, run at once.
    const shares = Array.from({ length: PARALLEL }, (_, i) => batch.slice(Math.floor((i * batch.length) / PARALLEL), Math.floor(((i + 1) * batch.length) / PARALLEL)));
    const matchAll = async () => (await Promise.all(shares.map((share) => matchChangedListings(database.db, share)))).reduce((a, b) => a + b, 0);
    t = performance.now();
    const created = await matchAll();
    const matchMs = performance.now() - t;
    t = performance.now();
    const again = await matchAll();
    const againMs = performance.now() - t;
    if (args.explain) {
      // The daily cap's statements as one match job runs them (one listing of the batch, its
      // instant notifications pending), rolled back like the matching statement's plan.
      const capped = dailyCapStatements([batch[0]!.listingId], new Date(), { email: 5, sms: 3 });
      await database.db
        .transaction(async (tx) => {
          for (const [name, statement] of Object.entries(capped)) {
            const plan = (await tx.execute(sql`EXPLAIN (ANALYZE, COSTS OFF) ${statement}`)) as unknown as Array<Record<string, string>>;
            log(`daily cap, ${name}:\n${plan.map((r) => Object.values(r)[0]).join('\n')}`);
          }
          throw new Error('rollback');
        })
        .catch((err: unknown) => {
          if (!(err instanceof Error && err.message === 'rollback')) throw err;
        });
    }
    const [{ instant }] = (await database.sql`SELECT count(*) FILTER (WHERE frequency = 'instant')::int AS instant FROM alert_notifications`) as unknown as [{ instant: number }];

    // 2. Score written → instant e-mail in the outbox, through the real queues and services.
    const config = benchConfig(bench, {
      // A higher cap, so that every probe's instant e-mail is sent and timed rather than some
      // rolled into the digest; the cap's work (lock, decide, count) still runs on every dispatch.
      ALERT_DAILY_EMAIL_CAP: '1000',
      ...(args['match-concurrency'] ? { MATCH_CONCURRENCY: args['match-concurrency'] } : {}),
      ...(args['notify-concurrency'] ? { NOTIFY_CONCURRENCY: args['notify-concurrency'] } : {}),
    });
    ctx = benchContext(bench, config, 'bench-match');
    services.push(await startMatcher(ctx), await startNotifier(ctx));
    const [source] = (await database.sql`SELECT id FROM sources WHERE name = 'bench-match'`) as unknown as [{ id: number }];
    await insertListings(database, source.id, 'p', PROBE, false);
    const probes = (await database.sql`SELECT id, price_usd::float8 AS price FROM listings WHERE scored_at IS NULL ORDER BY id`) as unknown as Array<{ id: number; price: number }>;
    await ctx.queues.queue('match').waitUntilReady();
    const started = performance.now();
    for (let i = 0; i < probes.length; i++) {
      const due = started + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const probe = probes[i]!;
      // What the scorer does: write the score, then enqueue the match job.
      const score = 600 + ((probe.id * 37) % 400);
      await database.sql`UPDATE listings SET deal_score = ${score}, fair_value = ${Math.round(probe.price * 1.3)}, scored_at = clock_timestamp() WHERE id = ${probe.id}`;
      await ctx.queues.enqueue('match', { listingId: probe.id, event: 'scored', eventKey: `bench-${score}` });
    }
    const probeIds = `{${probes.map((p) => p.id).join(',')}}`;
    const probeSet = new Set(probes.map((p) => p.id));
    const expected = await waitForSettled(ctx, probeIds);
    const latencies = ((await database.sql`
      SELECT extract(epoch FROM (m.sent_at - l.scored_at)) * 1000 AS ms
      FROM alert_notifications n
      JOIN listings l ON l.id = n.listing_id
      JOIN outbox_messages m ON m.message_key = n.message_key
      WHERE n.listing_id = ANY(${probeIds}::int[]) AND n.frequency = 'instant' AND m.status = 'sent'`) as unknown as Array<{ ms: number }>)
      .map((r) => Number(r.ms))
      .sort((a, b) => a - b);
    const runSeconds = (performance.now() - started) / 1000;
    // Where a probe's time went: each stage's jobs, waiting in the queue and running.
    const stages = await Promise.all(
      (['match', 'notifyBatch'] as const).map(async (q) => {
        const jobs = (await ctx!.queues.queue(q).getJobs(['completed'], 0, 100_000)).filter((j) => probeSet.has((j.data as { listingId: number }).listingId));
        const waits = jobs.map((j) => j.processedOn! - j.timestamp).sort((a, b) => a - b);
        const runs = jobs.map((j) => j.finishedOn! - j.processedOn!).sort((a, b) => a - b);
        return `${jobs.length} ${q} jobs: waiting p50 ${percentile(waits, 50).toFixed(0)} / p95 ${percentile(waits, 95).toFixed(0)} ms, running p50 ${percentile(runs, 50).toFixed(0)} / p95 ${percentile(runs, 95).toFixed(0)} ms`;
      }),
    );

    log('');
    log('| measure | value |');
    log('|---|---|');
    log(`| active alerts × changed listings | ${active.toLocaleString('en-US')} × ${batch.length.toLocaleString('en-US')} |`);
    log(`| matching time (${PARALLEL} × one INSERT … SELECT … ON CONFLICT DO NOTHING over ${Math.ceil(batch.length / PARALLEL).toLocaleString('en-US')} listings, at once) | ${(matchMs / 1000).toFixed(2)} s |`);
    log(`| notifications created | ${created.toLocaleString('en-US')} (${instant.toLocaleString('en-US')} instant, ${(created - instant).toLocaleString('en-US')} daily); ${(created / batch.length).toFixed(1)} per listing |`);
    log(`| notifications/s | ${Math.round(created / (matchMs / 1000)).toLocaleString('en-US')} |`);
    log(`| same batch again (job run twice) | ${again} new in ${(againMs / 1000).toFixed(2)} s |`);
    log(`| score written → e-mail sent to outbox (${latencies.length} instant e-mails of ${probes.length} listings scored at ${RATE}/s; ${expected} expected) | p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms, max ${percentile(latencies, 100).toFixed(0)} ms |`);
    log(`| e-mail throughput during the latency run | ${(latencies.length / runSeconds).toFixed(0)} e-mails/s |`);
    log(`| where the latency run's time went | ${stages.join('; ')} |`);
    log('');
    log(`targets: matching < 10 s → ${matchMs < 10_000 ? 'met' : 'NOT met'}; p95 < 2 s → ${percentile(latencies, 95) < 2000 ? 'met' : 'NOT met'}`);
  } finally {
    for (const s of services) await s.stop().catch(() => {});
    await ctx?.queues.close().catch(() => {});
    await bench.close();
  }
}

/** Waits until the match and notify queues are drained and every probe e-mail settled; returns their count. */
async function waitForSettled(ctx: AppContext, probeIds: string): Promise<number> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    const busy = await Promise.all(
      (['match', 'notify'] as const).map(async (q) => {
        const counts = await ctx.queues.queue(q).getJobCounts('waiting', 'active', 'delayed', 'prioritized');
        return Object.values(counts).reduce((a, b) => a + b, 0);
      }),
    );
    const [row] = (await ctx.database.sql`
      SELECT count(*)::int AS total, count(*) FILTER (WHERE status IN ('sent', 'failed', 'skipped'))::int AS done
      FROM alert_notifications WHERE listing_id = ANY(${probeIds}::int[]) AND frequency = 'instant'`) as unknown as [{ total: number; done: number }];
    if (busy.every((n) => n === 0) && row.total === row.done) return row.total;
    if (Date.now() > deadline) throw new Error(`latency run did not settle: ${row.done}/${row.total}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
