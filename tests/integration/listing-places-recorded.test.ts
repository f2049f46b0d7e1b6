/**
 * How many lots of each real source's recorded pages are placed on the map (issue 30), and how
 * exactly: every adapter crawls its recorded pages over HTTP as in adapters-recorded-sites, each
 * lot is normalised and placed as the crawl store does. The shares are the report's figures
 * (printed) and a floor each source must keep: a parser that stops reading a location fails here.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { adapterEnv, type SourceAdapter } from '../../services/crawler/adapter.js';
import { bidSpotterAdapter } from '../../services/crawler/adapters/bidspotter.js';
import { govDealsAdapter } from '../../services/crawler/adapters/govdeals.js';
import { gsaAuctionsAdapter } from '../../services/crawler/adapters/gsaauctions.js';
import { municibidAdapter } from '../../services/crawler/adapters/municibid.js';
import { purpleWaveAdapter } from '../../services/crawler/adapters/purplewave.js';
import { rbAuctionAdapter } from '../../services/crawler/adapters/rbauction.js';
import { sierraAuctionAdapter } from '../../services/crawler/adapters/sierraauction.js';
import { westAuctionAdapter } from '../../services/crawler/adapters/westauction.js';
import type { CrawlStep } from '../../services/crawler/adapter.js';
import { normalizeListing, placeListing } from '../../services/shared/lots/normalize-listing.js';
import { crawlThroughFetcher } from '../support/adapter-crawl.js';
import { startRecordedSite, type RecordedSite } from '../support/recorded-site-server.js';
import { testConfig } from '../support/recorded-sites.js';

let site: RecordedSite | undefined;
afterEach(async () => {
  await site?.close();
  site = undefined;
});

type Case = {
  source: string;
  recorded: string;
  adapter: SourceAdapter;
  env?: Record<string, string>;
  start?: (env: ReturnType<typeof adapterEnv>, baseUrl: string) => CrawlStep[];
  /**
   * The least share placed (0–1) and the least share placed by ZIP code or city, as measured
   * 2026-11-26. Lots that fall back to their state name a suburb the ZIP code list files under
   * another town (Green Island NY, Webster Groves MO) or give no city; Ritchie Bros.' 12 lots
   * not placed are in Canada (the gazetteer is the US's).
   */
  floor: { placed: number; fine: number };
};

const cases: Case[] = [
  { source: 'gsaauctions', recorded: 'gsaauctions', adapter: gsaAuctionsAdapter, env: { GSA_API_KEY: 'DEMO_KEY' }, floor: { placed: 1, fine: 1 } },
  { source: 'govdeals', recorded: 'govdeals', adapter: govDealsAdapter, floor: { placed: 1, fine: 0.9 } },
  { source: 'purplewave', recorded: 'purplewave', adapter: purpleWaveAdapter, floor: { placed: 1, fine: 0.83 } },
  {
    source: 'municibid', recorded: 'municibid', adapter: municibidAdapter, floor: { placed: 1, fine: 1 },
    start: (env) => [{ label: 'list', url: `${env.baseUrl}/Search/Results?page=1`, page: 1 }, ...municibidAdapter.start(env)],
  },
  { source: 'westauction', recorded: 'westauction', adapter: westAuctionAdapter, floor: { placed: 1, fine: 0.6 } },
  {
    source: 'sierraauction', recorded: 'other-sierraauction', adapter: sierraAuctionAdapter, floor: { placed: 1, fine: 0.5 },
    start: (env) =>
      [
        { externalId: '481867', originalUrl: 'https://sierraauction.auctioneersoftware.com/auctions/6797/lot/481867-2006-carson-trailer-hiway-cargo-trailer' },
        { externalId: '485563', originalUrl: 'https://sierraauction.auctioneersoftware.com/auctions/6800/lot/485563-2003-volkswagen-jetta' },
      ].map((lot) => sierraAuctionAdapter.detailStep!(lot, env)!),
  },
  {
    source: 'rbauction', recorded: 'rbauction', adapter: rbAuctionAdapter, floor: { placed: 0.79, fine: 0.79 },
    start: (_env, baseUrl) => [{ label: 'list', url: `${baseUrl}/_next/data/build1/en-US/cp/highway-wheeled-excavator.json?listingStatuses=Sold&from=0`, page: 1 }],
  },
  { source: 'bidspotter', recorded: 'bidspotter', adapter: bidSpotterAdapter, floor: { placed: 1, fine: 1 }, start: (env) => bidSpotterAdapter.start(env).slice(0, 1) },
];

const report: string[] = [];

describe('lots of the recorded pages placed on the map', () => {
  it.each(cases)('$source', async (c) => {
    site = await startRecordedSite(c.recorded);
    const config = testConfig({ SOURCE_BASE_URLS: `${c.source}=${site.baseUrl}`, ...c.env });
    const env = adapterEnv(c.adapter, config);
    const crawl = await crawlThroughFetcher(c.adapter, config, c.start ? { startSteps: c.start(env, site.baseUrl) } : {});
    expect(crawl.listings.length).toBeGreaterThan(0);
    const counts = { zip: 0, city: 0, state: 0, none: 0 };
    const coarse: string[] = [];
    for (const lot of crawl.listings) {
      const l = normalizeListing(lot, lot.url);
      const p = placeListing(l).geoPrecision;
      counts[p]++;
      if (p === 'state' || p === 'none') coarse.push(`${p}: ${l.city ?? '—'}, ${l.state ?? '—'} ${l.country}`);
    }
    const n = crawl.listings.length;
    const placed = (counts.zip + counts.city + counts.state) / n;
    report.push(`${c.source}: ${n} lots, placed ${(100 * placed).toFixed(0)}% (zip ${counts.zip}, city ${counts.city}, state ${counts.state}, none ${counts.none})${coarse.length ? `; ${[...new Set(coarse)].join('; ')}` : ''}`);
    expect(placed).toBeGreaterThanOrEqual(c.floor.placed);
    expect((counts.zip + counts.city) / n).toBeGreaterThanOrEqual(c.floor.fine);
    // Every US lot with a state is placed.
    for (const lot of crawl.listings) {
      const l = normalizeListing(lot, lot.url);
      if (l.country === 'US' && l.state) expect(placeListing(l).geoPrecision).not.toBe('none');
    }
  });

  it('prints the report', () => {
    process.stdout.write(`\nPlaced on the map, per source (recorded pages):\n  ${report.join('\n  ')}\n`);
    expect(report).toHaveLength(cases.length);
  });
});
