/**
 * What `bench:api` (bench-api.ts) stands on before it measures anything: its own embedded
 * PostgreSQL under --dir with the shared_buffers a production server would get, migrated and
 * seeded with the benchmark listings (reused when the count matches); the real API started as a
 * child process on a loopback port and waited for; and the writer that changes listings through
 * the product's own write paths while the list shapes are driven again. Talks only to 127.0.0.1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { childEnvironment } from '../../services/shared/config.js';
import { fileURLToPath } from 'node:url';
import type postgres from 'postgres';
import { openSql } from '../../services/shared/database/connection-url.js';
import { connectDatabase, runMigrations } from '../../services/shared/database/db.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../services/shared/database/embedded-postgres.js';
import { applyLotUpdate } from '../../services/shared/repositories/listing-store-repository.js';
import { writeListingScore } from '../../services/shared/repositories/listing-scores-repository.js';
import { BENCH_SOURCES, seedListings } from '../seed-listings.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The bench's PostgreSQL under `dir` (kept between runs), with `sharedBuffers` (restarted once to
 * apply it), migrated, holding `count` benchmark listings (seeded again when the count differs or
 * `reseed`); the range of listing ids, for the detail shape. Stopped again if any step fails.
 */
export async function prepareBenchDatabase(opts: {
  dir: string;
  count: number;
  reseed: boolean;
  sharedBuffers: string;
  sharedDir: string;
  log: (line: string) => void;
}): Promise<{ pg: EmbeddedPostgres; idRange: { min: number; max: number } }> {
  const { dir, count, log } = opts;
  log(`embedded PostgreSQL under ${dir}`);
  let pg = await startEmbeddedPostgres({ dataDir: dir });
  // The embedded default (128 MB) caches a tenth of a million-listing table; give the bench's own
  // cluster what a production PostgreSQL on this 24 GiB machine would get. Printed, and in README.
  {
    const admin = openSql(pg.url, { max: 1, onnotice: () => {} });
    const [{ shared_buffers: current } = { shared_buffers: '' }] = await admin<Array<{ shared_buffers: string }>>`SHOW shared_buffers`;
    if (current !== opts.sharedBuffers) {
      await admin.unsafe(`ALTER SYSTEM SET shared_buffers = '${opts.sharedBuffers}'`);
      await admin.end();
      await pg.stop();
      pg = await startEmbeddedPostgres({ dataDir: dir });
    } else {
      await admin.end();
    }
    log(`PostgreSQL shared_buffers = ${opts.sharedBuffers} (was ${current})`);
  }
  try {
    await runMigrations(pg.url);
    const sql = openSql(pg.url, { max: 1, onnotice: () => {} });
    try {
      const [{ n } = { n: 0 }] = await sql<Array<{ n: number }>>`
        SELECT count(*)::int AS n FROM listings l JOIN sources s ON s.id = l.source_id WHERE s.name = ANY(${BENCH_SOURCES.map((s) => s.name)})`;
      if (n !== count || opts.reseed) {
        log(`seeding ${count.toLocaleString('en-US')} listings (found ${n.toLocaleString('en-US')})`);
        await seedListings(sql, { count, sharedDir: opts.sharedDir, log });
      } else {
        log(`reusing ${n.toLocaleString('en-US')} seeded listings`);
      }
      const [{ open } = { open: 0 }] = await sql<Array<{ open: number }>>`
        SELECT count(*)::int AS open FROM listings WHERE status = 'open' AND (auction_end_at IS NULL OR auction_end_at > now())`;
      log(`${open.toLocaleString('en-US')} listings are open (listed by default)`);
      const [range] = await sql<Array<{ min: number; max: number }>>`SELECT min(id)::int AS min, max(id)::int AS max FROM listings`;
      return { pg, idRange: range ?? { min: 1, max: 1 } };
    } finally {
      await sql.end({ timeout: 5 });
    }
  } catch (err) {
    await pg.stop();
    throw err;
  }
}

/** The real API as a child process (production mode, its own snapshot file, a fresh JWT secret). */
export function startApiChild(opts: { port: number; databaseUrl: string; dataDir: string; snapshotFile: string; nodeArgs: string[] }): ChildProcess {
  return spawn(process.execPath, [...opts.nodeArgs, '--import', 'tsx', path.join(ROOT, 'services/api/main.ts')], {
    cwd: ROOT,
    env: childEnvironment({
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(opts.port),
      DATABASE_URL: opts.databaseUrl,
      DATA_DIR: opts.dataDir,
      LISTINGS_INDEX_SNAPSHOT: opts.snapshotFile,
      JWT_SECRET: randomBytes(48).toString('base64url'),
      SERVICES: 'api',
    }),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

/** Asks the API child for its orderly stop and waits for it to exit. */
export async function stopApiChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

/** Until `/api/health/` answers 200: the API listens and its listing index is ready (503 `starting` before). */
/** Waits for `/api/health/` 200; returns when the process first answered it at all (a 503 `starting` while its index loads). */
export async function waitForHealth(base: string, child: ChildProcess): Promise<{ listeningAt: number }> {
  const deadline = Date.now() + 300_000;
  let listeningAt: number | null = null;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`API exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${base}/api/health/`);
      listeningAt ??= performance.now();
      if (res.ok) return { listeningAt };
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('API did not become healthy within 300 s');
}

/** A seeded open listing the writer may change, as the crawl store addresses it. */
export type WritableLot = { id: number; externalId: string; source: { id: number; name: string }; price: number };

export async function writableLots(sql: postgres.Sql, limit: number): Promise<WritableLot[]> {
  const rows = await sql<Array<{ id: number; external_id: string; source_id: number; source_name: string; price: number | null }>>`
    SELECT l.id, l.external_id, l.source_id, s.name AS source_name, l.price::float8 AS price
    FROM listings l JOIN sources s ON s.id = l.source_id
    WHERE l.status = 'open' AND l.auction_end_at > now() + interval '1 day' AND s.name = ANY(${BENCH_SOURCES.map((b) => b.name)})
    ORDER BY l.id LIMIT ${limit}`;
  return rows.map((r) => ({ id: r.id, externalId: r.external_id, source: { id: r.source_id, name: r.source_name }, price: r.price ?? 10_000 }));
}

/** One crawl lot update (a new bid: the listing's price and its place in the price orders move). */
export async function writeBid(db: ReturnType<typeof connectDatabase>['db'], lot: WritableLot, bid: number, bids: number): Promise<void> {
  await applyLotUpdate(db, lot.source, { lot: { externalId: lot.externalId, currentBid: bid, bidCount: bids }, pageUrl: 'http://127.0.0.1/bench/lot', fetchedAt: new Date() }, { bench: true });
}

/**
 * Changes `rate` listings a second until stopped, through the product's own write paths: half are
 * crawl lot updates (storeListing's merge: a new bid, a price observation), half score writes (the
 * scorer's writeListingScore: a new deal score). Paced by the clock, at most 16 writes in flight.
 */
export function startWriter(url: string, lots: WritableLot[], rate: number) {
  const database = connectDatabase(url, { max: 8 });
  const started = performance.now();
  let stopped = false;
  let written = 0;
  let failed = 0;
  let inFlight = 0;
  let k = 0;
  const one = async () => {
    const lot = lots[(k * 7919) % lots.length]!;
    k++;
    if (k % 2 === 0) await writeBid(database.db, lot, Math.max(500, Math.round(lot.price * (0.8 + ((k * 37) % 40) / 100))), 1 + (k % 40));
    else {
      await writeListingScore(database.db, lot.id, {
        dealScore: (k * 53) % 101,
        fairValue: lot.price * 1.2,
        valueLow: lot.price,
        valueHigh: lot.price * 1.4,
        valuationConfidence: 0.5,
        comparables: null,
        modelVersion: 1,
        scoredAt: new Date(),
        scoreReason: null,
        valuationAsOf: new Date().toISOString().slice(0, 10),
      });
    }
  };
  const loop = (async () => {
    while (!stopped) {
      const due = Math.floor(((performance.now() - started) / 1000) * rate) - (written + failed + inFlight);
      for (let i = 0; i < due && inFlight < 16; i++) {
        inFlight++;
        one()
          .then(() => written++, () => failed++)
          .finally(() => inFlight--);
      }
      await sleep(10);
    }
    while (inFlight > 0) await sleep(10);
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await database.close();
      return { written, failed, seconds: (performance.now() - started) / 1000 };
    },
  };
}
