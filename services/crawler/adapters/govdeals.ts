/**
 * GovDeals (Liquidity Services). The govdeals.com web app is a JavaScript front end over a JSON
 * back end on maestro.lqdt1.com: `POST /search/list` (a page of asset results with bid, bid
 * count, location, UTC end time, photo) and `POST /assets/{assetId}/{accountId}/false` (one
 * asset: description, photos, attributes — no bid or price, and an end time in Eastern time
 * without an offset). Public lot page: `https://www.govdeals.com/asset/{assetId}/{accountId}`.
 * The asset answer is a partial update of the lot the search stored: it carries no bid, bid count
 * or price, so a re-check keeps the search's.
 *
 * Disabled by default: that back end is the site's private API, keyed for its own front end;
 * no public API or published permission for automated use was found (see README "Sources").
 */
import type { Config } from '../../shared/config.js';
import { createRouter, ParseError, type CrawlStep, type FetchedPage, type HttpRequest, type RouteResult, type SourceAdapter } from '../adapter.js';
import type { LotPatch, ScrapedListing } from '../../shared/lots/normalize-listing.js';
import { isObject, isoInstant, isoLocalToUtc, num, parseJsonBody, sourceBaseUrl, str, type JsonObject } from './adapter-support.js';

export const GOVDEALS_DEFAULT_BASE_URL = 'https://maestro.lqdt1.com';
const PUBLIC_SITE = 'https://www.govdeals.com';
const PHOTO_HOST = 'https://files.lqdt1.com';
export const GOVDEALS_PAGE_SIZE = 24;
const EASTERN = 'America/New_York';

function lotUrl(assetId: string, accountId: string): string {
  return `${PUBLIC_SITE}/asset/${assetId}/${accountId}`;
}

function statusAt(endsAt: Date | null, sold: boolean, fetchedAt: Date): ScrapedListing['status'] {
  if (sold) return 'sold';
  if (endsAt && endsAt.getTime() <= fetchedAt.getTime()) return 'closed';
  return 'open';
}

/** One `assetSearchResults` item → a listing, or null without asset/account id and title. */
export function govDealsSearchItemToListing(item: JsonObject, fetchedAt: Date): ScrapedListing | null {
  const assetId = str(item.assetId);
  const accountId = str(item.accountId);
  const title = str(item.assetShortDescription);
  if (!assetId || !accountId || !title) return null;
  const bidCount = num(item.bidCount);
  const bid = num(item.currentBid);
  const endsAt = isoInstant(item.assetAuctionEndDateUtc);
  const photo = str(item.photo);
  return {
    externalId: `${assetId}-${accountId}`,
    title,
    url: lotUrl(assetId, accountId),
    description: str(item.assetLongDescription) ?? '',
    make: str(item.makebrand),
    model: str(item.model),
    year: str(item.modelYear),
    category: str(item.categoryDescription),
    city: str(item.locationCity),
    state: str(item.locationState),
    country: str(item.country) === 'USA' ? 'US' : null,
    currency: str(item.currencyCode),
    // With no bids the amount shown is the opening bid, an asking price rather than a bid.
    currentBid: bidCount !== null && bidCount > 0 ? bid : null,
    askingPrice: bidCount === 0 ? bid : null,
    bidCount,
    status: statusAt(endsAt, item.isSoldAuction === true, fetchedAt),
    endsAt,
    images: photo ? [`${PHOTO_HOST}/photos/${encodeURIComponent(accountId)}/${photo}`] : [],
    raw: item,
  };
}

/** A search page (an array of results, or `{assetSearchResults: [...]}`) → listings and the next page. */
export function parseGovDealsSearch(page: FetchedPage): RouteResult {
  const data = parseJsonBody(page.body, 'GovDeals search');
  const items = Array.isArray(data) ? data : isObject(data) && Array.isArray(data.assetSearchResults) ? data.assetSearchResults : null;
  if (!items) throw new ParseError('GovDeals search: no asset results array');
  const listings = items
    .filter(isObject)
    .map((item) => govDealsSearchItemToListing(item, page.fetchedAt))
    .filter((l): l is ScrapedListing => l !== null);
  if (items.length > 0 && listings.length === 0) throw new ParseError('GovDeals search: no result has an asset id, account id and title');
  const next: CrawlStep[] = items.length >= GOVDEALS_PAGE_SIZE ? [{ label: 'list', url: page.step.url, page: (page.step.page ?? 1) + 1 }] : [];
  return { listings, next };
}

/** One asset's detail → a partial update of its lot (no bid or price: the endpoint carries none). */
export function parseGovDealsAsset(page: FetchedPage): RouteResult {
  const data = parseJsonBody(page.body, 'GovDeals asset');
  if (!isObject(data)) throw new ParseError('GovDeals asset: not an object');
  const assetId = str(data.assetId);
  const accountId = str(data.accountId);
  const title = str(data.assetShortDesc);
  if (!assetId || !accountId || !title) throw new ParseError('GovDeals asset: no asset id, account id or title');
  const endsAt = isoLocalToUtc(data.assetAuctionEndDate, EASTERN);
  const photos = Array.isArray(data.assetPhotos) ? data.assetPhotos.map(str).filter((p): p is string => p !== null) : [];
  const condition = Array.isArray(data.assetAttributeGroups)
    ? data.assetAttributeGroups
        .filter(isObject)
        .flatMap((g) => (Array.isArray(g.assetAttributes) ? g.assetAttributes.filter(isObject) : []))
        .find((a) => str(a.label)?.toLowerCase() === 'condition')
    : undefined;
  const update: LotPatch = {
    externalId: `${assetId}-${accountId}`,
    title,
    url: lotUrl(assetId, accountId),
    description: str(data.assetLongDesc) ?? '',
    make: str(data.makebrand),
    model: str(data.model),
    year: str(data.modelYear),
    hours: num(data.meterCount),
    condition: condition ? str(condition.value) : null,
    category: str(data.catDesc),
    city: str(data.city),
    state: str(data.state),
    country: str(data.country) === 'USA' ? 'US' : null,
    currency: str(data.currencyCode),
    status: statusAt(endsAt, false, page.fetchedAt),
    endsAt,
    images: photos.map((p) => (p.startsWith('/') ? `${PHOTO_HOST}${p}` : p)),
    raw: data,
  };
  return { listings: [], updates: [update], next: [] };
}

function searchBody(page: number): string {
  return JSON.stringify({
    categoryIds: '',
    businessId: 'GD',
    searchText: '*',
    isQAL: false,
    locationId: null,
    model: '',
    makebrand: '',
    auctionTypeId: null,
    page,
    displayRows: GOVDEALS_PAGE_SIZE,
    sortField: 'auctionclose',
    sortOrder: 'asc',
    requestType: 'search',
    responseStyle: 'productsOnly',
  });
}

export const govDealsAdapter: SourceAdapter = {
  name: 'govdeals',
  displayName: 'GovDeals',
  accessKind: 'api',
  disabledReason: "GovDeals' search API (maestro.lqdt1.com) is its web app's private back end; no public API or permission for automated use is published",
  fetcher: 'http',
  baseUrl: (config: Config) => sourceBaseUrl(config, 'govdeals', GOVDEALS_DEFAULT_BASE_URL),
  politeness: { minDelayMs: 3000, maxConcurrency: 1 },
  obeyRobots: true,
  start: (env) => [{ label: 'list', url: `${env.baseUrl}/search/list`, page: 1 }],
  request: (step, env): HttpRequest => {
    if (step.label === 'list') return { url: step.url, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: searchBody(step.page ?? 1) };
    // A detail step names the public lot page; the data comes from the asset endpoint.
    const ids = /\/asset\/(\d+)\/(\d+)/.exec(step.url);
    const url = ids ? `${env.baseUrl}/assets/${ids[1]}/${ids[2]}/false` : step.url;
    return { url, method: 'POST', headers: { accept: 'application/json' }, body: '' };
  },
  router: createRouter({ list: parseGovDealsSearch, detail: parseGovDealsAsset }),
};
