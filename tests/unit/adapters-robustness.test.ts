/**
 * Every real-site adapter, on every recorded file of every OTHER site and on cut, scrambled and
 * wrong-shaped versions of its own files: each handler either throws a ParseError or returns
 * listings that are whole (id, title, absolute URL, typed values) — never another exception,
 * never a half-filled lot. And the recorded Cloudflare page is recognised as a block.
 */
import { describe, expect, it } from 'vitest';
import { adapterEnv, ParseError, type CrawlLabel, type SourceAdapter } from '../../services/crawler/adapter.js';
import { bidSpotterAdapter } from '../../services/crawler/adapters/bidspotter.js';
import { govDealsAdapter } from '../../services/crawler/adapters/govdeals.js';
import { gsaAuctionsAdapter } from '../../services/crawler/adapters/gsaauctions.js';
import { ADAPTERS } from '../../services/crawler/adapters/index.js';
import { municibidAdapter } from '../../services/crawler/adapters/municibid.js';
import { publicSurplusAdapter } from '../../services/crawler/adapters/publicsurplus.js';
import { purpleWaveAdapter } from '../../services/crawler/adapters/purplewave.js';
import { rbAuctionAdapter } from '../../services/crawler/adapters/rbauction.js';
import { sierraAuctionAdapter } from '../../services/crawler/adapters/sierraauction.js';
import { westAuctionAdapter } from '../../services/crawler/adapters/westauction.js';
import { detectBlock } from '../../services/crawler/fetchers/block-detection.js';
import { allRecordedFiles, damagedVersions, expectWholeListing, fetchedPage, readRecorded, testConfig } from '../support/recorded-sites.js';

type Case = { adapter: SourceAdapter; site: string; routes: { label: CrawlLabel; url: string }[] };

const CASES: Case[] = [
  { adapter: gsaAuctionsAdapter, site: 'gsaauctions', routes: [{ label: 'list', url: 'https://api.gsa.gov/assets/gsaauctions/v2/auctions?format=JSON' }] },
  {
    adapter: govDealsAdapter,
    site: 'govdeals',
    routes: [
      { label: 'list', url: 'https://maestro.lqdt1.com/search/list' },
      { label: 'detail', url: 'https://maestro.lqdt1.com/assets/5282/3780/false' },
    ],
  },
  { adapter: purpleWaveAdapter, site: 'purplewave', routes: [{ label: 'list', url: 'https://www.purplewave.com/v1/search/search?dateType=past&perPage=100&page=1' }] },
  {
    adapter: municibidAdapter,
    site: 'municibid',
    routes: [
      { label: 'list', url: 'https://municibid.com/Search/Results?page=1' },
      { label: 'detail', url: 'https://municibid.com/Listing/Details/84516049' },
    ],
  },
  {
    adapter: publicSurplusAdapter,
    site: 'publicsurplus',
    routes: [
      { label: 'list', url: 'https://www.publicsurplus.com/sms/list/current' },
      { label: 'detail', url: 'https://www.publicsurplus.com/sms/auction/view?auc=4053470' },
    ],
  },
  {
    adapter: bidSpotterAdapter,
    site: 'bidspotter',
    routes: [
      { label: 'list', url: 'https://www.bidspotter.com/en-us/search-results?searchTerm=chairs&page=1' },
      { label: 'update', url: 'https://www.bidspotter.com/en-us/lot/reload-timed-bid-info?v=1.3.0.1&c=lotsearch' },
    ],
  },
  {
    adapter: rbAuctionAdapter,
    site: 'rbauction',
    routes: [
      { label: 'list', url: 'https://www.rbauction.com/cp/tracked-excavator' },
      { label: 'list', url: 'https://www.rbauction.com/_next/data/b1/en-US/cp/tracked-excavator.json?listingStatuses=Sold&from=0' },
    ],
  },
  {
    adapter: sierraAuctionAdapter,
    site: 'other-sierraauction',
    routes: [
      { label: 'list', url: 'https://sierraauction.auctioneersoftware.com/auctions' },
      { label: 'detail', url: 'https://sierraauction.auctioneersoftware.com/auctions/6797/lot/481867' },
    ],
  },
  {
    adapter: westAuctionAdapter,
    site: 'westauction',
    routes: [
      { label: 'list', url: 'https://www.westauction.com/api/auctions' },
      { label: 'list', url: 'https://www.westauction.com/api/auctions/4569/items' },
      { label: 'update', url: 'https://www.westauction.com/api/auctions/4404/items/580120/images' },
    ],
  },
];

const config = testConfig();
const files = allRecordedFiles(config);
const bodies = new Map(files.map((f) => [`${f.site}/${f.file}`, readRecorded(f.site, f.file, config)]));

/** Runs one handler; returns 'parse-error' or the number of (whole) listings and (well-typed) updates. Any other throw fails the test. */
function survive(adapter: SourceAdapter, label: CrawlLabel, url: string, body: string): 'parse-error' | number {
  const env = adapterEnv(adapter, config);
  try {
    const { listings, updates = [], next } = adapter.router.route(fetchedPage(body, url, label, { page: 1 }), env);
    for (const l of listings) expectWholeListing(l);
    // An update is partial by design, but what it carries is typed: checked as a lot with a stand-in title and URL.
    for (const u of updates) expectWholeListing({ ...u, title: u.title ?? 'stand-in', url: u.url ?? 'https://stand-in.example/' });
    for (const step of next) expect(step.url).toMatch(/^https?:\/\//);
    return listings.length + updates.length;
  } catch (err) {
    if (err instanceof ParseError) return 'parse-error';
    throw new Error(`${adapter.name} ${label} ${url} crashed: ${String(err)}`);
  }
}

describe('adapter robustness', () => {
  it('covers every registered real-site adapter', () => {
    expect(ADAPTERS.filter((a) => !a.isDemo).map((a) => a.name).sort()).toEqual(CASES.map((c) => c.adapter.name).sort());
  });

  for (const { adapter, site, routes } of CASES) {
    describe(adapter.name, () => {
      it("never crashes on another site's recorded files, and finds no lots in them", () => {
        for (const f of files.filter((x) => x.site !== site)) {
          for (const route of routes) {
            const outcome = survive(adapter, route.label, route.url, bodies.get(`${f.site}/${f.file}`)!);
            // Another site's file is never this site's lots.
            expect(outcome === 'parse-error' || outcome === 0, `${adapter.name} read lots from ${f.site}/${f.file}`).toBe(true);
          }
        }
      });

      it('never crashes on cut, scrambled or wrong-shaped versions of its own files', () => {
        for (const f of files.filter((x) => x.site === site)) {
          for (const damaged of damagedVersions(bodies.get(`${f.site}/${f.file}`)!)) {
            for (const route of routes) survive(adapter, route.label, route.url, damaged.body);
          }
        }
      });

      it('reads the Cloudflare challenge page as no lots (a ParseError or nothing), never as listings', () => {
        const body = bodies.get('tractorhouse/blocked-cloudflare-challenge_list-tractors_roshtarg_page.html')!;
        for (const route of routes) expect(['parse-error', 0]).toContain(survive(adapter, route.label, route.url, body));
      });
    });
  }
});

describe('the recorded TractorHouse block page', () => {
  const body = readRecorded('tractorhouse', 'blocked-cloudflare-challenge_list-tractors_roshtarg_page.html');

  it("is recognised as blocked by the pipeline's block detection, whatever the status", () => {
    for (const status of [200, 403, 503]) expect(detectBlock({ status, body })).toMatchObject({ vendor: 'Cloudflare' });
  });

  it('while the real listing pages and API answers recorded here are not', () => {
    for (const f of files.filter((x) => x.site !== 'tractorhouse')) {
      expect(detectBlock({ status: 200, body: bodies.get(`${f.site}/${f.file}`)! }), `${f.site}/${f.file}`).toBeNull();
    }
  });
});
