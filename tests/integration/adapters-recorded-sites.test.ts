/**
 * Every real-site adapter, end to end over HTTP: the recorded pages are served from 127.0.0.1
 * at the paths the adapter asks for, through the real http fetcher, so URLs, methods, bodies,
 * headers, pagination and parsing are all exercised — not just a parse function.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { gsaAuctionsAdapter } from '../../services/crawler/adapters/gsaauctions.js';
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
