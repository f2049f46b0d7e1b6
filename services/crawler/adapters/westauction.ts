/**
 * West Auctions — the JSON API behind westauction.com: `POST /api/auctions` (form `past_sales`,
 * `page`) lists auctions; `POST /api/auctions/{id}/items` (form `page`, about 12 per page) lists
 * an auction's lots. Every value is a string. Lots carry title, HTML description with a
 * `tpl_fields_data` list, or the same lines loose (Year, Make/Manufacturer/Mfg, Model, Hours/Hour Meter Reads,
 * Condition…), current bid (the hammer price once closed), bid count, location and end time.
 *
 * `end_time` looks like ISO-8601 with `+0300`, but the offset is wrong: its clock part is UTC
 * (checked upstream on 31,124 lots against `end_time_display` in Pacific time), so the clock is
 * read as UTC and the offset ignored; `end_time_unix` is 2 h early and not used.
 * `buyer_premium` is "0.000" on most lots, including lots of auctions that do charge a premium,
 * so only a positive value is taken. A lot has no public page of its own in the API: its URL is
 * the auction's public bid gallery (from the auction record), else the lot's API link.
 *
 * Images: a lot record has only a thumbnail; the gallery is `GET /api/auctions/{id}/items/{lot}/images`
 * (`data[]` of `image_url`/`thumb_url`, in the site's order). Each lot of an items page queues that
 * call as an update step, and the full-size gallery is merged into the lot the items page stored.
 * The items page itself carries no images, so an hourly re-crawl never swaps the gallery back to
 * the thumbnail.
 */
import type { Config } from '../../shared/config.js';
import { createRouter, ParseError, type AdapterEnv, type CrawlStep, type FetchedPage, type HttpRequest, type RouteResult, type SourceAdapter } from '../adapter.js';
import type { LotPatch, ScrapedListing } from '../../shared/lots/normalize-listing.js';
import { cleanLine } from '../../shared/lots/text.js';
import { isObject, num, parseJsonBody, sourceBaseUrl, sourceHosts, str, zonedTimeToUtc, type JsonObject } from './adapter-support.js';

export const WEST_DEFAULT_BASE_URL = 'https://www.westauction.com';
const PUBLIC_SITE = 'https://www.westauction.com';
export const WEST_ITEMS_PER_PAGE = 12;
const MAX_AUCTION_PAGES = 5;
const AUCTION_SLUG = /^[a-z0-9-]{1,200}$/;

/** `2025-10-30T17:04:00+0300` → 2025-10-30T17:04:00Z (the clock part is UTC; the offset is wrong). */
export function westEndTime(value: unknown): Date | null {
  const m = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})/.exec(value.trim()) : null;
  return m ? zonedTimeToUtc({ year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +m[4]!, minute: +m[5]!, second: +m[6]! }, 'UTC') : null;
}

/** The `Key: value` lines of the description's `tpl_fields_data` list. */
export function westTemplateFields(descriptionHtml: string | null): Map<string, string> {
  const fields = new Map<string, string>();
  if (!descriptionHtml) return fields;
  const html = descriptionHtml.slice(0, 200_000);
  // Most lots keep the list in `div#tpl_fields_data`; older ones have the same `<li>Key: value</li>` lines loose.
  const block = /<div[^>]*id="tpl_fields_data"[^>]*>([\s\S]*?)<\/div>/i.exec(html)?.[1] ?? html;
  for (const li of block.match(/<li[^>]*>[\s\S]*?<\/li>/gi) ?? []) {
    const text = cleanLine(li, 300);
    const colon = text.indexOf(':');
    if (colon <= 0) continue;
    const key = text.slice(0, colon).trim().toLowerCase();
    const value = text.slice(colon + 1).trim();
    if (value && !fields.has(key)) fields.set(key, value);
  }
  return fields;
}

function firstOf(fields: Map<string, string>, keys: string[]): string | null {
  for (const key of keys) {
    const value = fields.get(key);
    if (value && !/^(unknown|n\/?a|none|-+)$/i.test(value)) return value;
  }
  return null;
}

/** A reading that starts with a number ("9,094.3", "98,182 (will increase…)"); prose → null. */
function leadingNumber(value: string | null): string | null {
  return value && /^\s*\d[\d,]*(\.\d+)?\b/.test(value) ? value.trim() : null;
}

export function westLotToListing(lot: JsonObject, fetchedAt: Date, galleryUrl: string | null): ScrapedListing | null {
  const id = str(lot.id);
  const auctionId = str(lot.auction_id);
  const title = str(lot.title);
  if (!id || !auctionId || !title || !/^\d+$/.test(id) || !/^\d+$/.test(auctionId)) return null;
  const description = str(lot.item_description);
  const fields = westTemplateFields(description);
  const year = firstOf(fields, ['year']);
  const bids = num(lot.bid_count);
  const bid = num(lot.current_bid);
  const endsAt = westEndTime(lot.end_time);
  const ended = endsAt !== null && endsAt.getTime() <= fetchedAt.getTime();
  const sold = ended && bids !== null && bids > 0 && bid !== null && bid > 0;
  const premium = num(lot.buyer_premium);
  const minimum = num(lot.minimum_bid);
  const self = Array.isArray(lot.links) ? lot.links.filter(isObject).find((l) => l.rel === 'self') : undefined;
  const selfHref = self ? str(self.href) : null;
  const url = galleryUrl ?? (selfHref && /^https?:\/\//.test(selfHref) ? selfHref : null);
  if (!url) return null;
  return {
    externalId: `${auctionId}-${id}`,
    title,
    url,
    description: description ?? '',
    year: year && /^\d{4}\b/.test(year) ? year.slice(0, 4) : null,
    make: firstOf(fields, ['make', 'manufacturer', 'mfg']),
    model: firstOf(fields, ['model']),
    hours: leadingNumber(firstOf(fields, ['hour meter reads', 'hours', 'hour meter'])),
    condition: firstOf(fields, ['condition']),
    category: str(lot.category_name),
    city: str(lot.mapping_city),
    state: str(lot.state_abbreviation) ?? str(lot.mapping_state),
    country: 'US',
    currency: 'USD',
    currentBid: bids !== null && bids > 0 ? bid : null,
    askingPrice: bids === 0 && !ended && minimum !== null && minimum > 0 ? minimum : null,
    bidCount: bids,
    buyersPremiumPct: premium !== null && premium > 0 ? premium : null,
    status: sold ? 'sold' : ended ? 'closed' : 'open',
    soldPrice: sold ? bid : null,
    endsAt,
    raw: lot,
  };
}

function dataArray(page: FetchedPage, what: string): unknown[] {
  const data = parseJsonBody(page.body, what);
  if (!isObject(data) || !Array.isArray(data.data)) throw new ParseError(`${what}: no "data" array`);
  return data.data;
}

/** `POST /api/auctions`: each auction's first items page, and the next auctions page. */
export function parseWestAuctions(page: FetchedPage, baseUrl: string): RouteResult {
  const auctions = dataArray(page, 'West Auctions auction list').filter(isObject);
  const next: CrawlStep[] = [];
  for (const auction of auctions) {
    const id = str(auction.id);
    if (!id || !/^\d+$/.test(id)) continue;
    const slug = str(auction.auction_id_slug);
    next.push({ label: 'list', url: `${baseUrl}/api/auctions/${id}/items`, page: 1, externalId: slug && AUCTION_SLUG.test(slug) ? `auction:${slug}` : `auction:${id}` });
  }
  const pageNo = page.step.page ?? 1;
  if (auctions.length > 0 && pageNo < MAX_AUCTION_PAGES) next.push({ ...page.step, page: pageNo + 1 });
  return { listings: [], next };
}

/** `POST /api/auctions/{id}/items`: the lots of one page, their galleries, and the next page while pages are full. */
export function parseWestItems(page: FetchedPage, env: AdapterEnv): RouteResult {
  const items = dataArray(page, 'West Auctions items');
  const slug = page.step.externalId?.startsWith('auction:') ? page.step.externalId.slice('auction:'.length) : null;
  const gallery = slug && AUCTION_SLUG.test(slug) && !/^\d+$/.test(slug) ? `${PUBLIC_SITE}/auction/${slug}/bidgallery/` : null;
  const listings = items
    .filter(isObject)
    .map((lot) => westLotToListing(lot, page.fetchedAt, gallery))
    .filter((l): l is ScrapedListing => l !== null);
  if (items.length > 0 && listings.length === 0) throw new ParseError('West Auctions items: no lot has an id, auction id and title');
  const galleries: CrawlStep[] = listings.map((l) => {
    const [auctionId, lotId] = l.externalId.split('-');
    return { label: 'update', url: `${env.baseUrl}/api/auctions/${auctionId}/items/${lotId}/images`, externalId: l.externalId };
  });
  const next: CrawlStep[] = items.length >= WEST_ITEMS_PER_PAGE ? [{ ...page.step, page: (page.step.page ?? 1) + 1 }] : [];
  return { listings, next: [...galleries, ...next] };
}

/** `GET /api/auctions/{id}/items/{lot}/images`: the lot's full-size gallery, in order, as a partial update. */
export function parseWestImages(page: FetchedPage): RouteResult {
  const ids = /\/api\/auctions\/(\d+)\/items\/(\d+)\/images$/.exec(new URL(page.step.url).pathname);
  if (!ids) throw new ParseError('West Auctions images: not an images URL');
  const data = dataArray(page, 'West Auctions images');
  const images = data
    .filter(isObject)
    .map((image) => str(image.image_url) ?? str(image.thumb_url))
    .filter((u): u is string => u !== null && /^https?:\/\//.test(u));
  if (data.length > 0 && images.length === 0) throw new ParseError('West Auctions images: no entry has an image URL');
  // An empty answer says nothing about the lot: no update rather than a blanked gallery.
  const updates: LotPatch[] = images.length > 0 ? [{ externalId: `${ids[1]}-${ids[2]}`, images }] : [];
  return { listings: [], updates, next: [] };
}

export const westAuctionAdapter: SourceAdapter = {
  name: 'westauction',
  displayName: 'West Auctions',
  accessKind: 'api',
  fetcher: 'http',
  baseUrl: (config: Config) => sourceBaseUrl(config, 'westauction', WEST_DEFAULT_BASE_URL),
  hosts: (config: Config) => sourceHosts(config, 'westauction', WEST_DEFAULT_BASE_URL),
  politeness: { minDelayMs: 3000, maxConcurrency: 1 },
  obeyRobots: true,
  start: (env) => [
    { label: 'list', url: `${env.baseUrl}/api/auctions`, page: 1, externalId: 'current' },
    { label: 'list', url: `${env.baseUrl}/api/auctions`, page: 1, externalId: 'past' },
  ],
  request: (step): HttpRequest => {
    if (step.label === 'update') return { url: step.url, headers: { accept: 'application/json' } };
    const form = new URLSearchParams({ page: String(step.page ?? 1) });
    if (/\/api\/auctions$/.test(new URL(step.url).pathname)) {
      form.set('past_sales', step.externalId === 'past' ? '1' : '0');
      form.set('meta_also', '0');
    }
    return { url: step.url, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: form.toString() };
  },
  router: createRouter({
    list: (page, env) => (/\/api\/auctions$/.test(new URL(page.url).pathname) ? parseWestAuctions(page, env.baseUrl) : parseWestItems(page, env)),
    update: parseWestImages,
  }),
};
