/**
 * Ritchie Bros. (rbauction.com) — a Next.js site. A category page (`/cp/{category}`) names its
 * build in `__NEXT_DATA__`; the same page's data is then `GET /_next/data/{buildId}/en-US/cp/
 * {category}.json?listingStatuses=Sold&from=N`, whose `pageProps.data.results.records` are the
 * search records: description, make, model, year, hours, location, bidding end time, image,
 * item/lot/sale numbers and listing status. Sold prices are not in them (they need a signed-in
 * account), so sold lots carry no price here; there is no lot page slug either, so a lot's URL
 * is its category page. `POST /api/search` answers the same records (or, asked for none, only
 * facet counts — then there is nothing to list).
 */
import type { Config } from '../../shared/config.js';
import { createRouter, ParseError, type CrawlStep, type FetchedPage, type RouteResult, type SourceAdapter } from '../adapter.js';
import type { ScrapedListing } from '../../shared/lots/normalize-listing.js';
import { isObject, isoInstant, num, parseJsonBody, sourceBaseUrl, sourceHosts, str, type JsonObject } from './adapter-support.js';

export const RB_DEFAULT_BASE_URL = 'https://www.rbauction.com';
const PUBLIC_SITE = 'https://www.rbauction.com';
export const RB_CATEGORIES = ['mini-excavator-6-6t', 'tracked-excavator', 'wheel-excavator', 'highway-wheeled-excavator', 'track-excavator-70t'];
const COUNTRY: Record<string, string> = { USA: 'US', CAN: 'CA', AUS: 'AU', MEX: 'MX', NLD: 'NL', ESP: 'ES', ITA: 'IT', DEU: 'DE', FRA: 'FR', GBR: 'GB', ARE: 'AE', NZL: 'NZ' };
const STATUS: Record<string, ScrapedListing['status']> = { sold: 'sold', open: 'open', upcoming: 'open', active: 'open', closed: 'closed', unsold: 'closed' };

function categoryOf(url: string): string | null {
  return /\/cp\/([a-z0-9-]+)(?:\.json)?(?:[?#]|$)/.exec(new URL(url).pathname + new URL(url).search)?.[1] ?? null;
}

export function rbRecordToListing(record: JsonObject, categoryPage: string): ScrapedListing | null {
  const id = str(record.itemNumber) ?? str(record.assetGUID);
  const title = str(record.assetDescription);
  if (!id || !title) return null;
  const status = str(record.listingStatus);
  const country = str(record.locationCountry);
  const hours = num(record.usageHours);
  return {
    externalId: id,
    title,
    url: categoryPage,
    description: str(record.features) ?? '',
    make: str(record.manufacturerLocalized),
    model: str(record.modelLocalized),
    year: num(record.manufactureYear),
    hours,
    category: str(record.assetTypeLocalized) ?? str(record.categoryLocalized),
    city: str(record.locationCity),
    state: country === 'USA' ? str(record.locationState) : null,
    country: country ? (COUNTRY[country] ?? null) : null,
    currency: str(record.priceCurrency),
    status: status ? (STATUS[status.toLowerCase()] ?? null) : null,
    // Either an ISO instant or epoch milliseconds, both seen in the same response.
    endsAt: typeof record.biddingEndTime === 'number' ? record.biddingEndTime : isoInstant(record.biddingEndTime),
    images: [str(record.imageUrl)].filter((u): u is string => u !== null && /^https?:\/\//.test(u)),
    raw: record,
  };
}

function resultsOf(data: unknown): JsonObject | null {
  if (!isObject(data)) return null;
  if (isObject(data.results)) return data.results;
  const pageProps = isObject(data.pageProps) ? data.pageProps : null;
  const inner = pageProps && isObject(pageProps.data) ? pageProps.data : null;
  return inner && isObject(inner.results) ? inner.results : null;
}

/** Search records (Next.js data or the search API) → listings, and the next `from` while more remain. */
export function parseRbRecords(page: FetchedPage): RouteResult {
  const results = resultsOf(parseJsonBody(page.body, 'Ritchie Bros. search data'));
  if (!results) throw new ParseError('Ritchie Bros. search data: no results object');
  const records = results.records;
  if (records === undefined || records === null) {
    // Asked for no records (size 0): only counts and facets.
    if (num(results.returnedAmount) === 0) return { listings: [], next: [] };
    throw new ParseError('Ritchie Bros. search data: no records');
  }
  if (!Array.isArray(records)) throw new ParseError('Ritchie Bros. search data: records is not a list');
  const category = categoryOf(page.step.url);
  const categoryPage = category ? `${PUBLIC_SITE}/cp/${category}` : PUBLIC_SITE;
  const listings = records
    .filter(isObject)
    .map((r) => rbRecordToListing(r, categoryPage))
    .filter((l): l is ScrapedListing => l !== null);
  if (records.length > 0 && listings.length === 0) throw new ParseError('Ritchie Bros. search data: no record has an item number and description');
  const next: CrawlStep[] = [];
  const total = num(results.totalAmount);
  const url = new URL(page.step.url);
  const from = num(url.searchParams.get('from')) ?? 0;
  if (records.length > 0 && total !== null && from + records.length < total && url.pathname.endsWith('.json')) {
    url.searchParams.set('from', String(from + records.length));
    next.push({ label: 'list', url: url.href, page: (page.step.page ?? 1) + 1 });
  }
  return { listings, next };
}

/** A category page: its build id leads to the page's data. */
export function parseRbCategoryPage(page: FetchedPage, baseUrl: string): RouteResult {
  const buildId = /"buildId"\s*:\s*"([A-Za-z0-9_-]{1,100})"/.exec(page.body)?.[1];
  const category = categoryOf(page.step.url);
  if (!buildId || !category) throw new ParseError('Ritchie Bros. category page: no Next.js build id');
  return { listings: [], next: [{ label: 'list', url: `${baseUrl}/_next/data/${buildId}/en-US/cp/${category}.json?listingStatuses=Sold&from=0`, page: 1 }] };
}

export const rbAuctionAdapter: SourceAdapter = {
  name: 'rbauction',
  displayName: 'Ritchie Bros.',
  accessKind: 'api',
  fetcher: 'http',
  baseUrl: (config: Config) => sourceBaseUrl(config, 'rbauction', RB_DEFAULT_BASE_URL),
  hosts: (config: Config) => sourceHosts(config, 'rbauction', RB_DEFAULT_BASE_URL),
  politeness: { minDelayMs: 5000, maxConcurrency: 1 },
  obeyRobots: true,
  start: (env) => RB_CATEGORIES.map((c) => ({ label: 'list' as const, url: `${env.baseUrl}/cp/${c}`, page: 0 })),
  router: createRouter({
    list: (page, env) => (/\.json$/.test(new URL(page.url).pathname) || /\/api\/search$/.test(new URL(page.url).pathname) ? parseRbRecords(page) : parseRbCategoryPage(page, env.baseUrl)),
  }),
};
