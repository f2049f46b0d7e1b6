/**
 * GSA Auctions — the U.S. General Services Administration's official public API
 * (api.data.gov, `X-API-KEY`, DEMO_KEY allowed at low volume). One GET returns every current
 * lot (about a thousand, not paginated), so a crawl is a single call: far inside the documented
 * limits of 5 calls per 5 seconds and 5,000 a day, which the politeness settings enforce anyway.
 *
 * What the feed carries: lot name and HTML description, high bid, number of bidders, property
 * location, start/end *dates* (no time of day), one image and the public lot page. No make,
 * model, year, hours or buyer's premium: those stay absent (make/model/year may still come from
 * the title through the normaliser).
 */
import type { Config } from '../../shared/config.js';
import { createRouter, ParseError, type FetchedPage, type RouteResult, type SourceAdapter } from '../adapter.js';
import type { ScrapedListing } from '../../shared/lots/normalize-listing.js';
import { isObject, num, parseJsonBody, sourceBaseUrl, str, type JsonObject } from './adapter-support.js';

export const GSA_DEFAULT_BASE_URL = 'https://api.gsa.gov';
export const GSA_AUCTIONS_PATH = '/assets/gsaauctions/v2/auctions?format=JSON';

const STATUS: Record<string, ScrapedListing['status']> = {
  active: 'open',
  preview: 'open',
  open: 'open',
  closed: 'closed',
  ended: 'closed',
  awarded: 'sold',
  sold: 'sold',
};

/** One feed item → a listing, or null when it lacks what identifies a lot (sale/lot number, name, page). */
export function gsaItemToListing(item: JsonObject): ScrapedListing | null {
  const saleNo = str(item.saleNo);
  const lotNo = str(item.lotNo);
  const title = str(item.itemName);
  const url = str(item.itemDescURL);
  if (!saleNo || !lotNo || !title || !url || !/^https?:\/\//.test(url)) return null;
  const status = str(item.auctionStatus);
  const endDate = str(item.aucEndDt);
  const description = str(item.lotInfo) ?? '';
  return {
    externalId: `${saleNo}-${lotNo}`,
    title,
    url,
    // The feed gives the closing date without a time of day: kept as text, never turned into an instant.
    description: endDate && /^\d{4}-\d{2}-\d{2}$/.test(endDate) ? `Auction closes on ${endDate}.\n${description}` : description,
    city: str(item.propertyCity),
    state: str(item.propertyState),
    country: 'US',
    currency: 'USD',
    currentBid: num(item.highBidAmount),
    // GSA publishes how many bidders a lot has, not how many bids: every bidder bid at least once.
    bidCount: num(item.biddersCount),
    status: status ? (STATUS[status.toLowerCase()] ?? null) : null,
    images: [str(item.imageURL)].filter((u): u is string => u !== null),
    raw: item,
  };
}

/** The auctions feed (`{"Results": [...]}`) → listings. */
export function parseGsaAuctions(page: FetchedPage): RouteResult {
  const data = parseJsonBody(page.body, 'GSA auctions feed');
  if (!isObject(data) || !Array.isArray(data.Results)) throw new ParseError('GSA auctions feed: no "Results" array');
  const listings = data.Results.filter(isObject)
    .map(gsaItemToListing)
    .filter((l): l is ScrapedListing => l !== null);
  if (data.Results.length > 0 && listings.length === 0) throw new ParseError('GSA auctions feed: no item has a sale number, lot number, name and page');
  return { listings, next: [] };
}

export const gsaAuctionsAdapter: SourceAdapter = {
  name: 'gsaauctions',
  displayName: 'GSA Auctions (official API)',
  accessKind: 'api',
  fetcher: 'http',
  baseUrl: (config: Config) => sourceBaseUrl(config, 'gsaauctions', GSA_DEFAULT_BASE_URL),
  // Documented limit: 5 calls per 5 seconds (and 5,000 a day; a crawl is one call).
  politeness: { minDelayMs: 1000, maxConcurrency: 1 },
  // An official API with its own documented limits; robots.txt governs web pages, not this key-based API.
  obeyRobots: false,
  start: (env) => [{ label: 'list', url: `${env.baseUrl}${GSA_AUCTIONS_PATH}`, page: 1 }],
  request: (step, env) => ({ url: step.url, method: 'GET', headers: { 'X-API-KEY': env.config.GSA_API_KEY, accept: 'application/json' } }),
  router: createRouter({ list: (page) => parseGsaAuctions(page) }),
};
