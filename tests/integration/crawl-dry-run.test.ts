/**
 * A dry run looks and stores nothing: after a real crawl of BidSpotter's recorded pages (cards,
 * then their bid info merged in as partial updates), a dry run reports what a real re-crawl does
 * (every lot unchanged, nothing "updated" because a card lacks the bid its stored lot has) and
 * leaves the listings, their history, the scoring queue and the source's health as they were.
 */
import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listings, priceObservations } from '../../db/schema/listings.js';
import { sources } from '../../db/schema/catalog.js';
import { bidSpotterAdapter } from '../../services/crawler/adapters/bidspotter.js';
import { ADAPTERS, createRegistry } from '../../services/crawler/adapters/index.js';
import { requestCrawl, waitForRun } from '../../services/crawler/crawl-requests.js';
import { startCrawlWorker } from '../../services/crawler/index.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { startRecordedSite, type RecordedSite } from '../support/recorded-site-server.js';
import { testConfig } from '../support/recorded-sites.js';

let ctx: TestContext;
let site: RecordedSite;
let worker: Awaited<ReturnType<typeof startCrawlWorker>>;

// One search term (the recorded server answers every term with the same page), no seconds between requests.
const bidSpotter = { ...bidSpotterAdapter, politeness: { minDelayMs: 0, maxConcurrency: 1 }, start: (env: Parameters<typeof bidSpotterAdapter.start>[0]) => bidSpotterAdapter.start(env).slice(0, 1) };

beforeAll(async () => {
  site = await startRecordedSite('bidspotter', testConfig());
  ctx = await createTestContext({ env: { CRAWL_SOURCES: 'bidspotter', SOURCE_BASE_URLS: `bidspotter=${site.baseUrl}`, CRAWL_CONCURRENCY: '2', CRAWL_TIMEOUT_MS: '5000' } });
  worker = await startCrawlWorker(ctx, { registry: createRegistry(ADAPTERS.map((a) => (a.name === 'bidspotter' ? bidSpotter : a))) });
});

afterAll(async () => {
  await worker?.stop();
  await ctx?.close();
  await site?.close();
});

async function state() {
  const db = ctx.database.db;
  return {
    listings: await db.select().from(listings).orderBy(asc(listings.id)),
    observations: await db.select({ n: sql<number>`count(*)::int` }).from(priceObservations),
    source: await db.select().from(sources).where(eq(sources.name, 'bidspotter')),
    scoreJobs: await ctx.queues.queue('score').count(),
  };
}

describe('crawl --dry-run', () => {
  it('counts what a real crawl would and changes no listing, score job or source health', async () => {
    const first = await waitForRun(ctx, (await requestCrawl(ctx, 'bidspotter')).id, { timeoutMs: 60_000 });
    expect(first).toMatchObject({ outcome: 'ok', lotsNew: 3 });
    const before = await state();
    expect(before.listings).toHaveLength(3);

    const dry = await waitForRun(ctx, (await requestCrawl(ctx, 'bidspotter', { dryRun: true })).id, { timeoutMs: 60_000 });
    // Three cards and three bid-info rows, each merging to what is stored.
    expect(dry).toMatchObject({ dryRun: true, outcome: 'ok', lotsNew: 0, lotsUpdated: 0, lotsUnchanged: 6 });
    expect(await state()).toEqual(before);

    // The real re-crawl agrees with the dry run's figures.
    const real = await waitForRun(ctx, (await requestCrawl(ctx, 'bidspotter')).id, { timeoutMs: 60_000 });
    expect({ lotsNew: real.lotsNew, lotsUpdated: real.lotsUpdated, lotsUnchanged: real.lotsUnchanged }).toEqual({ lotsNew: 0, lotsUpdated: 0, lotsUnchanged: 6 });
  });

  it('counts a changed lot as updated without storing the change', async () => {
    const db = ctx.database.db;
    const [lot] = await db.select().from(listings).orderBy(asc(listings.id)).limit(1);
    // The stored bid moved away from what the site says: a real crawl would update this one lot.
    await db.update(listings).set({ currentBid: 1, contentHash: 'stale' }).where(eq(listings.id, lot!.id));
    const before = await state();
    const dry = await waitForRun(ctx, (await requestCrawl(ctx, 'bidspotter', { dryRun: true })).id, { timeoutMs: 60_000 });
    expect(dry.lotsUpdated).toBeGreaterThanOrEqual(1);
    expect(dry.lotsNew).toBe(0);
    expect(await state()).toEqual(before);
  });
});
