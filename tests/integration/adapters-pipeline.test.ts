/**
 * Real-site adapters inside the real crawl pipeline (queue, worker, politeness, robots.txt,
 * storage) against recorded pages served from 127.0.0.1: GSA Auctions, enabled by default, is
 * crawled and stored; an HTML site's robots.txt is read and obeyed.
 */
import { and, eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { crawlErrors } from '../../db/schema/crawl.js';
import { listings } from '../../db/schema/listings.js';
import { createRegistry, sourceRegistrations } from '../../services/crawler/adapters/index.js';
import { requestCrawl, waitForRun } from '../../services/crawler/crawl-requests.js';
import { startCrawlWorker } from '../../services/crawler/index.js';
import { findSourceByName } from '../../services/crawler/repositories/sources-repository.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { startRecordedSite, type RecordedSite } from '../support/recorded-site-server.js';
import { testConfig } from '../support/recorded-sites.js';

let ctx: TestContext | undefined;
let site: RecordedSite | undefined;
let worker: Awaited<ReturnType<typeof startCrawlWorker>> | undefined;

afterEach(async () => {
  await worker?.stop();
  await ctx?.close();
  await site?.close();
  worker = ctx = site = undefined;
});

async function crawl(recordedSite: string, source: string, robotsTxt?: string) {
  site = await startRecordedSite(recordedSite, testConfig(), { robotsTxt });
  ctx = await createTestContext({ env: { CRAWL_SOURCES: source, SOURCE_BASE_URLS: `${source}=${site.baseUrl}`, CRAWL_CONCURRENCY: '2', CRAWL_TIMEOUT_MS: '5000' } });
  worker = await startCrawlWorker(ctx);
  const run = await requestCrawl(ctx, source);
  const finished = await waitForRun(ctx, run.id, { timeoutMs: 60_000 });
  const sourceRow = (await findSourceByName(ctx.database.db, source))!;
  return { finished, sourceRow, db: ctx.database.db };
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
    const { finished, sourceRow, db } = await crawl('municibid', 'municibid', 'User-agent: *\nDisallow: /Search/\n');
    expect(site!.requests.map((r) => r.path)).toEqual(['/robots.txt']);
    expect(finished.outcome).not.toBeNull();
    const errors = await db.select().from(crawlErrors).where(and(eq(crawlErrors.sourceId, sourceRow.id), eq(crawlErrors.kind, 'robots')));
    expect(errors).toHaveLength(1);
    expect((await db.select({ n: sql<number>`count(*)` }).from(listings).where(eq(listings.sourceId, sourceRow.id)))[0]!.n).toBe(0);
  });

  it('crawl an HTML site its robots.txt allows, and store its lots', async () => {
    const { finished, sourceRow, db } = await crawl('municibid', 'municibid', 'User-agent: *\nDisallow: /Account/\n');
    expect(finished.outcome).toBe('ok');
    expect(site!.requests.map((r) => r.path)).toEqual(['/robots.txt', '/Search/Results']);
    const rows = await db.select().from(listings).where(eq(listings.sourceId, sourceRow.id));
    expect(rows).toHaveLength(34);
    expect(rows.find((r) => r.externalId === '84127570')).toMatchObject({ title: 'Multiple office chairs', state: 'LA', bidCount: 7 });
  });
});
