/**
 * `npm run bench:score -- [--count 50000] [--dir .data/bench-score] [--reseed] [--no-train] [--json]`
 *
 * The rescore after a retrain, end to end, and the training before it:
 *  1. an embedded PostgreSQL under --dir (kept, so the next run reuses its sales, model and
 *     listings; --reseed starts the listings over);
 *  2. all shared sales imported as a first start does (Fast Iron Train + Valid with their prices,
 *     West Auctions machine lots), read from ../shared/data at run time;
 *  3. training on all of them with the product's training (its thread, its parameters): wall and
 *     CPU seconds (--no-train reuses the newest stored model);
 *  4. --count realistic listings (scripts/seed-listings.ts: make, model, year, hours and price
 *     drawn from the same records);
 *  5. the rescore: `rescore-all` for the model queues `score-batch` jobs, and the real scorer
 *     (startScorer: its batch worker, in-memory comparables, block prediction, one write per
 *     batch, match jobs for live listings) works through them. Throughput = listings / wall
 *     seconds from the first enqueue to the last listing written, database writes included.
 * Prints a table, and with --json one JSON line last. Talks only to 127.0.0.1.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { openSql } from '../../services/shared/database/connection-url.js';
import { startScorer } from '../../services/scorer/index.js';
import { importFastIronSales, importWestAuctionSales } from '../../services/scorer/import-sales.js';
import { enqueueRescoreAll } from '../../services/scorer/model-jobs.js';
import { trainAndStoreModel } from '../../services/scorer/train-model.js';
import { loadConfig, parseConfig } from '../../services/shared/config.js';
import type { AppContext } from '../../services/shared/context.js';
import { connectDatabase, runMigrations } from '../../services/shared/database/db.js';
import { startEmbeddedPostgres } from '../../services/shared/database/embedded-postgres.js';
import { readSalePrices } from '../../services/shared/datasets/fastiron.js';
import { createLogger } from '../../services/shared/logger.js';
import { QueueRuntime } from '../../services/shared/queues.js';
import { latestModelVersion } from '../../services/shared/repositories/model-versions-repository.js';
import { countSoldResultsByOrigin } from '../../services/shared/repositories/sold-results-repository.js';
import { BENCH_SOURCES, seedListings } from '../seed-listings.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { values: args } = parseArgs({
  options: {
    count: { type: 'string', default: '50000' },
    dir: { type: 'string', default: path.join(ROOT, '.data/bench-score') },
    reseed: { type: 'boolean', default: false },
    'no-train': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  },
});
const COUNT = Number(args.count);
if (!Number.isInteger(COUNT) || COUNT < 1000) throw new Error('--count needs a whole number ≥ 1000');
const SHARED = loadConfig().SHARED_DIR;
const log = (line: string) => process.stderr.write(`${line}\n`);

type Row = Record<string, unknown>;
const one = async <T>(ctx: AppContext, query: ReturnType<typeof sql>): Promise<T> => ((await ctx.database.db.execute(query)) as unknown as T[])[0]!;

/**
 * CPU seconds used so far by a process tree (the embedded PostgreSQL: its server script, the
 * postmaster and every backend, exited ones included through their parents' child times), from /proc.
 */
function treeCpuSeconds(rootPid: number): number {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const text = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      // after the name: state(0) ppid(1) … utime(11) stime(12) cutime(13) cstime(14)
      stats.set(Number(name), { ppid: Number(fields[1]), ticks: [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) });
    } catch {
      // the process ended while we read
    }
  }
  let ticks = 0;
  const inTree = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 20; p = stats.get(p)?.ppid ?? 0, hops++) if (p === rootPid) return true;
    return false;
  };
  for (const [pid, s] of stats) if (inTree(pid)) ticks += s.ticks;
  return ticks / 100; // USER_HZ
}

async function importSharedSales(ctx: AppContext): Promise<void> {
  const counts = await countSoldResultsByOrigin(ctx.database.db);
  if (Object.values(counts).reduce((a, b) => a + b, 0) > 0) return;
  const dir = path.join(SHARED, 'data', 'bulldozers');
  log('importing the shared sales (as a first start does)');
  await importFastIronSales(ctx.database.db, path.join(dir, 'Train_first10931rows.csv.gz'));
  await importFastIronSales(ctx.database.db, path.join(dir, 'Valid.csv.gz'), await readSalePrices(path.join(dir, 'ValidSolution_2012-01_to_02.csv')));
  const west = path.join(SHARED, 'data', 'westauction_lots', 'westauction_lots.csv.gz');
  if (existsSync(west)) await importWestAuctionSales(ctx.database.db, west);
}

async function main(): Promise<void> {
  const pg = await startEmbeddedPostgres({ dataDir: args.dir! });
  // Queue tables in a schema of their own per run: the job ids of a previous run's rescore (same
  // model version) would otherwise be recognised as done.
  const queueSchema = `bench_score_${process.pid}`;
  let ctx: AppContext | undefined;
  try {
    await runMigrations(pg.url);
    const config = { ...parseConfig({ NODE_ENV: 'development', LOG_LEVEL: 'warn', DATABASE_URL: pg.url, SHARED_DIR: SHARED }), VALUATION_BOOTSTRAP: false };
    const logger = createLogger(config, 'bench-score');
    ctx = {
      config,
      logger,
      database: connectDatabase(pg.url, { max: 6 }),
      queues: new QueueRuntime({ kind: 'postgres', url: pg.url }, logger, { prefix: queueSchema, poolMax: 4 }),
    };
    await importSharedSales(ctx);
    const { sales } = await one<{ sales: number }>(ctx, sql`SELECT count(*)::int AS sales FROM sold_results`);

    let training: { version: number; rows: number; wall: number; cpu: number | null } | null = null;
    if (!args['no-train'] || !(await latestModelVersion(ctx.database.db))) {
      log(`training on all ${sales} shared sales (the product's training, in its thread)`);
      const started = Date.now();
      const info = await trainAndStoreModel(ctx.database.db, {}, undefined, (m) => log(`  [${((Date.now() - started) / 1000).toFixed(0)} s] ${m}`));
      training = { version: info.version, rows: info.trainingRows, wall: info.trainingSeconds, cpu: typeof info.metrics.cpuSeconds === 'number' ? info.metrics.cpuSeconds : null };
    }
    const model = (await latestModelVersion(ctx.database.db))!;

    const benchListings = async () =>
      (await one<{ n: number }>(ctx!, sql`SELECT count(*)::int AS n FROM listings l JOIN sources s ON s.id = l.source_id WHERE s.name = ANY(${`{${BENCH_SOURCES.map((s) => s.name).join(',')}}`}::text[])`)).n;
    if (args.reseed || (await benchListings()) !== COUNT) {
      const client = openSql(pg.url, { max: 2, onnotice: () => {} });
      try {
        await seedListings(client, { count: COUNT, sharedDir: SHARED, log });
      } finally {
        await client.end();
      }
    }
    const { total } = await one<{ total: number }>(ctx, sql`SELECT count(*)::int AS total FROM listings WHERE status IN ('open', 'closed', 'sold')`);
    await ctx.database.db.execute(sql`VACUUM ANALYZE listings`);

    log(`rescoring ${total} listings with model version ${model.version} through score-batch jobs and the scorer`);
    const scorer = await startScorer(ctx);
    const cpu0 = process.cpuUsage();
    const pgCpu0 = treeCpuSeconds(pg.child.pid!);
    const started = new Date();
    const t0 = performance.now();
    const queued = await enqueueRescoreAll(ctx, model.version);
    const enqueueSeconds = (performance.now() - t0) / 1000;
    let done = 0;
    for (;;) {
      done = (await one<{ n: number }>(ctx, sql`SELECT count(*)::int AS n FROM listings WHERE scored_at >= ${started.toISOString()}::timestamptz`)).n;
      const failed = await ctx.queues.queue('scoreBatch').getFailedCount();
      if (failed > 0) throw new Error(`${failed} score-batch jobs failed`);
      if (done >= total) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const pgCpu = treeCpuSeconds(pg.child.pid!) - pgCpu0;
    await scorer.stop();
    const valued = await one<Row>(ctx, sql`SELECT count(*) FILTER (WHERE fair_value IS NOT NULL)::int AS valued, count(*) FILTER (WHERE deal_score IS NOT NULL)::int AS scored FROM listings`);
    const matchJobs = await ctx.queues.queue('match').count();

    const rate = total / seconds;
    const result = {
      bench: 'score',
      date: new Date().toISOString(),
      load: os.loadavg().map((v) => Number(v.toFixed(2))),
      cores: os.cpus().length,
      listings: total,
      queued,
      rescore_seconds: Number(seconds.toFixed(2)),
      listings_per_second: Math.round(rate),
      enqueue_seconds: Number(enqueueSeconds.toFixed(2)),
      scorer_cpu_seconds: Number(((cpu.user + cpu.system) / 1e6).toFixed(2)),
      postgres_cpu_seconds: Number(pgCpu.toFixed(2)),
      // what two free cores would allow: the scorer's JavaScript runs on one core, PostgreSQL beside it
      cpu_bound_listings_per_second: Math.round(total / Math.max((cpu.user + cpu.system) / 1e6, ((cpu.user + cpu.system) / 1e6 + pgCpu) / 2)),
      minutes_per_million: Number((1e6 / rate / 60).toFixed(1)),
      valued_share: Number((Number(valued.valued) / total).toFixed(3)),
      scored_share: Number((Number(valued.scored) / total).toFixed(3)),
      match_jobs: matchJobs,
      training_sales: sales,
      training_rows: training?.rows ?? null,
      training_seconds_wall: training ? Number(training.wall.toFixed(1)) : null,
      training_seconds_cpu: training?.cpu !== null && training?.cpu !== undefined ? Number(training.cpu.toFixed(1)) : null,
      model_version: model.version,
    };
    process.stdout.write(`bench:score — ${result.date.slice(0, 16)}Z, load ${result.load.join(' ')}, ${result.cores} cores, node ${process.version}\n`);
    console.table([
      { figure: 'training on all shared sales', value: training ? `${training.rows} sales, ${result.training_seconds_wall} s wall, ${result.training_seconds_cpu ?? '?'} s CPU` : `skipped (--no-train), model v${model.version}` },
      { figure: 'listings rescored (with database writes)', value: `${total} in ${result.rescore_seconds} s` },
      { figure: 'rescore throughput', value: `${result.listings_per_second} listings/s (1M in ${result.minutes_per_million} min)` },
      { figure: 'of which queueing the batches', value: `${result.enqueue_seconds} s` },
      { figure: 'CPU: scorer process / PostgreSQL', value: `${result.scorer_cpu_seconds} s / ${result.postgres_cpu_seconds} s` },
      { figure: 'throughput the CPU time allows on 2 free cores', value: `${result.cpu_bound_listings_per_second} listings/s` },
      { figure: 'valued / scored', value: `${(result.valued_share * 100).toFixed(1)}% / ${(result.scored_share * 100).toFixed(1)}%` },
      { figure: 'match jobs queued (live listings)', value: String(matchJobs) },
    ]);
    if (args.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    if (ctx) {
      await ctx.queues.close();
      await ctx.database.db.execute(sql.raw(`DROP SCHEMA IF EXISTS "${queueSchema}" CASCADE`)).catch(() => {});
      await ctx.database.close();
    }
    await pg.stop();
  }
}

await main();
