/**
 * `npm run bench:crawl -- [--lots 10000] [--concurrency 8] [--parse-seconds 2]`
 *
 * 1. The whole crawl pipeline on --lots lots: the demo auction site on 127.0.0.1 (every lot
 *    listed, clock frozen) → HTTP fetch with robots.txt and shared per-host politeness → parse
 *    → normalise → idempotent upsert (listing, images, price observation, sold result) →
 *    scoring jobs enqueued, with one in-process crawl worker on the PostgreSQL queue backend, an
 *    embedded PostgreSQL of its own (temporary). Then the same crawl again (every lot unchanged).
 * 2. Parse-only pages per second per adapter: the demo adapter on the demo site's pages, and each
 *    real-site adapter on its recorded page under ../shared/fixtures/sites.
 * Prints the figures; talks only to 127.0.0.1.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { startDemoSite } from '../demo-site/demo-server.js';
import { detailPage, listPage } from '../demo-site/demo-pages.js';
import { adapterEnv, type FetchedPage, type SourceAdapter } from '../../services/crawler/adapter.js';
import { createRegistry } from '../../services/crawler/adapters/index.js';
import { requestCrawl, waitForRun } from '../../services/crawler/crawl-requests.js';
import { startCrawlWorker } from '../../services/crawler/index.js';
import { parseConfig } from '../../services/shared/config.js';
import type { AppContext } from '../../services/shared/context.js';
import { connectDatabase, runMigrations } from '../../services/shared/database/db.js';
import { startEmbeddedPostgres } from '../../services/shared/database/embedded-postgres.js';
import { createLogger } from '../../services/shared/logger.js';
import { QueueRuntime } from '../../services/shared/queues.js';

const { values: args } = parseArgs({
  options: {
    lots: { type: 'string', default: '10000' },
    concurrency: { type: 'string', default: '8' },
    'parse-seconds': { type: 'string', default: '2' },
    'shared-dir': { type: 'string', default: '../shared' },
  },
});
const LOTS = Number(args.lots);
const CONCURRENCY = Number(args.concurrency);
const PARSE_SECONDS = Number(args['parse-seconds']);
const SHARED = path.resolve(args['shared-dir']!);

/**
 * Recorded pages of the real-site adapters (issue 6), by source name: file and step label, and the
 * path the page was fetched from when it is not the adapter's start page. West Auctions' item
 * list is recorded lot by lot, so its page is the recorded lots of one auction put together;
 * Ritchie Bros.' sold records are recorded per subcategory, without the page envelope.
 */
const RECORDED: Record<string, { file: string; label: 'list' | 'detail'; path?: string; body?: (dir: string) => string }> = {
  gsaauctions: { file: 'gsaauctions/api-v2-auctions_Results_SELECTED-20-items_BlackWhole_discover_sample.json', label: 'list' },
  govdeals: { file: 'govdeals/api-search-list-page_assetSearchResults_BlackWhole_maestro_page.json', label: 'list' },
  purplewave: { file: 'purplewave/api-v1-search-search_sold-dateType-past_TRIMMED-6-items_BlackWhole_sold_sweep.json', label: 'list' },
  municibid: { file: 'municibid/search-results-active-chairs_TRIMMED_BlackWhole_discover_active_chairs.html', label: 'list' },
  bidspotter: { file: 'bidspotter/search-results-chairs_TRIMMED-3-cards_BlackWhole_bidspotter_search_chairs.html', label: 'list' },
  // the recording keeps each subcategory's records; a page is 60 of them in Next.js's envelope
  rbauction: {
    file: 'rbauction/nextdata-cp-sold-records_excavators_GabriFarace_data.json',
    label: 'list',
    path: '/_next/data/bench/en-US/cp/mini-excavator-6-6t.json?listingStatuses=Sold&from=0',
    body: (dir) => {
      const recorded = JSON.parse(readFileSync(path.join(dir, 'nextdata-cp-sold-records_excavators_GabriFarace_data.json'), 'utf8')) as { subcategories: { price_elements: unknown[] }[] };
      const all = recorded.subcategories.find((s) => s.price_elements.length > 0)?.price_elements ?? [];
      const records = all.slice(0, 60);
      return JSON.stringify({ pageProps: { data: { results: { totalAmount: all.length, returnedAmount: records.length, records } } } });
    },
  },
  westauction: {
    file: 'westauction/4299_lot_*.json',
    label: 'list',
    path: '/api/auctions/4299/items',
    body: (dir) => JSON.stringify({ result: 'success', data: readdirSync(dir).filter((n) => /^4299_lot_\d+\.json$/.test(n)).map((n) => JSON.parse(readFileSync(path.join(dir, n), 'utf8'))) }),
  },
  sierraauction: { file: 'other-sierraauction/lot-detail-481867-trailer_dfg-console_tmp_snapshot.html', label: 'detail' },
  publicsurplus: { file: 'publicsurplus/detail-active-with-bids-4053470_EXCERPT_BlackWhole.html', label: 'detail' },
};

function timeParse(adapter: SourceAdapter, pages: FetchedPage[], env: ReturnType<typeof adapterEnv>): { pagesPerSecond: number; lotsPerPage: number } {
  let n = 0;
  let lots = 0;
  const start = performance.now();
  const deadline = start + PARSE_SECONDS * 1000;
  while (performance.now() < deadline) {
    const result = adapter.router.route(pages[n % pages.length]!, env);
    lots += result.listings.length + result.next.filter((s) => s.label === 'detail').length;
    n++;
  }
  return { pagesPerSecond: n / ((performance.now() - start) / 1000), lotsPerPage: lots / n };
}

async function main(): Promise<void> {
  const dataDir = path.resolve('.data', `bench-crawl-${process.pid}`);
  mkdirSync(dataDir, { recursive: true });
  process.stdout.write(`bench:crawl — ${LOTS} lots, crawl worker concurrency ${CONCURRENCY}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB\n`);
  const pg = await startEmbeddedPostgres({ dataDir });
  const site = await startDemoSite({ sharedDir: SHARED, lots: LOTS, seed: 42, speed: 0, publishedShare: 1, keepClosedMs: 365 * 24 * 3600_000 });
  let ctx: AppContext | undefined;
  try {
    await runMigrations(pg.url);
    const config = parseConfig({
      NODE_ENV: 'development',
      LOG_LEVEL: 'silent',
      DATABASE_URL: pg.url,
      DEMO_SITE_URL: site.url,
      CRAWL_SOURCES: 'demo',
      CRAWL_ALLOW_ONLY_LOOPBACK: 'true',
      CRAWL_CONCURRENCY: String(CONCURRENCY),
      DATABASE_POOL_MAX: '20',
      SHARED_DIR: SHARED,
    });
    const logger = createLogger(config, 'bench-crawl');
    const database = connectDatabase(pg.url, { max: 20 });
    ctx = { config, logger, database, queues: new QueueRuntime({ kind: 'postgres', url: pg.url }, logger, { poolMax: 8 }) };
    const crawler = await startCrawlWorker(ctx);
    const visible = site.auction.visible().length;

    const results: string[] = [];
    for (const pass of ['first crawl (all new)', 'second crawl (all unchanged)']) {
      const started = performance.now();
      const run = await waitForRun(ctx, (await requestCrawl(ctx, 'demo')).id, { timeoutMs: 3600_000, pollMs: 200 });
      const seconds = (performance.now() - started) / 1000;
      const lots = run.lotsNew + run.lotsUpdated + run.lotsUnchanged;
      results.push(
        `| ${pass} | ${lots} | ${run.pages} | ${seconds.toFixed(1)} | ${(lots / seconds).toFixed(0)} | ${(run.pages / seconds).toFixed(0)} | ${run.errors} |`,
      );
      if (lots !== visible) throw new Error(`${pass}: stored ${lots} of ${visible} lots`);
    }
    const [counts] = await ctx.database.db.execute<{ listings: number; observations: number }>(
      sql`SELECT (SELECT count(*) FROM listings)::int AS listings, (SELECT count(*) FROM price_observations)::int AS observations`,
    );
    const scoreJobs = await ctx.queues.queue('score').count();
    await crawler.stop();

    process.stdout.write('\nWhole pipeline (fetch from the local demo site → parse → upsert → scoring enqueued):\n\n');
    process.stdout.write('| pass | lots | pages fetched | seconds | lots/s | pages/s | errors |\n|---|---|---|---|---|---|---|\n');
    process.stdout.write(`${results.join('\n')}\n`);
    process.stdout.write(`\nstored: ${counts!.listings} listings, ${counts!.observations} price observations, ${scoreJobs} scoring jobs waiting\n`);

    // Parse only.
    const registry = createRegistry();
    const rows: string[] = [];
    const demo = registry.get('demo')!;
    const demoEnv = adapterEnv(demo, config);
    const views = site.auction.visible();
    const listPages = [1, 2, 3].map((n) => ({ step: { label: 'list' as const, url: `${site.url}/auctions?page=${n}`, page: n }, url: `${site.url}/auctions?page=${n}`, status: 200, contentType: 'text/html', body: listPage(views, n, site.url), fetchedAt: new Date() }));
    const detailPages = views.slice(0, 50).map((v) => ({ step: { label: 'detail' as const, url: `${site.url}/lots/${v.lot.id}` }, url: `${site.url}/lots/${v.lot.id}`, status: 200, contentType: 'text/html', body: detailPage(v, site.url), fetchedAt: new Date() }));
    for (const [label, pages] of [['list', listPages], ['detail', detailPages]] as const) {
      const r = timeParse(demo, pages, demoEnv);
      rows.push(`| demo | ${label} (demo site, ${(pages[0]!.body.length / 1024).toFixed(0)} KB) | ${r.pagesPerSecond.toFixed(0)} | ${r.lotsPerPage.toFixed(1)} |`);
    }
    for (const [name, adapter] of registry) {
      if (name === 'demo') continue;
      const recorded = RECORDED[name];
      if (!recorded) {
        rows.push(`| ${name} | — | no recorded page mapped | |`);
        continue;
      }
      try {
        const env = adapterEnv(adapter, config);
        const startStep = adapter.start(env)[0];
        const url = recorded.path ? new URL(recorded.path, adapter.baseUrl(config)).href : (startStep?.url ?? adapter.baseUrl(config));
        const file = path.join(SHARED, 'fixtures/sites', recorded.file);
        const body = recorded.body ? recorded.body(path.dirname(file)) : readFileSync(file, 'utf8');
        const page: FetchedPage = { step: { label: recorded.label, url, page: 1 }, url, status: 200, contentType: recorded.file.endsWith('.json') ? 'application/json' : 'text/html', body, fetchedAt: new Date() };
        const r = timeParse(adapter, [page], env);
        rows.push(`| ${name} | ${recorded.label} (${path.basename(recorded.file).slice(0, 40)}…, ${(body.length / 1024).toFixed(0)} KB) | ${r.pagesPerSecond.toFixed(0)} | ${r.lotsPerPage.toFixed(1)} |`);
      } catch (err) {
        rows.push(`| ${name} | ${recorded.label} | error: ${err instanceof Error ? err.message.slice(0, 80) : String(err)} | |`);
      }
    }
    process.stdout.write('\nParse only (one core, adapter handler on an in-memory page):\n\n| adapter | page | pages/s | lots per page |\n|---|---|---|---|\n');
    process.stdout.write(`${rows.join('\n')}\n`);
  } finally {
    await ctx?.queues.close();
    await ctx?.database.close();
    await site.close();
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
