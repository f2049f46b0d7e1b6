/**
 * `npm run bench:api -- [--count 1000000] [--dir .data/bench-api] [--duration 8] [--connections 32]`
 *
 * The Listings API under load at a million listings. Starts its own embedded PostgreSQL under
 * --dir (kept, so the seeded rows are reused by the next run; --reseed forces a new seed), seeds
 * --count benchmark listings (scripts/seed-listings.ts; synthetic scores), starts the real API as a
 * child process on a free loopback port, and drives it with autocannon: one run per query shape,
 * each request of a shape varying its parameters (categories, states, words, pages). Prints
 * p50/p95/p99 latency, requests/s and CPU per request (API process, PostgreSQL) per shape,
 * `/api/health/` as the framework's ceiling in the same run; then, the API stopped, the in-memory
 * index's own count and page times per shape and the EXPLAIN (ANALYZE) plans of the queries
 * PostgreSQL still runs per request. Talks only to 127.0.0.1.
 *
 * Under real conditions too (issue #20): the API is started twice — the second start restores the
 * listing index from the snapshot the first one wrote, and start-to-ready (spawn → `/api/health/`
 * 200, lists answered) is timed; every list shape is then driven again while a writer changes
 * 200 listings/s through the real write paths (the crawl store's lot updates and the scorer's
 * score writes), and freshness probes time how long a writer's change takes to show in list
 * answers (a new top price, at the top of price_high). The index's memory is measured in this
 * process, restored as a starting API process restores it. `--json` ends the output with one JSON
 * line (health_rps, ready_seconds, index_rss_mib, freshness_seconds, shapes, mixed_shapes).
 *
 * Also: --only <part,part…> (shapes whose name contains a part), --skip-plans, --skip-mixed,
 * --write-rate <listings/s> (200), --cpu-prof <dir> (a V8 CPU profile of the API child, written
 * when it exits).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { openSql } from '../../services/shared/database/connection-url.js';
import { loadConfig } from '../../services/shared/config.js';
import { connectDatabase } from '../../services/shared/database/db.js';
import { freePort } from '../../services/shared/database/embedded-postgres.js';
import { toListRequest } from '../../services/listings/listing-rules.js';
import { listQuerySchema } from '../../services/listings/listing-schemas.js';
import { cardsByIdsQuery, searchCorrectionsQuery } from '../../services/shared/repositories/listings-repository.js';
import { changesSinceQuery, parseSnapshot } from '../../services/shared/repositories/listing-index-repository.js';
import { ListingIndexSync } from '../../services/listings/listing-index-sync.js';
import { ListingIndex } from '../../services/listings/listing-index/index.js';
import { readIndexSnapshot } from '../../services/listings/listing-index-snapshot-file.js';
import { ListingsQuery } from '../../services/listings/listings-query.js';
import { prepareBenchDatabase, startApiChild, startWriter, stopApiChild, waitForHealth, writableLots, writeBid, type WritableLot } from './bench-api-setup.js';
import { restoreIndexMeasured } from './bench-index.js';
import { percentile } from './bench-setup.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const { values: args } = parseArgs({
  options: {
    count: { type: 'string', default: '1000000' },
    dir: { type: 'string', default: path.join(ROOT, '.data/bench-api') },
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '32' },
    reseed: { type: 'boolean', default: false },
    only: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'skip-plans': { type: 'boolean', default: false },
    'plans-out': { type: 'string' },
    'skip-mixed': { type: 'boolean', default: false },
    'write-rate': { type: 'string', default: '200' },
    json: { type: 'boolean', default: false },
    // Internal: this script re-run as a child (the writer, or the memory measurement), so neither
    // shares an event loop with autocannon (whose latencies would include the writer's work).
    role: { type: 'string' },
    'pg-url': { type: 'string' },
    base: { type: 'string' },
    snapshot: { type: 'string' },
  },
});
const WRITE_RATE = Number(args['write-rate']);
const COUNT = Number(args.count);
const SHARED_BUFFERS = '2GB';
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);

let seq = 0;
/** The seeded ids, for the detail shape. */
const idRange = { min: 1, max: 1 };
const pickOf = <T>(items: readonly T[]) => () => items[seq++ % items.length]!;

const STATES = ['TX', 'CA', 'Florida', 'ia', 'Ohio', 'GA', 'co', 'Washington', 'NV', 'PA'];
const CITIES = ['Houston', 'Denver', 'Des Moines', 'Phoenix', 'Tampa', 'Reno', 'Sacramento', 'Omaha'];
const BROAD_WORDS = ['caterpillar', 'excavator', 'deere', 'komatsu', 'loader', 'bobcat', 'dozer', 'volvo'];
const TYPOS = ['deere 310sj', 'catterpillar 320', 'komatsue pc200', 'bobcatt s650', 'cat d6', 'john deere 450', 'volvoo l90', 'hitachy zx200'];
/** Model-specific searches, as a buyer types them: relevance ranks every match, so few matches. */
const SPECIFIC = ['deere 310sj', 'komatsu pc200', 'bobcat s650', 'hitachi zx200', 'volvo l90', 'case 580', 'caterpillar 420d', 'deere 544'];

/** A query shape: a name and a generator of request paths (each call may vary the parameters). */
type Shape = { name: string; path: () => string; explain?: string };
const L = '/api/auctions/list/';
const cat = pickOf([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
const state = pickOf(STATES);
const city = pickOf(CITIES);
const broad = pickOf(BROAD_WORDS);
const specific = pickOf(SPECIFIC);
const typos = pickOf(TYPOS);
const firstPages = pickOf([1, 2, 3, 4, 5]);
const deep = pickOf([100, 250, 500, 750, 1000]);
const minPrices = pickOf([5000, 20000, 50000, 100000]);
/** Buyers' ZIP codes across the country (Des Moines, Dallas, Sacramento, Atlanta, Denver, Harrisburg, Fargo, Boise). */
const nearZips = pickOf(['50309', '75201', '95814', '30303', '80202', '17101', '58102', '83702']);
const maxPrices = pickOf([10000, 25000, 40000, 80000]);
const maxDelivered = pickOf([15000, 40000, 80000]);

const SHAPES: Shape[] = [
  { name: 'no filter (default sort)', path: () => `${L}?page=${firstPages()}`, explain: '' },
  { name: 'category', path: () => `${L}?category=${cat()}`, explain: 'category=1' },
  { name: 'min_price', path: () => `${L}?min_price=${minPrices()}`, explain: 'min_price=50000' },
  { name: 'max_price', path: () => `${L}?max_price=${maxPrices()}`, explain: 'max_price=10000' },
  { name: 'location (state)', path: () => `${L}?location=${encodeURIComponent(state())}`, explain: 'location=TX' },
  { name: 'location (city)', path: () => `${L}?location=${encodeURIComponent(city())}`, explain: 'location=Denver' },
  { name: 'category+price+state', path: () => `${L}?category=${cat()}&min_price=${minPrices()}&max_price=${500000}&location=${state()}`, explain: 'category=3&min_price=20000&max_price=500000&location=TX' },
  { name: 'search, one word', path: () => `${L}?search=${broad()}`, explain: 'search=excavator' },
  { name: 'search, make+model with typos', path: () => `${L}?search=${encodeURIComponent(typos())}`, explain: 'search=catterpillar%20320' },
  { name: 'search, relevance order', path: () => `${L}?search=${encodeURIComponent(specific())}&sort_by=relevance`, explain: 'search=deere%20310sj&sort_by=relevance' },
  { name: 'search + sort price_low', path: () => `${L}?search=${broad()}&sort_by=price_low`, explain: 'search=caterpillar&sort_by=price_low' },
  { name: 'sort deal_score_low', path: () => `${L}?sort_by=deal_score_low&page=${firstPages()}`, explain: 'sort_by=deal_score_low' },
  { name: 'sort price_low', path: () => `${L}?sort_by=price_low&page=${firstPages()}`, explain: 'sort_by=price_low' },
  { name: 'sort price_high', path: () => `${L}?sort_by=price_high&page=${firstPages()}`, explain: 'sort_by=price_high' },
  { name: 'deep pages (100–1000)', path: () => `${L}?page=${deep()}`, explain: 'page=1000' },
  { name: 'category, deep page', path: () => `${L}?category=${cat()}&page=${deep()}`, explain: 'category=1&page=1000' },
  // Pages no request asked for before (1–60,000 at random): their cards are not in memory, so every
  // request reads its 15 cards from PostgreSQL — the card cache's miss path under load.
  { name: 'near, radius 300 mi', path: () => `${L}?near=${nearZips()}&radius_miles=300&page=${firstPages()}`, explain: 'near=50309&radius_miles=300' },
  { name: 'near, sort distance', path: () => `${L}?near=${nearZips()}&sort_by=distance&page=${firstPages()}`, explain: 'near=50309&sort_by=distance' },
  // The price delivered (issue 30): a haul per candidate, from its place and weight class.
  { name: 'near, max delivered', path: () => `${L}?near=${nearZips()}&max_delivered=${maxDelivered()}&page=${firstPages()}`, explain: 'near=50309&max_delivered=40000' },
  { name: 'near, worth the trip', path: () => `${L}?near=${nearZips()}&worth_the_trip=true&page=${firstPages()}`, explain: 'near=50309&worth_the_trip=true' },
  { name: 'near, sort delivered', path: () => `${L}?near=${nearZips()}&sort_by=delivered&page=${firstPages()}`, explain: 'near=50309&sort_by=delivered' },
  { name: 'random page (cards not in memory)', path: () => `${L}?page=${1 + ((seq++ * 2654435761) >>> 0) % 60_000}`, explain: 'page=31337' },
  { name: 'detail', path: () => `/api/auctions/detail/${idRange.min + ((seq++ * 7919) % (idRange.max - idRange.min + 1))}/` },
  { name: 'health (framework ceiling)', path: () => '/api/health/' },
];

type ShapeResult = {
  name: string;
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
  /** CPU milliseconds per request spent by the API process and by PostgreSQL (Linux /proc), or NaN. */
  apiCpuMs?: number;
  pgCpuMs?: number;
};

/**
 * CPU time (ms) used so far by a process; with `children`, also by its live children and the ones
 * it has reaped (PostgreSQL: the postmaster's backends and parallel workers). Latency on a shared
 * machine mostly measures the queue for a core; CPU per request measures what a request costs.
 */
function cpuMs(pid: number | undefined, children = false): number {
  if (!pid) return NaN;
  const ticks = 100; // USER_HZ on Linux
  const stat = (p: number | string) => {
    try {
      const text = readFileSync(`/proc/${p}/stat`, 'utf8');
      return text.slice(text.lastIndexOf(')') + 2).split(' ');
    } catch {
      return undefined;
    }
  };
  const own = stat(pid);
  if (!own) return NaN;
  // Fields after the command: [1] ppid, [11] utime, [12] stime, [13] cutime, [14] cstime.
  let total = Number(own[11]) + Number(own[12]);
  if (children) {
    total += Number(own[13]) + Number(own[14]);
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const fields = stat(entry);
      if (fields && Number(fields[1]) === pid) total += Number(fields[11]) + Number(fields[12]);
    }
  }
  return (total * 1000) / ticks;
}

function postmasterPid(dir: string): number | undefined {
  try {
    return Number(readFileSync(path.join(dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined;
  } catch {
    return undefined;
  }
}

async function drive(base: string, shape: Shape, seconds: number, record: boolean): Promise<ShapeResult> {
  const latencies: number[] = [];
  let errors = 0;
  let done!: (r: autocannon.Result) => void;
  let failed!: (e: unknown) => void;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    done = resolve;
    failed = reject;
  });
  const instance = autocannon(
    {
      url: base,
      connections: CONNECTIONS,
      duration: seconds,
      requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: shape.path() }) }],
    },
    (err, r) => (err ? failed(err) : done(r)),
  );
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (!record) return;
    latencies.push(responseTime);
    if (statusCode !== 200) errors++;
  });
  const result = await finished;
  latencies.sort((a, b) => a - b);
  return {
    name: shape.name,
    requests: latencies.length,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    errors: errors + result.errors + result.timeouts,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resident memory of a process (MiB), from /proc. */
function rssMiB(pid: number | undefined): number {
  try {
    const line = readFileSync(`/proc/${pid ?? 'self'}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return line ? Number(line[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * Until stopped: a lot gets a bid above every price (the clock in tenths of a second), and the
 * time until the list route shows it first in price_high, with that price, is recorded (s).
 */
function startFreshnessProbes(base: string, url: string, lots: WritableLot[]) {
  const database = connectDatabase(url, { max: 2 });
  const seconds: number[] = [];
  let stopped = false;
  let missed = 0;
  const loop = (async () => {
    for (let n = 0; !stopped; n++) {
      const lot = lots[lots.length - 1 - (n % Math.min(500, lots.length))]!;
      const bid = Math.floor(Date.now() / 100);
      await writeBid(database.db, lot, bid, 1);
      const committed = performance.now();
      for (;;) {
        const res = await fetch(`${base}${L}?sort_by=price_high`);
        const top = res.ok ? ((await res.json()) as { data: { items: Array<{ id: number; price: number | null }> } }).data.items[0] : undefined;
        const waited = (performance.now() - committed) / 1000;
        if (top?.id === lot.id && Number(top.price) === bid) {
          seconds.push(waited);
          break;
        }
        if (waited > 10) {
          missed++;
          seconds.push(waited);
          break;
        }
        await sleep(20);
      }
      await sleep(1000);
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await database.close();
      return { seconds: [...seconds].sort((a, b) => a - b), missed };
    },
  };
}

/**
 * The index's memory, measured as an API process starting from the snapshot builds it: RSS of
 * this process before and after restoring (bench-index.ts, the one measured restore of both benches).
 */
async function indexMemory(snapshotFile: string): Promise<{ rssMiB: number; listings: number; restoreSeconds: number } | null> {
  const restored = await restoreIndexMeasured(snapshotFile);
  return restored && { rssMiB: restored.memory.rss_mib, listings: restored.memory.listings, restoreSeconds: restored.memory.restore_seconds };
}

/** Runs this script again as a child in `role`; resolves with the JSON line it prints when it ends. */
function runChild<T>(role: string, extra: string[]): { stop(): Promise<T>; done: Promise<T> } {
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--role', role, ...extra], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const done = new Promise<T>((resolve, reject) => {
    child.once('exit', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(last) as T);
      } catch {
        reject(new Error(`bench child ${role} exited with ${code}: ${out.slice(-500)}`));
      }
    });
  });
  // A child that fails early is reported where it is awaited (stop), not as an unhandled
  // rejection that would end the bench at once and leave the API and PostgreSQL running.
  done.catch(() => {});
  return {
    done,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return done;
    },
  };
}

/** `--role writer`: the writer and the freshness probes until SIGTERM, then their figures as one JSON line. */
async function writerRole(): Promise<void> {
  const url = args['pg-url']!;
  const sql = openSql(url, { max: 1, onnotice: () => {} });
  const lots = await writableLots(sql, 20_000);
  await sql.end({ timeout: 5 });
  const writer = startWriter(url, lots.slice(0, Math.max(1, lots.length - 500)), WRITE_RATE);
  const probes = startFreshnessProbes(args.base!, url, lots);
  await new Promise((resolve) => process.once('SIGTERM', resolve));
  const writes = await writer.stop();
  const freshness = await probes.stop();
  process.stdout.write(`${JSON.stringify({ writes, freshness })}\n`);
}

/** `--role memory`: a fresh process restores the index from the snapshot and reports its RSS. */
async function memoryRole(): Promise<void> {
  process.stdout.write(`${JSON.stringify(await indexMemory(args.snapshot!))}\n`);
}

/**
 * The list route's work outside HTTP, at this size: the index's load time and memory, then per
 * shape the index's count and page times (median of repeated runs, one core), and the EXPLAIN
 * (ANALYZE) plans of the queries PostgreSQL still runs per request (the sync, the cards by id,
 * the typo corrections).
 */
async function indexFigures(url: string, snapshotPath: string, log: (line: string) => void): Promise<{ plans: string; summary: string }> {
  const database = connectDatabase(url, { max: 2 });
  const sync = new ListingIndexSync({ client: database.sql, db: database.db, snapshotPath });
  const out: string[] = [];
  const summary = ['| shape | variants | count µs (median / worst variant) | page µs (median / worst variant) |', '|---|---:|---:|---:|'];
  try {
    const memoryBefore = process.memoryUsage();
    const loadStarted = performance.now();
    const index = await sync.fresh();
    const loadMs = performance.now() - loadStarted;
    global.gc?.();
    const memoryAfter = process.memoryUsage();
    const stats = index.stats();
    const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
    log(
      `index: ${stats.live.toLocaleString('en-US')} listings, ${stats.terms.toLocaleString('en-US')} terms, loaded in ${(loadMs / 1000).toFixed(1)} s; ` +
        `RSS +${mib(memoryAfter.rss - memoryBefore.rss)} MiB (typed arrays ≈ ${mib(stats.approxBytes)} MiB)`,
    );
    const query = new ListingsQuery({ db: database.db, index: sync, cacheTtlMs: 0 });
    const median = (run: () => void) => {
      const times: number[] = [];
      for (let i = 0; i < 41; i++) {
        const t = performance.now();
        run();
        times.push(performance.now() - t);
      }
      return times.sort((a, b) => a - b)[20]! * 1000;
    };
    const now = Date.now();
    for (const shape of SHAPES) {
      if (shape.explain === undefined) continue;
      // The variants the load run sent (each call of path() varies the parameters).
      const variants = [...new Set(Array.from({ length: 24 }, () => shape.path().split('?')[1] ?? ''))];
      const counts: number[] = [];
      const pages: number[] = [];
      for (const variant of variants) {
        const request = toListRequest(listQuerySchema.parse(Object.fromEntries(new URLSearchParams(variant))));
        const filter = await query.indexFilterOf(request.filter);
        const total = index.count(filter, now);
        const offset = (request.page - 1) * request.pageSize;
        counts.push(median(() => index.count(filter, now)));
        pages.push(median(() => index.page(filter, request.sort, offset, request.pageSize, now, total)));
      }
      const mid = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      summary.push(
        `| ${shape.name} | ${variants.length} | ${mid(counts).toFixed(0)} / ${Math.max(...counts).toFixed(0)} | ${mid(pages).toFixed(0)} / ${Math.max(...pages).toFixed(0)} |`,
      );
    }
    const pageIds = index.page({ groups: [] }, 'deal_score_high', 0, 15, now);
    const dialect = new PgDialect({ casing: 'snake_case' });
    const [{ snapshot } = { snapshot: '' }] = await database.sql<Array<{ snapshot: string }>>`SELECT pg_current_snapshot()::text AS snapshot`;
    const queries: Array<[string, SQL | undefined]> = [
      ['sync: changes since the last snapshot', changesSinceQuery(parseSnapshot(snapshot), 50_000)],
      ['page: the 15 cards by id', cardsByIdsQuery(pageIds)],
      ['search: typo corrections for "catterpillar 320"', searchCorrectionsQuery(['catterpillar', '320'])],
    ];
    for (const [label, built] of queries) {
      if (!built) continue;
      const q = dialect.sqlToQuery(built);
      const rows = await database.sql.unsafe(`EXPLAIN (ANALYZE, COSTS OFF, SUMMARY ON) ${q.sql}`, q.params as never[]);
      out.push(`### ${label}\n\n\`\`\`\n${rows.map((r) => String((r as Record<string, unknown>)['QUERY PLAN'])).join('\n')}\n\`\`\`\n`);
    }
  } finally {
    await sync.close();
    await database.close();
  }
  return { plans: out.join('\n'), summary: summary.join('\n') };
}

async function main(): Promise<void> {
  const config = loadConfig();
  const dir = path.resolve(args.dir!);
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const log = (line: string) => process.stdout.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
  const { pg, idRange: range } = await prepareBenchDatabase({ dir, count: COUNT, reseed: args.reseed!, sharedBuffers: SHARED_BUFFERS, sharedDir: config.SHARED_DIR, log });
  Object.assign(idRange, range);
  let api: ChildProcess | undefined;
  try {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // --cpu-prof <dir>: the API child writes a V8 CPU profile there when it exits (for finding per-request costs).
    const profiling = args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(args['cpu-prof'])}`] : [];
    const snapshotFile = path.join(dir, 'listing-index.snapshot');
    const startApi = () => startApiChild({ port, databaseUrl: pg.url, dataDir: dir, snapshotFile, nodeArgs: profiling });
    // First start: from the snapshot a previous run left, else from PostgreSQL (which writes one).
    let spawned = performance.now();
    api = startApi();
    await waitForHealth(base, api);
    const firstReady = (performance.now() - spawned) / 1000;
    log(`first start: ready (health 200) after ${firstReady.toFixed(1)} s${existsSync(snapshotFile) ? '' : ' (no snapshot yet: loaded from PostgreSQL)'}`);
    // A start restored from an older snapshot writes its next one with its first changes, up to
    // two minutes (the API's snapshot interval) and the write later.
    for (const deadline = Date.now() + 200_000; !(existsSync(snapshotFile) && Date.now() - statSync(snapshotFile).mtimeMs < 240_000); ) {
      if (Date.now() > deadline) throw new Error(`no recent index snapshot at ${snapshotFile}`);
      await sleep(250);
    }
    // Second start, timed: what a restart, a deploy or a new replica waits for.
    await stopApiChild(api);
    spawned = performance.now();
    api = startApi();
    const { listeningAt } = await waitForHealth(base, api);
    const readySeconds = (performance.now() - spawned) / 1000;
    const listeningSeconds = (listeningAt - spawned) / 1000;
    const first = await fetch(`${base}${L}`, { signal: AbortSignal.timeout(60_000) });
    if (!first.ok) throw new Error(`first list request: ${first.status} ${await first.text()}`);
    const firstList = (performance.now() - spawned) / 1000;
    const apiRssReady = rssMiB(api.pid);
    log(`restart: answering (503 starting) after ${listeningSeconds.toFixed(1)} s, ready after ${readySeconds.toFixed(1)} s, first list answered after ${firstList.toFixed(1)} s (index restored from ${snapshotFile}); API RSS ${apiRssReady.toFixed(0)} MiB`);
    // Settle (garbage from the start, cold code) before the first measured shape.
    await drive(base, SHAPES[0]!, 5, false);
    log(`API (child pid ${api.pid}) on ${base}; ${CONNECTIONS} connections, ${DURATION} s per shape after a 2 s warm-up`);

    const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' / ');
    log(`machine: ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB; load average before the run ${load()}`);
    const selected = SHAPES.filter((shape) => !args.only || args.only.split(',').some((part) => shape.name.includes(part)));
    const runShapes = async (label: string) => {
      const out: ShapeResult[] = [];
      for (const shape of selected) {
        await drive(base, shape, 2, false);
        const pgPid = postmasterPid(dir);
        const before = { api: cpuMs(api!.pid), pg: cpuMs(pgPid, true) };
        const r = await drive(base, shape, DURATION, true);
        r.apiCpuMs = (cpuMs(api!.pid) - before.api) / r.requests;
        r.pgCpuMs = (cpuMs(pgPid, true) - before.pg) / r.requests;
        out.push(r);
        log(
          `${label}${r.name}: p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, ${r.rps.toFixed(0)} req/s, ${r.errors} errors; ` +
            `CPU per request: API ${r.apiCpuMs.toFixed(2)} ms, PostgreSQL ${r.pgCpuMs.toFixed(2)} ms`,
        );
      }
      return out;
    };
    const table = (rows: ShapeResult[]) =>
      [
        '| shape | p50 ms | p95 ms | p99 ms | req/s | non-200 | API CPU ms/req | PG CPU ms/req |',
        '|---|---:|---:|---:|---:|---:|---:|---:|',
        ...rows.map(
          (r) =>
            `| ${r.name} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.rps.toFixed(0)} | ${r.errors} | ${r.apiCpuMs?.toFixed(2) ?? '?'} | ${r.pgCpuMs?.toFixed(2) ?? '?'} |`,
        ),
      ].join('\n');
    const isList = (r: ShapeResult) => !r.name.startsWith('health') && r.name !== 'detail';

    const results = await runShapes('');
    const health = results.find((r) => r.name.startsWith('health'));
    const lists = results.filter(isList);
    process.stdout.write(`\nNo writes:\n\n${table(results)}\n\nload average after the run (1/5/15 min): ${load()}\n`);
    if (health && lists.length > 0) {
      const listRps = lists.reduce((s, r) => s + r.rps, 0) / lists.length;
      const worstP95 = Math.max(...lists.map((r) => r.p95));
      process.stdout.write(
        `list shapes: mean ${listRps.toFixed(0)} req/s = ${((100 * listRps) / health.rps).toFixed(0)}% of health's ${health.rps.toFixed(0)} req/s ` +
          `(target ≥ 25%); worst p95 ${worstP95.toFixed(1)} ms (target ≤ 50 ms)\n` +
          `targets: ${worstP95 <= 50 && listRps >= 0.25 * health.rps ? 'MET' : 'NOT MET'}\n\n`,
      );
    }

    // The same shapes while crawls and rescores write (issue #20).
    let mixed: ShapeResult[] = [];
    let freshness: { seconds: number[]; missed: number } = { seconds: [], missed: 0 };
    let writes = { written: 0, failed: 0, seconds: 0 };
    if (!args['skip-mixed']) {
      type WriterFigures = { writes: typeof writes; freshness: typeof freshness };
      const writer = runChild<WriterFigures>('writer', ['--pg-url', pg.url, '--base', base, '--write-rate', String(WRITE_RATE)]);
      log(`mixed run: a writer process changes ${WRITE_RATE} listings/s (crawl lot updates and score writes); freshness probed about once a second`);
      try {
        await sleep(3000); // the writer reaches its pace
        mixed = await runShapes('[writes] ');
      } finally {
        ({ writes, freshness } = await writer.stop());
      }
      const achieved = writes.written / writes.seconds;
      process.stdout.write(
        `\nWhile writing (${achieved.toFixed(0)} listings/s achieved, ${writes.failed} failed writes):\n\n${table(mixed)}\n\nload average after the mixed run: ${load()}\n`,
      );
      const mixedLists = mixed.filter(isList);
      const p95 = percentile(freshness.seconds, 95);
      if (mixedLists.length > 0) {
        const worstP95 = Math.max(...mixedLists.map((r) => r.p95));
        const worstP99 = Math.max(...mixedLists.map((r) => r.p99));
        process.stdout.write(
          `list shapes under writes: worst p95 ${worstP95.toFixed(1)} ms (target ≤ 50), worst p99 ${worstP99.toFixed(1)} ms (target ≤ 100); ` +
            `freshness p50 ${percentile(freshness.seconds, 50).toFixed(2)} s, p95 ${p95.toFixed(2)} s over ${freshness.seconds.length} probes, ${freshness.missed} over 10 s (target p95 ≤ 2 s)\n` +
            `targets under writes: ${worstP95 <= 50 && worstP99 <= 100 && p95 <= 2 && achieved >= 0.95 * WRITE_RATE ? 'MET' : 'NOT MET'}\n\n`,
        );
      }
    }
    const apiRssEnd = rssMiB(api.pid);
    // Stop the API first so the index's memory, its own timings and the plans are measured on a quiet machine.
    await stopApiChild(api);
    const memory = await runChild<Awaited<ReturnType<typeof indexMemory>>>('memory', ['--snapshot', snapshotFile]).done;
    if (memory) {
      log(
        `index memory: ${memory.listings.toLocaleString('en-US')} listings restored in ${memory.restoreSeconds.toFixed(1)} s, RSS +${memory.rssMiB.toFixed(0)} MiB ` +
          `(target ≤ 300); the API process: ${apiRssReady.toFixed(0)} MiB RSS when ready, ${apiRssEnd.toFixed(0)} MiB after the runs`,
      );
    }
    if (!args['skip-plans']) {
      const { plans, summary } = await indexFigures(pg.url, snapshotFile, log);
      process.stdout.write(`\nThe index alone, in this process, no load (median of 41 runs):\n\n${summary}\n\n`);
      const plansOut = args['plans-out'] ? path.resolve(args['plans-out']) : path.join(dir, 'plans.md');
      writeFileSync(plansOut, plans);
      log(`query plans (EXPLAIN ANALYZE) written to ${plansOut}`);
    }
    if (args.json) {
      const figures = (rows: ShapeResult[]) =>
        Object.fromEntries(rows.map((r) => [r.name, { p50_ms: r.p50, p95_ms: r.p95, p99_ms: r.p99, rps: r.rps, errors: r.errors }]));
      const json = {
        date: new Date().toISOString(),
        count: COUNT,
        load_average: os.loadavg(),
        health_rps: health?.rps ?? null,
        ready_seconds: readySeconds,
        listening_seconds: listeningSeconds,
        first_start_seconds: firstReady,
        index_rss_mib: memory?.rssMiB ?? null,
        freshness_seconds: freshness.seconds.length > 0 ? percentile(freshness.seconds, 95) : null,
        writes_per_second: writes.seconds > 0 ? writes.written / writes.seconds : null,
        shapes: figures(results),
        mixed_shapes: figures(mixed),
      };
      process.stdout.write(`${JSON.stringify(json)}\n`);
    }
  } finally {
    if (api) {
      if (api.exitCode === null) api.kill('SIGTERM');
      if (api.exitCode === null) await new Promise((r) => api!.once('exit', r));
    }
    await pg.stop();
  }
}

if (args.role === 'writer') await writerRole();
else if (args.role === 'memory') await memoryRole();
else await main();
