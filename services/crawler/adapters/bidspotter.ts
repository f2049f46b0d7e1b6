/**
 * BidSpotter — server-rendered search results (`/en-us/search-results?searchTerm=…&page=N`).
 * Each `div.lot-single` card has the lot GUID, title, lot page link, image (`data-src`),
 * location ("City, State") and currency; the page's `gapAmplitudeConfig.forItem` JSON gives
 * each lot's UTC end time; `ul.pagination-content[data-pages]` the page count.
 *
 * Prices are not in the cards: the page loads them afterwards from a second endpoint, and so do
 * we — one batched `POST /en-us/lot/reload-timed-bid-info?v=1.3.0.1&c=lotsearch` per search page,
 * JSON body `[{"LotId": guid, "BidderHasBids": false}, …]`, answered with one `{"Model": {…}}`
 * row per lot (request shape as a public scraper verified it live on 2026-07-21; the response is
 * recorded). Each row is a partial update merged into the card's listing: bid, bid count, opening
 * price, currency, end time, open/closed/sold. The cards therefore carry no status: the bid
 * info's is the site's own, and a card's end-time guess would flip it back on every crawl.
 *
 * Bids are per unit: the page's own bid form shows "(bid x quantity = sum)", and the recorded
 * rows have TotalHammerPrice = HammerPrice × Quantity (7 × 43 = 301). The lot's price is the
 * total — what the buyer pays for the lot.
 */
import * as cheerio from 'cheerio';
import type { Config } from '../../shared/config.js';
import { createRouter, ParseError, type AdapterEnv, type CrawlStep, type FetchedPage, type HttpRequest, type RouteResult, type SourceAdapter } from '../adapter.js';
import type { LotPatch, ScrapedListing } from '../../shared/lots/normalize-listing.js';
import { isObject, isoInstant, num, parseJsonBody, sourceBaseUrl, sourceHosts, str, type JsonObject } from './adapter-support.js';

export const BIDSPOTTER_DEFAULT_BASE_URL = 'https://www.bidspotter.com';
const PUBLIC_SITE = 'https://www.bidspotter.com';
export const BIDSPOTTER_SEARCH_TERMS = ['excavator', 'wheel loader', 'dozer', 'skid steer', 'backhoe', 'motor grader', 'compactor', 'crane', 'generator', 'dump truck'];
const MAX_PAGES = 20;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const BIDSPOTTER_BID_INFO_PATH = '/en-us/lot/reload-timed-bid-info?v=1.3.0.1&c=lotsearch';
/** A search page shows 60 cards; the site asks for all of a page's bids in one call. */
const MAX_LOTS_PER_BID_INFO = 120;

function amplitudeForItem(html: string): Record<string, JsonObject> {
  const m = /window\.gapAmplitudeConfig\.forItem\s*=\s*(\{[\s\S]*?\});/.exec(html);
  if (!m) return {};
  try {
    const data: unknown = JSON.parse(m[1]!);
    return isObject(data) ? (Object.fromEntries(Object.entries(data).filter(([, v]) => isObject(v))) as Record<string, JsonObject>) : {};
  } catch {
    return {};
  }
}

export function parseBidSpotterSearch(page: FetchedPage, env: AdapterEnv): RouteResult {
  const $ = cheerio.load(page.body);
  const cards = $('div.lot-single[id^="lot-"]');
  const pager = $('ul.pagination-content[data-pages]').first();
  if (cards.length === 0 && pager.length === 0 && !/search-results-items-info/.test(page.body)) throw new ParseError('BidSpotter search: no lot cards or result counter');
  const meta = amplitudeForItem(page.body);
  const listings: ScrapedListing[] = [];
  cards.each((_, el) => {
    const card = $(el);
    const guid = card.attr('id')!.slice('lot-'.length).toLowerCase();
    if (!GUID.test(guid)) return;
    const link = card.find('h3 a[href]').first();
    const href = link.attr('href') ?? card.find('a.lot-link[href]').first().attr('href');
    const title = (card.find('.lot-title').first().text() || link.text()).replace(/\s+/g, ' ').trim();
    if (!href || !href.startsWith('/') || !title) return;
    const location = card.find('.lotlocation strong').first().text().replace(/\s+/g, ' ').trim();
    const [city, ...rest] = location.split(',').map((s) => s.trim());
    const image = card.find(`img#i${guid}`).attr('data-src') ?? card.find('img[data-src]').first().attr('data-src');
    const endsAt = isoInstant(meta[guid]?.['Lot End Time UTC']);
    listings.push({
      externalId: guid,
      title,
      url: `${PUBLIC_SITE}${href}`,
      description: card.find('.description').first().text().trim(),
      city: city || null,
      state: rest.length > 0 ? rest.join(', ') : null,
      currency: str(card.attr('data-currency')),
      endsAt,
      images: image && /^https?:\/\//.test(image) ? [image] : [],
      raw: { guid, title, href, location, image: image ?? null, meta: meta[guid] ?? null },
    });
  });
  if (cards.length > 0 && listings.length === 0) throw new ParseError('BidSpotter search: no card has a lot id, title and link');
  const next: CrawlStep[] = [];
  const current = page.step.page ?? 1;
  const lotIds = [...new Set(listings.map((l) => l.externalId))].slice(0, MAX_LOTS_PER_BID_INFO);
  if (lotIds.length > 0) {
    // One step per search page: (url, page, externalId) names it, lotIds says what it asks.
    const term = new URL(page.step.url).searchParams.get('searchTerm') ?? '';
    next.push({ label: 'update', url: `${env.baseUrl}${BIDSPOTTER_BID_INFO_PATH}`, page: current, externalId: `bids:${term.slice(0, 100)}`, lotIds });
  }
  const pages = num(pager.attr('data-pages'));
  if (pages !== null && current < Math.min(pages, MAX_PAGES) && listings.length > 0) {
    const url = new URL(page.step.url);
    url.searchParams.set('page', String(current + 1));
    next.push({ label: 'list', url: url.href, page: current + 1 });
  }
  return { listings, next };
}

/** `/Date(1787676000000)/` → that instant. */
function dotNetDate(value: unknown): Date | null {
  const m = typeof value === 'string' ? /^\/Date\((\d{10,15})\)\/$/.exec(value.trim()) : null;
  if (!m) return null;
  const d = new Date(Number(m[1]));
  return Number.isFinite(d.getTime()) ? d : null;
}

/** One bid-info row → a partial update of its lot (bids, price, end time, status), or null without a lot id. */
export function bidSpotterBidInfoToUpdate(row: JsonObject): LotPatch | null {
  const model = isObject(row.Model) ? row.Model : row;
  const guid = str(model.LotId);
  if (!guid || !GUID.test(guid)) return null;
  const bids = num(model.TotalBids);
  const quantity = num(model.Quantity);
  const units = quantity !== null && Number.isInteger(quantity) && quantity >= 1 ? quantity : 1;
  const perUnit = (value: unknown) => {
    const n = num(value);
    return n === null ? null : Math.round(n * units * 100) / 100;
  };
  const closed = model.LotClosed === true || model.IsBiddingClosed === true;
  const sold = closed && bids !== null && bids > 0 && model.ReserveMet === true;
  const update: LotPatch = {
    externalId: guid.toLowerCase(),
    currency: str(model.Currency),
    bidCount: bids,
    currentBid: bids !== null && bids > 0 ? perUnit(model.LeadingBid) : null,
    // With no bids the figure to beat is the opening price.
    askingPrice: bids === 0 ? perUnit(model.StartPrice) : null,
    status: sold ? 'sold' : closed ? 'closed' : 'open',
    soldPrice: sold ? (num(model.TotalHammerPrice) ?? perUnit(model.HammerPrice)) : null,
    raw: model,
  };
  const endsAt = dotNetDate(model.EndTimeUtc);
  if (endsAt) update.endsAt = endsAt;
  return update;
}

/** The bid-info answer: a JSON array of `{"Model": {…}}` rows → partial updates. */
export function parseBidSpotterBidInfo(page: FetchedPage): RouteResult {
  const data = parseJsonBody(page.body, 'BidSpotter bid info');
  if (!Array.isArray(data)) throw new ParseError('BidSpotter bid info: not a list of rows');
  const updates = data
    .filter(isObject)
    .map(bidSpotterBidInfoToUpdate)
    .filter((u): u is LotPatch => u !== null);
  if (data.length > 0 && updates.length === 0) throw new ParseError('BidSpotter bid info: no row has a lot id');
  return { listings: [], updates, next: [] };
}

export const bidSpotterAdapter: SourceAdapter = {
  name: 'bidspotter',
  displayName: 'BidSpotter',
  accessKind: 'html',
  fetcher: 'http',
  baseUrl: (config: Config) => sourceBaseUrl(config, 'bidspotter', BIDSPOTTER_DEFAULT_BASE_URL),
  hosts: (config: Config) => sourceHosts(config, 'bidspotter', BIDSPOTTER_DEFAULT_BASE_URL),
  politeness: { minDelayMs: 5000, maxConcurrency: 1 },
  obeyRobots: true,
  start: (env) => BIDSPOTTER_SEARCH_TERMS.map((term) => ({ label: 'list' as const, url: `${env.baseUrl}/en-us/search-results?${new URLSearchParams({ searchTerm: term, page: '1' })}`, page: 1 })),
  request: (step): HttpRequest => {
    if (step.label !== 'update') return { url: step.url };
    const body = JSON.stringify((step.lotIds ?? []).map((id) => ({ LotId: id, BidderHasBids: false })));
    return { url: step.url, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body };
  },
  router: createRouter({ list: parseBidSpotterSearch, update: parseBidSpotterBidInfo }),
};
