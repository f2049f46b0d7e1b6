/**
 * Every real-site adapter, on every recorded file of every OTHER site and on cut, scrambled and
 * wrong-shaped versions of its own files: each handler either throws a ParseError (or, for a
 * lot that is gone, a NotFoundError) or returns listings that are whole (id, title, absolute URL,
 * typed values) — never another exception, never a half-filled lot. Each adapter also refuses a
 * login wall, a challenge page and a foreign site's page, and the test says the state each one
 * gives the source. And the recorded Cloudflare page is recognised as a block.
 */
import { describe, expect, it } from 'vitest';
import { adapterEnv, NotFoundError, ParseError, type CrawlLabel, type SourceAdapter } from '../../services/crawler/adapter.js';
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
import { isSilentContentPage } from '../../services/crawler/crawl-pipeline.js';
import { detectBlock } from '../../services/crawler/fetchers/block-detection.js';
import { detectLoginWall } from '../../services/crawler/fetchers/login-detection.js';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { allRecordedFiles, damagedVersions, expectWholeListing, fetchedPage, readRecorded, readRepoRecorded, repoSitesDir, testConfig } from '../support/recorded-sites.js';

/** `site`: the adapter's recorded folder; `alsoOwn`: more folders of the same site (another design). */
type Case = { adapter: SourceAdapter; site: string; alsoOwn?: string[]; routes: { label: CrawlLabel; url: string }[] };

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
    alsoOwn: ['municibid-next'],
    routes: [
      { label: 'list', url: 'https://municibid.com/Search/Results?page=1' },
      { label: 'detail', url: 'https://municibid.com/Listing/Details/84516049' },
      { label: 'list', url: 'https://municibid.com/browse' },
      { label: 'detail', url: 'https://municibid.com/listing/86233903' },
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
// The recorded pages kept in the repository (Municibid's new site) count as recorded files too.
const repoFiles = readdirSync(repoSitesDir(), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => readdirSync(path.join(repoSitesDir(), d.name)).filter((f) => f !== 'SOURCE.md').map((file) => ({ site: d.name, file })));
const files = [...allRecordedFiles(config), ...repoFiles];
const bodies = new Map([
  ...allRecordedFiles(config).map((f) => [`${f.site}/${f.file}`, readRecorded(f.site, f.file, config)] as const),
  ...repoFiles.map((f) => [`${f.site}/${f.file}`, readRepoRecorded(f.site, f.file)] as const),
]);
const ownSites = (c: Case) => [c.site, ...(c.alsoOwn ?? [])];

/** Written for these tests (no login page is recorded): a site's 401 answer with its sign-in form. */
const LOGIN_WALL = {
  status: 401,
  body: '<!DOCTYPE html><html><head><title>Log In | Auctions</title></head><body><form method="post" action="/login"><input name="user"><input type="password" name="pass"><button>Sign in</button></form></body></html>',
};
const CHALLENGE = () => bodies.get('tractorhouse/blocked-cloudflare-challenge_list-tractors_roshtarg_page.html')!;

/**
 * The state a page gives its source, in the pipeline's order: a challenge → blocked; a login
 * wall → login required (never parsed); a page the handler refuses, or a first list page with
 * content and nothing in it → a parse failure, which makes the source "layout changed" when the
 * whole run finds no lot.
 */
function stateOf(adapter: SourceAdapter, route: { label: CrawlLabel; url: string }, response: { status: number; body: string }): string {
  if (detectBlock(response)) return 'blocked';
  if (detectLoginWall({ ...response, url: route.url }, route.url)) return 'login required';
  try {
    const routed = adapter.router.route(fetchedPage(response.body, route.url, route.label, { page: 1 }), adapterEnv(adapter, config));
    if (routed.listings.length > 0 || (routed.updates?.length ?? 0) > 0) return 'lots';
    return isSilentContentPage({ ...route, page: 1 }, routed, response.body) ? 'layout changed' : 'nothing (empty page)';
  } catch (err) {
    if (err instanceof NotFoundError) return 'not found';
    if (err instanceof ParseError) return 'layout changed';
    throw err;
  }
}

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
    if (err instanceof ParseError || err instanceof NotFoundError) return 'parse-error';
    throw new Error(`${adapter.name} ${label} ${url} crashed: ${String(err)}`);
  }
}

describe('adapter robustness', () => {
  it('covers every registered real-site adapter', () => {
    expect(ADAPTERS.filter((a) => !a.isDemo).map((a) => a.name).sort()).toEqual(CASES.map((c) => c.adapter.name).sort());
  });

  for (const c of CASES) {
    const { adapter, routes } = c;
    describe(adapter.name, () => {
      it("never crashes on another site's recorded files, and finds no lots in them", () => {
        for (const f of files.filter((x) => !ownSites(c).includes(x.site))) {
          for (const route of routes) {
            const outcome = survive(adapter, route.label, route.url, bodies.get(`${f.site}/${f.file}`)!);
            // Another site's file is never this site's lots.
            expect(outcome === 'parse-error' || outcome === 0, `${adapter.name} read lots from ${f.site}/${f.file}`).toBe(true);
          }
        }
      });

      it('never crashes on cut, scrambled or wrong-shaped versions of its own files', () => {
        for (const f of files.filter((x) => ownSites(c).includes(x.site))) {
          for (const damaged of damagedVersions(bodies.get(`${f.site}/${f.file}`)!)) {
            for (const route of routes) survive(adapter, route.label, route.url, damaged.body);
          }
        }
      });

      it('reads the Cloudflare challenge page as no lots (a ParseError or nothing), never as listings', () => {
        const body = bodies.get('tractorhouse/blocked-cloudflare-challenge_list-tractors_roshtarg_page.html')!;
        for (const route of routes) expect(['parse-error', 0]).toContain(survive(adapter, route.label, route.url, body));
      });

      it('refuses a login wall (login required), a challenge page (blocked) and a foreign site\'s page (layout changed), never as lots', () => {
        // A foreign page: another site's recorded page, as a redirect or a takeover would serve it.
        const foreignPage = bodies.get(
          adapter.name === 'gsaauctions' ? 'municibid-next/browse_desks_chairs_active.html' : 'gsaauctions/api-v2-auctions_Results_SELECTED-20-items_BlackWhole_discover_sample.json',
        )!;
        for (const route of routes) {
          expect(stateOf(adapter, route, LOGIN_WALL), `${route.url} login wall`).toBe('login required');
          // The same login form answered with 200 (a redirect followed to it) is still a login wall.
          expect(stateOf(adapter, route, { status: 200, body: LOGIN_WALL.body }), `${route.url} login form`).toBe('login required');
          expect(stateOf(adapter, route, { status: 200, body: CHALLENGE() }), `${route.url} challenge`).toBe('blocked');
          expect(['layout changed', 'nothing (empty page)', 'not found'], `${route.url} foreign page`).toContain(stateOf(adapter, route, { status: 200, body: foreignPage }));
        }
        // A list route on a foreign page with content says "layout changed", not "empty".
        const list = routes.find((r) => r.label === 'list')!;
        expect(stateOf(adapter, list, { status: 200, body: foreignPage })).toBe('layout changed');
      });
    });
  }
});

describe('login wall detection on the recorded pages', () => {
  it('takes none of the real recorded pages and API answers for a login wall', () => {
    for (const f of files) expect(detectLoginWall({ status: 200, url: 'https://example.com/list', body: bodies.get(`${f.site}/${f.file}`)! }, 'https://example.com/list'), `${f.site}/${f.file}`).toBeNull();
  });
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
