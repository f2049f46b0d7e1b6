/**
 * Every real-site adapter, end to end over HTTP: the recorded pages are served from 127.0.0.1
 * at the paths the adapter asks for, through the real http fetcher, so URLs, methods, bodies,
 * headers, pagination and parsing are all exercised — not just a parse function.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { adapterEnv } from '../../services/crawler/adapter.js';
import { bidSpotterAdapter } from '../../services/crawler/adapters/bidspotter.js';
import { govDealsAdapter } from '../../services/crawler/adapters/govdeals.js';
import { gsaAuctionsAdapter } from '../../services/crawler/adapters/gsaauctions.js';
import { municibidAdapter } from '../../services/crawler/adapters/municibid.js';
import { publicSurplusAdapter } from '../../services/crawler/adapters/publicsurplus.js';
import { purpleWaveAdapter } from '../../services/crawler/adapters/purplewave.js';
import { rbAuctionAdapter } from '../../services/crawler/adapters/rbauction.js';
import { sierraAuctionAdapter } from '../../services/crawler/adapters/sierraauction.js';
import { westAuctionAdapter } from '../../services/crawler/adapters/westauction.js';
import { crawlThroughFetcher } from '../support/adapter-crawl.js';
import { startRecordedSite, type RecordedSite } from '../support/recorded-site-server.js';
import { expectWholeListing, testConfig } from '../support/recorded-sites.js';

let site: RecordedSite | undefined;
afterEach(async () => {
  await site?.close();
  site = undefined;
});

async function serve(recordedSite: string, source: string, env: Record<string, string> = {}) {
  site = await startRecordedSite(recordedSite);
  return testConfig({ SOURCE_BASE_URLS: `${source}=${site.baseUrl}`, ...env });
}

describe('GSA Auctions over HTTP', () => {
  it('calls the feed once with the X-API-KEY header and stores all 20 lots', async () => {
    const config = await serve('gsaauctions', 'gsaauctions', { GSA_API_KEY: 'DEMO_KEY' });
    const crawl = await crawlThroughFetcher(gsaAuctionsAdapter, config);
    expect(site!.requests).toHaveLength(1);
    const [request] = site!.requests;
    expect(request!.method).toBe('GET');
    expect(request!.path).toBe('/assets/gsaauctions/v2/auctions');
    expect(request!.query.get('format')).toBe('JSON');
    expect(request!.headers['x-api-key']).toBe('DEMO_KEY');
    expect(request!.headers['user-agent']).toMatch(/^DealRadarBot\//);
    expect(crawl.steps.map((s) => s.outcome)).toEqual(['routed']);
    expect(crawl.listings).toHaveLength(20);
    for (const l of crawl.listings) expectWholeListing(l);
    expect(crawl.listings.find((l) => l.externalId === '4-1-QSC-I-26-410-001')?.currentBid).toBe(9950);
  });

  it('without a key the API refuses and nothing is parsed', async () => {
    const config = await serve('gsaauctions', 'gsaauctions', { GSA_API_KEY: '' });
    const crawl = await crawlThroughFetcher(gsaAuctionsAdapter, config);
    expect(crawl.steps[0]).toMatchObject({ status: 403 });
    expect(crawl.listings).toEqual([]);
  });
});

describe('GovDeals over HTTP', () => {
  it('POSTs the JSON search, reads its page, and fetches an asset from its public URL', async () => {
    const config = await serve('govdeals', 'govdeals');
    const crawl = await crawlThroughFetcher(govDealsAdapter, config, {
      startSteps: [...govDealsAdapter.start(adapterEnv(govDealsAdapter, config)), { label: 'detail', url: 'https://www.govdeals.com/asset/5282/3780', externalId: '5282-3780' }],
    });
    expect(site!.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /search/list', 'POST /assets/5282/3780/false']);
    expect(JSON.parse(site!.requests[0]!.body)).toMatchObject({ page: 1, displayRows: 24 });
    expect(site!.requests[0]!.headers['content-type']).toBe('application/json');
    // The search's 10 lots, and the asset as a partial update (it carries no bid or price).
    expect(crawl.listings).toHaveLength(10);
    for (const l of crawl.listings) expectWholeListing(l);
    expect(crawl.updates).toHaveLength(1);
    expect(crawl.updates[0]).toMatchObject({ externalId: '5282-3780', city: 'Pittsburgh' });
    expect(crawl.updates[0]).not.toHaveProperty('currentBid');
  });
});

describe('Purple Wave over HTTP', () => {
  it('sweeps upcoming (nothing recorded: an empty page) and past lots', async () => {
    const config = await serve('purplewave', 'purplewave');
    const crawl = await crawlThroughFetcher(purpleWaveAdapter, config);
    expect(site!.requests.map((r) => r.query.get('dateType'))).toEqual(['upcoming', 'past']);
    expect(site!.requests.every((r) => r.query.get('perPage') === '100' && r.query.get('page') === '1')).toBe(true);
    expect(crawl.steps.map((s) => s.found)).toEqual([0, 6]);
    expect(crawl.listings.map((l) => l.status)).toEqual(Array(6).fill('sold'));
  });
});

describe('Municibid over HTTP', () => {
  it('reads the redesigned site: /browse, then listing pages (active, closed unsuccessful, removed)', async () => {
    const config = await serve('municibid', 'municibid');
    const env = adapterEnv(municibidAdapter, config);
    const recheck = ['86233903', '86003942', '86000001'].map((id) => municibidAdapter.detailStep!({ externalId: id, originalUrl: `https://municibid.com/listing/${id}` }, env)!);
    const crawl = await crawlThroughFetcher(municibidAdapter, config, { startSteps: [...municibidAdapter.start(env), ...recheck] });
    expect(site!.requests.map((r) => r.path)).toEqual(['/browse', '/listing/86233903', '/listing/86003942', '/listing/86000001']);
    expect(crawl.steps.map((s) => [s.outcome, s.found])).toEqual([['routed', 2], ['routed', 1], ['routed', 1], ['not-found', 0]]);
    for (const l of crawl.listings) expectWholeListing(l);
    expect(crawl.updates.find((u) => u.externalId === '86003942')).toMatchObject({ status: 'closed', soldPrice: null, bidCount: 0 });
    expect(crawl.updates.find((u) => u.externalId === '86233903')).toMatchObject({ status: 'open', currentBid: 195, bidCount: 1 });
  });

  it('still reads the old design: the search page, then two lots on their old listing pages', async () => {
    const config = await serve('municibid', 'municibid');
    const env = adapterEnv(municibidAdapter, config);
    const recheck = ['84516049', '82394410'].map((id) => municibidAdapter.detailStep!({ externalId: id, originalUrl: `https://municibid.com/Listing/Details/${id}` }, env)!);
    const oldStart = { label: 'list' as const, url: `${env.baseUrl}/Search/Results?page=1`, page: 1 };
    const crawl = await crawlThroughFetcher(municibidAdapter, config, { startSteps: [oldStart, ...recheck] });
    expect(site!.requests.map((r) => r.path)).toEqual(['/Search/Results', '/Listing/Details/84516049', '/Listing/Details/82394410']);
    expect(crawl.steps.map((s) => s.found)).toEqual([34, 1, 1]);
    const sold = crawl.updates.find((l) => l.externalId === '82394410');
    expect(sold).toMatchObject({ status: 'sold', soldPrice: 21, bidCount: 8 });
  });
});

describe('West Auctions over HTTP', () => {
  it('POSTs the auction list (current and past), then each auction\'s items pages, as forms', async () => {
    const config = await serve('westauction', 'westauction');
    const crawl = await crawlThroughFetcher(westAuctionAdapter, config);
    const auctionCalls = site!.requests.filter((r) => r.path === '/api/auctions');
    expect(auctionCalls.map((r) => r.body)).toEqual(['page=1&past_sales=0&meta_also=0', 'page=1&past_sales=1&meta_also=0', 'page=2&past_sales=0&meta_also=0', 'page=2&past_sales=1&meta_also=0']);
    expect(auctionCalls.every((r) => r.method === 'POST' && r.headers['content-type'] === 'application/x-www-form-urlencoded')).toBe(true);
    expect(site!.requests.filter((r) => r.path.endsWith('/items')).map((r) => `${r.path} ${r.body}`).sort()).toEqual([
      '/api/auctions/4421/items page=1',
      '/api/auctions/4569/items page=1',
      '/api/auctions/4657/items page=1',
    ]);
    expect(crawl.listings.map((l) => l.externalId).sort()).toEqual(['4421-586931', '4569-605582', '4569-605806', '4657-609240', '4657-609600']);
    for (const l of crawl.listings) expect(l.url).toMatch(/^https:\/\/www\.westauction\.com\/auction\/[a-z0-9-]+-\d{4}\/bidgallery\/$/);
    // Then each lot's gallery, fetched with a GET, as a partial update with every image.
    const imageCalls = site!.requests.filter((r) => r.path.endsWith('/images'));
    expect(imageCalls.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'GET /api/auctions/4421/items/586931/images',
      'GET /api/auctions/4569/items/605582/images',
      'GET /api/auctions/4569/items/605806/images',
      'GET /api/auctions/4657/items/609240/images',
      'GET /api/auctions/4657/items/609600/images',
    ]);
    // 107 images for the Bobcat excavator (SOURCE.md's count).
    expect(crawl.updates.find((u) => u.externalId === '4421-586931')?.images).toHaveLength(107);
  });
});

describe('Sierra Auction over HTTP', () => {
  it('re-checks two lots on their pages and walks on to the next lot', async () => {
    const config = await serve('other-sierraauction', 'sierraauction');
    const env = adapterEnv(sierraAuctionAdapter, config);
    const lots = [
      { externalId: '481867', originalUrl: 'https://sierraauction.auctioneersoftware.com/auctions/6797/lot/481867-2006-carson-trailer-hiway-cargo-trailer' },
      { externalId: '485563', originalUrl: 'https://sierraauction.auctioneersoftware.com/auctions/6800/lot/485563-2003-volkswagen-jetta' },
    ];
    const crawl = await crawlThroughFetcher(sierraAuctionAdapter, config, { startSteps: lots.map((lot) => sierraAuctionAdapter.detailStep!(lot, env)!) });
    expect(site!.requests.map((r) => r.path)).toEqual(['/auctions/6797/lot/481867', '/auctions/6800/lot/485563', '/auctions/6797/lot/487451', '/auctions/6800/lot/485564']);
    // The walked-to lots are not recorded: 404, recorded as such.
    expect(crawl.steps.map((s) => s.status)).toEqual([200, 200, 404, 404]);
    expect(crawl.listings.map((l) => [l.externalId, l.currentBid])).toEqual([
      ['481867', 1300],
      ['485563', 200],
    ]);
  });
});

describe('Ritchie Bros. over HTTP', () => {
  it('reads a category\'s Next.js data', async () => {
    const config = await serve('rbauction', 'rbauction');
    const url = `${site!.baseUrl}/_next/data/build1/en-US/cp/highway-wheeled-excavator.json?listingStatuses=Sold&from=0`;
    const crawl = await crawlThroughFetcher(rbAuctionAdapter, config, { startSteps: [{ label: 'list', url, page: 1 }] });
    expect(site!.requests.map((r) => `${r.path}?${r.query}`)).toEqual(['/_next/data/build1/en-US/cp/highway-wheeled-excavator.json?listingStatuses=Sold&from=0']);
    expect(crawl.listings).toHaveLength(58);
    for (const l of crawl.listings) expectWholeListing(l);
  });

  it('the category page itself is not recorded: its step fails as HTTP 404, not as a crash', async () => {
    const config = await serve('rbauction', 'rbauction');
    const crawl = await crawlThroughFetcher(rbAuctionAdapter, config, { maxSteps: 1 });
    expect(crawl.steps).toEqual([expect.objectContaining({ status: 404, outcome: 'http-error' })]);
  });
});

describe('Public Surplus over HTTP', () => {
  it('fetches the recorded auction page, which has no title: a parse error, no listing', async () => {
    const config = await serve('publicsurplus', 'publicsurplus');
    const env = adapterEnv(publicSurplusAdapter, config);
    const crawl = await crawlThroughFetcher(publicSurplusAdapter, config, { startSteps: [publicSurplusAdapter.detailStep!({ externalId: '4053470', originalUrl: '' }, env)!] });
    expect(site!.requests[0]!.query.get('auc')).toBe('4053470');
    expect(crawl.steps).toEqual([expect.objectContaining({ status: 200, outcome: 'parse-error' })]);
    expect(crawl.listings).toEqual([]);
  });
});

describe('BidSpotter over HTTP', () => {
  it('reads a search page, POSTs its lots for their bids in one batch, and asks for the next page', async () => {
    const config = await serve('bidspotter', 'bidspotter');
    const [first] = bidSpotterAdapter.start(adapterEnv(bidSpotterAdapter, config));
    const crawl = await crawlThroughFetcher(bidSpotterAdapter, config, { startSteps: [first!] });
    expect(site!.requests.map((r) => `${r.method} ${r.path}?${r.query}`)).toEqual([
      'GET /en-us/search-results?searchTerm=excavator&page=1',
      'POST /en-us/lot/reload-timed-bid-info?v=1.3.0.1&c=lotsearch',
      'GET /en-us/search-results?searchTerm=excavator&page=2',
    ]);
    const ids = crawl.listings.map((l) => l.externalId);
    expect(site!.requests[1]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(site!.requests[1]!.body)).toEqual(ids.map((LotId) => ({ LotId, BidderHasBids: false })));
    expect(crawl.steps.map((s) => s.status)).toEqual([200, 200, 404]);
    expect(crawl.listings).toHaveLength(3);
    expect(crawl.updates.map((u) => [u.externalId, u.currentBid, u.bidCount])).toEqual([
      [ids[0], 50, 1],
      [ids[1], 301, 3],
      [ids[2], 762, 2],
    ]);
  });
});
