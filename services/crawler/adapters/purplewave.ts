/**
 * Purple Wave — its site search is served as JSON by `GET /v1/search/search` (the web app's own
 * endpoint): items with year, hours/miles, current bid, bid count, sold flag and contract
 * price, location, epoch end time and image file names. Two sweeps: upcoming lots (open) and
 * past lots (sold results, hammer price). Lot page: `/auction/{auction}/item/{item}`.
 *
 * Purple Wave writes 0 for "not applicable" in `year` and `hours` (furniture lots carry 0 in
 * both), so 0 is read as absent there. The buyer's premium is only stated in prose
 * ("A 10% buyer's premium will be added…"), read from that sentence when present.
 */
import type { Config } from '../../shared/config.js';
import { createRouter, ParseError, type CrawlStep, type FetchedPage, type RouteResult, type SourceAdapter } from '../adapter.js';
import type { ScrapedListing } from '../../shared/lots/normalize-listing.js';
import { isObject, num, parseJsonBody, sourceBaseUrl, sourceHosts, str, type JsonObject } from './adapter-support.js';

export const PURPLEWAVE_DEFAULT_BASE_URL = 'https://www.purplewave.com';
const PUBLIC_SITE = 'https://www.purplewave.com';
export const PURPLEWAVE_PAGE_SIZE = 100;

function positive(value: unknown): number | null {
  const n = num(value);
  return n !== null && n > 0 ? n : null;
}

export function buyersPremiumFromText(html: string | null): number | null {
  if (!html) return null;
  const m = /(\d{1,2}(?:\.\d{1,2})?)\s*%\s*buyer(?:'|’)?s premium/i.exec(html);
  return m ? Number(m[1]) : null;
}

export function purpleWaveItemToListing(item: JsonObject): ScrapedListing | null {
  const auction = str(item.auction);
  const lot = str(item.item);
  const title = str(item.first_line_description);
  if (!auction || !lot || !title || !/^[\w-]+$/.test(auction) || !/^[\w-]+$/.test(lot)) return null;
  const sold = str(item.sold)?.toLowerCase() === 'yes';
  const closed = num(item.closed) === 1 || num(item.auction_closed) === 1;
  const bid = num(item.current_bid);
  const imageBase = str(item.image_url);
  const files = Array.isArray(item.image_files) ? item.image_files.map(str).filter((f): f is string => f !== null) : [];
  return {
    externalId: `${auction}-${lot}`,
    title,
    url: `${PUBLIC_SITE}/auction/${auction}/item/${lot}`,
    description: str(item.new_description) ?? str(item.description) ?? '',
    make: str(item.top_mfg),
    year: positive(item.year),
    hours: positive(item.hours),
    category: str(item.category) ?? str(item.family_category),
    city: str(item.city),
    state: str(item.state_abbreviation),
    country: 'US',
    currency: 'USD',
    currentBid: bid,
    bidCount: num(item.bid_count),
    buyersPremiumPct: buyersPremiumFromText(str(item.additionalDescription)),
    status: sold ? 'sold' : closed ? 'closed' : 'open',
    // Hammer price; `contract_price` adds the buyer's premium.
    soldPrice: sold ? bid : null,
    endsAt: positive(item.endtime),
    images: imageBase && /^https?:\/\//.test(imageBase) ? files.map((f) => `${imageBase.replace(/\/+$/, '')}/${encodeURIComponent(f)}`) : [],
    raw: item,
  };
}

function itemsOf(data: unknown): unknown[] | null {
  if (Array.isArray(data)) return data;
  if (!isObject(data)) return null;
  for (const key of ['items', 'results', 'hits', 'data']) if (Array.isArray(data[key])) return data[key] as unknown[];
  return null;
}

export function parsePurpleWaveSearch(page: FetchedPage): RouteResult {
  const items = itemsOf(parseJsonBody(page.body, 'Purple Wave search'));
  if (!items) throw new ParseError('Purple Wave search: no item array');
  const listings = items
    .filter(isObject)
    .map(purpleWaveItemToListing)
    .filter((l): l is ScrapedListing => l !== null);
  if (items.length > 0 && listings.length === 0) throw new ParseError('Purple Wave search: no item has an auction, item number and description');
  let next: CrawlStep[] = [];
  if (items.length >= PURPLEWAVE_PAGE_SIZE) {
    const url = new URL(page.step.url);
    const nextPage = (page.step.page ?? 1) + 1;
    url.searchParams.set('page', String(nextPage));
    next = [{ label: 'list', url: url.href, page: nextPage }];
  }
  return { listings, next };
}

function searchUrl(base: string, dateType: 'upcoming' | 'past'): string {
  return `${base}/v1/search/search?searchType=all&dateType=${dateType}&perPage=${PURPLEWAVE_PAGE_SIZE}&page=1`;
}

export const purpleWaveAdapter: SourceAdapter = {
  name: 'purplewave',
  displayName: 'Purple Wave',
  accessKind: 'api',
  fetcher: 'http',
  baseUrl: (config: Config) => sourceBaseUrl(config, 'purplewave', PURPLEWAVE_DEFAULT_BASE_URL),
  hosts: (config: Config) => sourceHosts(config, 'purplewave', PURPLEWAVE_DEFAULT_BASE_URL),
  politeness: { minDelayMs: 3000, maxConcurrency: 1 },
  obeyRobots: true,
  start: (env) => [
    { label: 'list', url: searchUrl(env.baseUrl, 'upcoming'), page: 1 },
    { label: 'list', url: searchUrl(env.baseUrl, 'past'), page: 1 },
  ],
  request: (step) => ({ url: step.url, method: 'GET', headers: { accept: 'application/json' } }),
  router: createRouter({ list: parsePurpleWaveSearch }),
};
