/**
 * Real-site adapters inside the real crawl pipeline (queue, worker, politeness, robots.txt,
 * storage) against recorded pages served from 127.0.0.1: GSA Auctions, enabled by default, is
 * crawled and stored; an HTML site's robots.txt is read and obeyed; responses that carry only
 * part of a lot (BidSpotter's bid info, West Auctions' galleries, Municibid's listing page) are
 * merged into the stored listing.
 */
import { and, asc, eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { crawlErrors } from '../../db/schema/crawl.js';
import { listingImages, listings, priceObservations } from '../../db/schema/listings.js';
import type { SourceAdapter } from '../../services/crawler/adapter.js';
import { bidSpotterAdapter } from '../../services/crawler/adapters/bidspotter.js';
import { ADAPTERS, createRegistry, sourceRegistrations } from '../../services/crawler/adapters/index.js';
import { municibidAdapter } from '../../services/crawler/adapters/municibid.js';
import { westAuctionAdapter } from '../../services/crawler/adapters/westauction.js';
import { requestCrawl, waitForRun } from '../../services/crawler/crawl-requests.js';
import { startCrawlWorker } from '../../services/crawler/index.js';
import { findSourceByName } from '../../services/shared/repositories/sources-repository.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { startRecordedSite, type RecordedSite } from '../support/recorded-site-server.js';
import { recordedJson, testConfig } from '../support/recorded-sites.js';

let ctx: TestContext | undefined;
let site: RecordedSite | undefined;
let worker: Awaited<ReturnType<typeof startCrawlWorker>> | undefined;

afterEach(async () => {
  await worker?.stop();
  await ctx?.close();
  await site?.close();
  worker = ctx = site = undefined;
});

async function crawl(recordedSite: string, source: string, robotsTxt?: string, opts: { adapter?: SourceAdapter; limit?: number } = {}) {
  site = await startRecordedSite(recordedSite, testConfig(), { robotsTxt });
  ctx = await createTestContext({ env: { CRAWL_SOURCES: source, SOURCE_BASE_URLS: `${source}=${site.baseUrl}`, CRAWL_CONCURRENCY: '2', CRAWL_TIMEOUT_MS: '5000' } });
  const registry = opts.adapter ? createRegistry(ADAPTERS.map((a) => (a.name === opts.adapter!.name ? opts.adapter! : a))) : undefined;
  worker = await startCrawlWorker(ctx, { registry });
  const run = await requestCrawl(ctx, source, { limit: opts.limit });
  const finished = await waitForRun(ctx, run.id, { timeoutMs: 60_000 });
  const sourceRow = (await findSourceByName(ctx.database.db, source))!;
  return { finished, sourceRow, db: ctx.database.db };
}

/** The real adapter without its seconds between requests (one recorded server, nobody to spare). */
function quick(adapter: SourceAdapter, start?: SourceAdapter['start']): SourceAdapter {
  return { ...adapter, politeness: { minDelayMs: 0, maxConcurrency: 1 }, start: start ?? adapter.start };
}

async function rowsOf(sourceId: number) {
  return ctx!.database.db.select().from(listings).where(eq(listings.sourceId, sourceId)).orderBy(asc(listings.externalId));
}

async function observationsOf(listingId: number) {
  return ctx!.database.db.select().from(priceObservations).where(eq(priceObservations.listingId, listingId)).orderBy(asc(priceObservations.id));
}

async function scoreJobsOf(listingId: number) {
  const jobs = await ctx!.queues.queue('score').getJobs(['waiting', 'delayed', 'prioritized', 'active', 'completed']);
  return jobs.filter((j) => (j.data as { listingId: number }).listingId === listingId);
}

describe('real-site adapters in the crawl pipeline', () => {
  it('are registered: GSA enabled under the default configuration, the others disabled with their reason', () => {
    const rows = sourceRegistrations(createRegistry(), testConfig());
    const byName = Object.fromEntries(rows.map((r) => [r.name, r]));
    expect(byName.gsaauctions).toMatchObject({ enabled: true, accessKind: 'api', baseUrl: 'https://api.gsa.gov' });
    expect(byName.govdeals).toMatchObject({ enabled: false, disabledReason: expect.stringMatching(/private back end/) });
    expect(byName.publicsurplus).toMatchObject({ enabled: false, disabledReason: expect.stringMatching(/excerpt/) });
    for (const name of ['purplewave', 'municibid', 'bidspotter', 'rbauction', 'sierraauction', 'westauction']) {
      expect(byName[name]).toMatchObject({ enabled: false, disabledReason: 'not listed in CRAWL_SOURCES' });
    }
  });

  it('crawl GSA Auctions through the queue and store its 20 lots with their bids', async () => {
    const { finished, sourceRow, db } = await crawl('gsaauctions', 'gsaauctions');
    expect(finished.outcome).toBe('ok');
    expect(site!.requests.map((r) => r.path)).toEqual(['/assets/gsaauctions/v2/auctions']);
    expect(site!.requests[0]!.headers['x-api-key']).toBe('DEMO_KEY');
    const rows = await db.select().from(listings).where(eq(listings.sourceId, sourceRow.id));
    expect(rows).toHaveLength(20);
    const chinook = rows.find((r) => r.externalId === '4-1-QSC-I-26-410-001')!;
    expect(Number(chinook.currentBid)).toBe(9950);
    expect(chinook.state).toBe('OK');
    expect(chinook.originalUrl).toBe('https://www.gsaauctions.gov/auctions/preview/370801');
    expect(chinook.auctionEndAt).toBeNull();
  });

  it('read the live robots.txt of an HTML site and obey it', async () => {
    const { finished, sourceRow, db } = await crawl('municibid', 'municibid', 'User-agent: *\nDisallow: /browse\n');
    expect(site!.requests.map((r) => r.path)).toEqual(['/robots.txt']);
    expect(finished.outcome).not.toBeNull();
    const errors = await db.select().from(crawlErrors).where(and(eq(crawlErrors.sourceId, sourceRow.id), eq(crawlErrors.kind, 'robots')));
    expect(errors).toHaveLength(1);
    expect((await db.select({ n: sql<number>`count(*)` }).from(listings).where(eq(listings.sourceId, sourceRow.id)))[0]!.n).toBe(0);
  });

  it('crawl an HTML site its robots.txt allows, and store its lots', async () => {
    const { finished, sourceRow, db } = await crawl('municibid', 'municibid', 'User-agent: *\nDisallow: /Account/\n');
    expect(finished.outcome).toBe('ok');
    // Municibid's redesigned site: its browse page.
    expect(site!.requests.map((r) => r.path)).toEqual(['/robots.txt', '/browse']);
    const rows = await db.select().from(listings).where(eq(listings.sourceId, sourceRow.id));
    expect(rows).toHaveLength(2);
    expect(rows.find((r) => r.externalId === '86351268')).toMatchObject({
      title: 'Adjustable height school desks - lot of 300',
      city: 'Doylestown',
      state: 'PA',
      bidCount: 0,
      originalUrl: 'https://municibid.com/listing/86351268/adjustable-height-school-desks-lot-of-300',
    });
    expect((await findSourceByName(db, 'municibid'))!.status).toBe('ok');
  });
});

describe('partial updates merged into stored listings', () => {
  // One search term: the recorded server answers every term with the same page.
  const bidSpotter = quick(bidSpotterAdapter, (env) => bidSpotterAdapter.start(env).slice(0, 1));
  const BID_INFO = 'api-lot-bidinfo_BlackWhole_bidspotter_bid_info.json';

  it('BidSpotter: the cards are stored, then their bid info (one batched POST) gives them bid, bid count and price; a re-crawl keeps it', async () => {
    const { finished, sourceRow } = await crawl('bidspotter', 'bidspotter', undefined, { adapter: bidSpotter });
    expect(finished.outcome).toBe('ok');
    // The bid info and page 2 (not recorded: 404) are queued together by page 1.
    expect(site!.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'GET /en-us/search-results',
      'GET /en-us/search-results',
      'GET /robots.txt',
      'POST /en-us/lot/reload-timed-bid-info',
    ]);
    const rows = await rowsOf(sourceRow.id);
    expect(rows).toHaveLength(3);
    // Expected values read from the recorded bid info: LeadingBid × Quantity, TotalBids.
    const bidInfo = recordedJson<{ Model: { LotId: string; LeadingBid: number; Quantity: number; TotalBids: number } }[]>('bidspotter', BID_INFO);
    for (const { Model: m } of bidInfo) {
      const row = rows.find((r) => r.externalId === m.LotId)!;
      expect(row).toMatchObject({ currentBid: m.LeadingBid * m.Quantity, price: m.LeadingBid * m.Quantity, priceUsd: m.LeadingBid * m.Quantity, bidCount: m.TotalBids, status: 'open' });
    }
    const ghost = rows.find((r) => r.externalId === 'aaf53c9e-a9d1-4de6-a794-b477015c7b1f')!;
    // The card's fields are still there: the bid info carried none of them.
    expect(ghost).toMatchObject({ title: 'Ghost chairs', city: 'Belmont', state: 'NC', price: 301, imageCount: 1 });
    expect(ghost.auctionEndAt?.toISOString()).toBe('2026-07-22T15:32:00.000Z');
    expect((ghost.rawPayload as { partial?: { payload?: { LotId?: string } } }).partial?.payload?.LotId).toBe(ghost.externalId);
    // A price observation for the card (no price) and one for the merged bid, each with its scoring job.
    const observations = await observationsOf(ghost.id);
    expect(observations.map((o) => [o.price, o.bidCount])).toEqual([
      [null, 0],
      [301, 3],
    ]);
    expect((await scoreJobsOf(ghost.id)).map((j) => (j.data as { reason: string }).reason).sort()).toEqual(['changed', 'new']);

    // The next crawl: the card (no price) and the same bid info change nothing — no flip-flop, no observation, no new version to score.
    const scoreJobsBefore = (await scoreJobsOf(ghost.id)).map((j) => j.id);
    const again = await waitForRun(ctx!, (await requestCrawl(ctx!, 'bidspotter')).id, { timeoutMs: 60_000 });
    expect(again).toMatchObject({ outcome: 'ok', lotsNew: 0, lotsUpdated: 0, lotsUnchanged: 6 });
    const ghostAgain = (await rowsOf(sourceRow.id)).find((r) => r.id === ghost.id)!;
    expect(ghostAgain).toMatchObject({ price: 301, bidCount: 3, city: 'Belmont', contentHash: ghost.contentHash });
    expect(await observationsOf(ghost.id)).toHaveLength(2);
    // A step the host's politeness deferred is a restarted job, which re-announces its lots (by design); such a
    // job names the unchanged content hash, never a new observation.
    const added = (await scoreJobsOf(ghost.id)).filter((j) => !scoreJobsBefore.includes(j.id));
    for (const job of added) expect((job.data as { version: string }).version).toBe(`h-${ghost.contentHash!.slice(0, 20)}`);
  });

  it('BidSpotter: bid info for a lot never stored (cut by the run\'s lot limit) creates no half-filled listing', async () => {
    const { finished, sourceRow } = await crawl('bidspotter', 'bidspotter', undefined, { adapter: bidSpotter, limit: 1 });
    expect(finished.outcome).toBe('ok');
    // The batch still asked for the page's 3 lots; only the stored one took its answer.
    const bidCall = site!.requests.find((r) => r.path === '/en-us/lot/reload-timed-bid-info')!;
    expect(JSON.parse(bidCall.body)).toHaveLength(3);
    const rows = await rowsOf(sourceRow.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ externalId: '00a1c5e1-2b6b-4029-8bb3-b45200f057c5', title: 'EPS 4-Cavity Mold, Kids Chairs', currentBid: 50, bidCount: 1 });
  });

  it('West Auctions: every lot ends up with its whole gallery, full size, in the site\'s order', async () => {
    const { finished, sourceRow, db } = await crawl('westauction', 'westauction', undefined, { adapter: quick(westAuctionAdapter) });
    expect(finished.outcome).toBe('ok');
    const rows = await rowsOf(sourceRow.id);
    expect(rows.map((r) => r.externalId)).toEqual(['4421-586931', '4569-605582', '4569-605806', '4657-609240', '4657-609600']);
    for (const row of rows) {
      const [auctionId, lotId] = row.externalId.split('-');
      const gallery = recordedJson<{ data: { image_url: string }[] }>('westauction', `${auctionId}_lot_${lotId}_images.json`).data.map((d) => d.image_url);
      const stored = await db.select({ url: listingImages.url }).from(listingImages).where(eq(listingImages.listingId, row.id)).orderBy(asc(listingImages.position));
      expect(stored.map((i) => i.url)).toEqual(gallery);
      expect(row).toMatchObject({ imageCount: gallery.length, firstImageUrl: gallery[0] });
    }
    // The Bobcat excavator: 107 images (SOURCE.md), its bid and location from the items page untouched.
    expect(rows[0]).toMatchObject({ imageCount: 107, currentBid: 42500, bidCount: 115, status: 'sold' });
  });

  it('Municibid: a listing-page re-check of a lot ending soon updates its bid and end time and keeps the location and image the search gave', async () => {
    // The old design's search page (lots found there keep their old /Listing/Details/ address).
    const municibid = quick(municibidAdapter, (env) => [{ label: 'list', url: `${env.baseUrl}/Search/Results?page=1`, page: 1 }]);
    const { finished, sourceRow, db } = await crawl('municibid', 'municibid', 'User-agent: *\nDisallow: /Account/\n', { adapter: municibid });
    expect(finished.outcome).toBe('ok');
    const before = (await rowsOf(sourceRow.id)).find((r) => r.externalId === '84516049')!;
    expect(before).toMatchObject({ title: 'Banquet Chairs', city: 'Boyertown', state: 'PA', currentBid: 25, bidCount: 1, imageCount: 1 });
    // The recorded lot ended in August 2026: move its end into the next hour so the ending-soon schedule picks it
    // (its content hash cleared with it, as the stored lot no longer is what the search page gave).
    await db.update(listings).set({ auctionEndAt: new Date(Date.now() + 3600_000), contentHash: null }).where(eq(listings.id, before.id));
    const recheck = await waitForRun(ctx!, (await requestCrawl(ctx!, 'municibid', { reason: 'ending-soon' })).id, { timeoutMs: 60_000 });
    expect(recheck).toMatchObject({ outcome: 'ok', lotsUpdated: 1 });
    expect(site!.requests.map((r) => r.path)).toContain('/Listing/Details/84516049');
    const after = (await rowsOf(sourceRow.id)).find((r) => r.id === before.id)!;
    // The listing page's end time (Eastern 08/04/2026 08:27) replaced the moved one; the rest it does not carry stayed.
    expect(after.auctionEndAt?.toISOString()).toBe('2026-08-04T12:27:00.000Z');
    expect(after).toMatchObject({ title: 'Banquet Chairs', city: 'Boyertown', state: 'PA', country: 'US', currentBid: 25, bidCount: 1, imageCount: 1, firstImageUrl: before.firstImageUrl, status: 'open' });
  });
});
