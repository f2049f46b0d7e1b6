/**
 * Municibid, in both of its designs. The router reads whichever design a response is in, so the
 * source goes on through a redesign and keeps reading pages still served the old way.
 *
 * New site (2026-10, Next.js App Router): every page carries its data in React Server Components
 * flight rows (see next-flight.ts). A browse page (`/browse`, zero-based `?page=`) holds one
 * `{listing: {id, title, currentPrice, bidCount, endsAtUtc, primaryImageUrl, location,
 * agencyName, sold…}}` per row, a JSON-LD ItemList with each lot's URL, a "Next →" pager link,
 * and "No listings found." when there is nothing to list. A listing page (`/listing/{id}/{slug}`)
 * holds the bid box `{listingId, initial: {currentPrice, bidCount, endsAtUtc, status,
 * reserveMet}}` and the gallery `{images, alt}`. `endsAtUtc` carries no zone and is UTC. Every
 * page also carries the site's 404 template in a row: only the `E{"digest":
 * "NEXT_HTTP_ERROR_FALLBACK;404"}` row (and no bid box) means the listing is gone. The listing
 * page's "related auctions" are other lots: never read as this one's.
 *
 * Old site — server-rendered HTML. The search results page embeds every result as JSON
 * (`script#srp-markers-data`: id, title, price, UTC end, thumbnail, seller, city, state) next to
 * its `a.srp-card` cards (bid count, "ST zip"); a listing page shows the current or final bid,
 * the bid count and the end time as Eastern wall-clock time (`data-initial-dttm`,
 * "MM/DD/YYYY HH:MM:SS"; checked on the recorded pair: 08/04/2026 08:27 on the page is
 * 2026-08-04T12:27 in the search JSON).
 *
 * A listing page has no location and no image: it is a partial update of the lot the search page
 * stored (an ending-soon re-check), so it never blanks the search page's city, state or thumbnail.
 */
import * as cheerio from 'cheerio';
import type { Config } from '../../shared/config.js';
import { createRouter, NotFoundError, ParseError, type CrawlStep, type FetchedPage, type RouteResult, type SourceAdapter } from '../adapter.js';
import type { LotPatch, ScrapedListing } from '../../shared/lots/normalize-listing.js';
import { isObject, num, str, sourceBaseUrl, sourceHosts, usDateTimeToUtc, zonedTimeToUtc, type JsonObject } from './adapter-support.js';
import { hasNotFoundError, isFlightPage, readFlightRows, walkObjects, type FlightRow } from './next-flight.js';

export const MUNICIBID_DEFAULT_BASE_URL = 'https://municibid.com';
const PUBLIC_SITE = 'https://municibid.com';
const EASTERN = 'America/New_York';
const TITLE_SUFFIX = /\s*Online Government Auctions of Government Surplus\s*\|\s*Municibid\s*$/i;

const lotUrl = (id: string) => `${PUBLIC_SITE}/Listing/Details/${id}`;
const newLotUrl = (id: string) => `${PUBLIC_SITE}/listing/${id}`;

/** `2026-08-04T12:27:00` in the search JSON (and `endsAtUtc` on the new site) is UTC without a designator. */
function utcWithoutDesignator(value: unknown): Date | null {
  const m = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/.exec(value.trim()) : null;
  if (!m) return null;
  return zonedTimeToUtc({ year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +m[4]!, minute: +m[5]!, second: m[6] ? +m[6] : 0 }, 'UTC');
}

export function parseMunicibidSearch(page: FetchedPage): RouteResult {
  if (isFlightPage(page.body)) return parseMunicibidBrowse(page);
  const $ = cheerio.load(page.body);
  const script = $('script#srp-markers-data').first().text();
  if (!script.trim()) throw new ParseError('Municibid search: no srp-markers-data');
  let markers: unknown;
  try {
    markers = JSON.parse(script);
  } catch {
    throw new ParseError('Municibid search: srp-markers-data is not JSON');
  }
  if (!Array.isArray(markers)) throw new ParseError('Municibid search: srp-markers-data is not a list');

  const cards = new Map<string, { bids: number | null; zip: string | null }>();
  $('a.srp-card').each((_, el) => {
    const id = /\/Listing\/Details\/(\d+)/.exec($(el).attr('href') ?? '')?.[1];
    if (!id) return;
    const bids = num($(el).find('.srp-card-bids').first().text().trim());
    const zip = /\b(\d{5})(?:-\d{4})?\s*$/.exec($(el).find('.srp-card-loc').first().text().trim())?.[1] ?? null;
    cards.set(id, { bids, zip });
  });

  const listings: ScrapedListing[] = [];
  for (const marker of markers) {
    if (!isObject(marker)) continue;
    const id = str(marker.id);
    const title = str(marker.title);
    if (!id || !/^\d+$/.test(id) || !title) continue;
    const card = cards.get(id);
    const bids = card?.bids ?? null;
    const price = num(marker.price);
    listings.push({
      externalId: id,
      title,
      url: lotUrl(id),
      city: str(marker.city),
      state: str(marker.state),
      zip: card?.zip ?? null,
      country: 'US',
      currency: 'USD',
      // With no bids the price shown is the opening bid.
      currentBid: bids !== null && bids > 0 ? price : null,
      askingPrice: bids === 0 ? price : null,
      bidCount: bids,
      status: 'open',
      endsAt: utcWithoutDesignator(marker.end),
      images: [str(marker.img)].filter((u): u is string => u !== null && /^https?:\/\//.test(u)),
      raw: { marker, card: card ?? null },
    });
  }
  if (markers.length > 0 && listings.length === 0) throw new ParseError('Municibid search: no result has an id and a title');

  const next: CrawlStep[] = [];
  const nextHref = $('a[rel="next"]').first().attr('href') ?? $('.pagination a.next, .pagination li.next a').first().attr('href');
  if (nextHref) next.push({ label: 'list', url: new URL(nextHref, page.url).href, page: (page.step.page ?? 1) + 1 });
  // An empty result list in the page's own JSON says "no results": empty, not a changed layout.
  return markers.length === 0 ? { listings, next, empty: true } : { listings, next };
}

function amount(text: string): number | null {
  return num(text.replace(/[$,\s]/g, ''));
}

export function parseMunicibidListing(page: FetchedPage): RouteResult {
  if (isFlightPage(page.body)) return parseMunicibidNextListing(page);
  const id = /\/Listing\/Details\/(\d+)/i.exec(page.url)?.[1] ?? page.step.externalId;
  const $ = cheerio.load(page.body);
  const title = $('title').first().text().replace(TITLE_SUFFIX, '').trim();
  const endText = $('.awe-rt-endingDTTM[data-initial-dttm]').first().attr('data-initial-dttm');
  if (!id || !/^\d+$/.test(id) || !title || title === 'Municibid' || !endText) throw new ParseError('Municibid listing: no listing id, title or end time');
  const ended = $('h1')
    .toArray()
    .some((h) => /auction ended/i.test($(h).text()));
  // Read from the markup itself: the element sits next to attributes a trimmed or broken page may leave unclosed.
  const bidMatch = /class="awe-rt-AcceptedListingActionCount[^"]*"[^>]*>\s*(\d[\d,]*)/.exec(page.body);
  const bids = num(bidMatch?.[1] ?? $('.awe-rt-AcceptedListingActionCount').first().text().trim().split(/\s/)[0] ?? '');
  let bid: number | null = null;
  if (ended) {
    const finalHeading = $('h1')
      .toArray()
      .find((h) => /final bid/i.test($(h).text()));
    bid = finalHeading ? amount($(finalHeading).next('h2').find('.NumberPart').first().text()) : null;
  } else {
    bid = amount($('.Bidding_Current_Price .NumberPart, .awe-rt-CurrentPrice .NumberPart').first().text());
  }
  const endsAt = usDateTimeToUtc(endText, EASTERN);
  if (!endsAt) throw new ParseError(`Municibid listing ${id}: unreadable end time "${endText}"`);
  const sold = ended && bids !== null && bids > 0 && bid !== null;
  const update: LotPatch = {
    externalId: id,
    title,
    url: lotUrl(id),
    currency: 'USD',
    currentBid: bids !== null && bids > 0 ? bid : null,
    askingPrice: bids === 0 ? bid : null,
    bidCount: bids,
    status: sold ? 'sold' : ended ? 'closed' : 'open',
    soldPrice: sold ? bid : null,
    endsAt,
  };
  return { listings: [], updates: [update], next: [] };
}

// ---------------------------------------------------------------------------------------------
// New site (Next.js flight rows)

const SELLER_MAX = 200;
const className = (o: JsonObject) => (typeof o.className === 'string' ? o.className : '');

/** "Doylestown, PA" → city and state; anything else → the whole text as city. */
function splitLocation(value: unknown): { city: string | null; state: string | null } {
  const text = str(value);
  if (!text) return { city: null, state: null };
  const m = /^(.*),\s*([A-Z]{2})$/.exec(text);
  return m ? { city: m[1]!.trim() || null, state: m[2]! } : { city: text, state: null };
}

/** Lot URLs (with their slugs) from the page's JSON-LD ItemList, by id. */
function itemListUrls(rows: FlightRow[]): Map<string, string> {
  const urls = new Map<string, string>();
  for (const row of rows) {
    walkObjects(row.value, (o) => {
      const html = isObject(o.dangerouslySetInnerHTML) ? o.dangerouslySetInnerHTML.__html : undefined;
      if (o.type !== 'application/ld+json' || typeof html !== 'string') return;
      let ld: unknown;
      try {
        ld = JSON.parse(html);
      } catch {
        return 'skip';
      }
      walkObjects(ld, (item) => {
        const url = typeof item.url === 'string' ? item.url : null;
        const id = url ? /^https:\/\/(?:www\.)?municibid\.com\/listing\/(\d+)(?:\/[a-z0-9-]{0,200})?$/i.exec(url)?.[1] : undefined;
        if (id && url) urls.set(id, url);
      });
      return 'skip';
    });
  }
  return urls;
}

/** The pager's "Next →" link as an absolute URL, or null on the last page. */
function nextPageUrl(rows: FlightRow[], base: string): string | null {
  let next: string | null = null;
  for (const row of rows) {
    walkObjects(row.value, (o) => {
      if (next || !className(o).includes('browse-pager__nav') || typeof o.children !== 'string' || !/^next\b/i.test(o.children)) return;
      const href = o.href;
      try {
        if (typeof href === 'string') next = new URL(href, base).href;
        else if (isObject(href) && typeof href.pathname === 'string') {
          const url = new URL(href.pathname, base);
          if (isObject(href.query)) for (const [k, v] of Object.entries(href.query)) if (typeof v === 'string' || typeof v === 'number') url.searchParams.set(k, String(v));
          next = url.href;
        }
      } catch {
        next = null;
      }
    });
  }
  return next;
}

/** The page's own "nothing to list" notice: an empty result, not a changed layout. */
function saysNoListings(rows: FlightRow[]): boolean {
  let empty = false;
  for (const row of rows) walkObjects(row.value, (o) => void (empty ||= typeof o.children === 'string' && /^no listings found\.?$/i.test(o.children.trim())));
  return empty;
}

/** A browse row's `listing` (plus the row's `completed` flag) as a whole lot. */
function browseListing(listing: JsonObject, completed: boolean, urls: Map<string, string>): ScrapedListing | null {
  const id = str(listing.id);
  const title = str(listing.title);
  if (!id || !/^\d{1,18}$/.test(id) || !title) return null;
  const bids = num(listing.bidCount);
  const price = num(listing.currentPrice);
  const sold = completed && listing.sold === true;
  const image = str(listing.primaryImageUrl);
  return {
    externalId: id,
    title,
    url: urls.get(id) ?? newLotUrl(id),
    ...splitLocation(listing.location),
    country: 'US',
    currency: 'USD',
    // With no bids the price shown is the opening bid.
    currentBid: bids !== null && bids > 0 ? price : null,
    askingPrice: bids === 0 ? price : null,
    bidCount: bids,
    status: sold ? 'sold' : completed ? 'closed' : 'open',
    soldPrice: sold ? price : null,
    endsAt: utcWithoutDesignator(listing.endsAtUtc),
    images: image && /^https?:\/\//.test(image) ? [image] : [],
    seller: str(listing.agencyName)?.slice(0, SELLER_MAX) ?? str(listing.sellerUserName)?.slice(0, SELLER_MAX) ?? null,
    raw: { listing, completed },
  };
}

/** A browse page of the new site: its lots, the next page, or its "No listings found." notice. */
export function parseMunicibidBrowse(page: FetchedPage): RouteResult {
  const rows = readFlightRows(page.body);
  if (rows.length === 0) throw new ParseError('Municibid browse: no readable flight rows');
  const urls = itemListUrls(rows);
  const found = new Map<string, ScrapedListing>();
  let rowsSeen = 0;
  for (const row of rows) {
    walkObjects(row.value, (o) => {
      // The 404 template's "closing soon" cards and a listing page's related lots are other pages' lots.
      if (/\b(errsoon|detail-related)\b/.test(className(o))) return 'skip';
      if (!isObject(o.listing)) return;
      rowsSeen++;
      const lot = browseListing(o.listing, o.completed === true, urls);
      if (lot && !found.has(lot.externalId)) found.set(lot.externalId, lot);
      return 'skip';
    });
  }
  const listings = [...found.values()];
  if (rowsSeen > 0 && listings.length === 0) throw new ParseError('Municibid browse: no listing row has an id and a title');
  if (listings.length === 0 && !saysNoListings(rows)) throw new ParseError('Municibid browse: no listing rows and no "No listings found." notice');
  const next: CrawlStep[] = [];
  const nextUrl = listings.length > 0 ? nextPageUrl(rows, page.url) : null;
  if (nextUrl) next.push({ label: 'list', url: nextUrl, page: (page.step.page ?? 1) + 1 });
  return listings.length === 0 ? { listings, next, empty: true } : { listings, next };
}

const OPEN_STATUSES = /^(active|open|live)$/i;
const SOLD_STATUSES = /^(successful|sold)$/i;
const CLOSED_STATUSES = /^(unsuccessful|closed|ended|cancell?ed|withdrawn)$/i;

/** A listing page of the new site: the bid box, the gallery, and the lot's own card if the page has one. */
export function parseMunicibidNextListing(page: FetchedPage): RouteResult {
  const urlId = /\/listing\/(\d+)/i.exec(page.url)?.[1] ?? page.step.externalId;
  const rows = readFlightRows(page.body);
  let box: JsonObject | null = null;
  let gallery: JsonObject | null = null;
  let card: JsonObject | null = null;
  for (const row of rows) {
    walkObjects(row.value, (o) => {
      if (/\b(errsoon|detail-related)\b/.test(className(o))) return 'skip';
      if (!box && o.listingId !== undefined && isObject(o.initial) && (!urlId || str(o.listingId) === urlId)) box = o;
      if (!gallery && Array.isArray(o.images) && typeof o.alt === 'string') gallery = o;
      if (!card && isObject(o.listing) && urlId && str(o.listing.id) === urlId) card = o.listing;
    });
  }
  if (!box) {
    if (hasNotFoundError(rows)) throw new NotFoundError(`Municibid listing ${urlId ?? '?'}: not found (removed or never listed)`);
    throw new ParseError('Municibid listing: no bid box (listingId with initial bid state)');
  }
  const bidBox = box as JsonObject;
  const initial = bidBox.initial as JsonObject;
  const id = str(bidBox.listingId);
  if (!id || !/^\d{1,18}$/.test(id)) throw new ParseError('Municibid listing: the bid box has no listing id');
  const galleryObj = gallery as JsonObject | null;
  const cardObj = card as JsonObject | null;
  const title = str(galleryObj?.alt) ?? str(cardObj?.title) ?? cheerio.load(page.body)('title').first().text().replace(/\s*\|\s*Municibid\s*$/i, '').trim();
  if (!title || /^online government auctions/i.test(title)) throw new ParseError(`Municibid listing ${id}: no title`);
  const statusText = str(initial.status) ?? '';
  let status: 'open' | 'sold' | 'closed';
  if (OPEN_STATUSES.test(statusText)) status = 'open';
  else if (SOLD_STATUSES.test(statusText)) status = 'sold';
  else if (CLOSED_STATUSES.test(statusText)) status = 'closed';
  else throw new ParseError(`Municibid listing ${id}: unknown bid status "${statusText.slice(0, 40)}"`);
  const endsAt = utcWithoutDesignator(initial.endsAtUtc);
  if (!endsAt) throw new ParseError(`Municibid listing ${id}: unreadable end time`);
  const bids = num(initial.bidCount);
  const price = num(initial.currentPrice);
  const images = (Array.isArray(galleryObj?.images) ? (galleryObj.images as unknown[]) : []).filter((u): u is string => typeof u === 'string' && /^https?:\/\//.test(u));
  const update: LotPatch = {
    externalId: id,
    title,
    url: page.url.includes(`/listing/${id}`) ? `${PUBLIC_SITE}${new URL(page.url).pathname}` : newLotUrl(id),
    currency: 'USD',
    currentBid: bids !== null && bids > 0 ? price : null,
    askingPrice: bids === 0 ? price : null,
    bidCount: bids,
    status,
    soldPrice: status === 'sold' ? price : null,
    endsAt,
    reserveMet: typeof initial.reserveMet === 'boolean' ? initial.reserveMet : null,
    raw: { bidBox, gallery: galleryObj, card: cardObj },
  };
  // Only a gallery the page really shows replaces the stored images.
  if (images.length > 0) update.images = images;
  if (cardObj) {
    Object.assign(update, splitLocation(cardObj.location));
    const seller = str(cardObj.agencyName) ?? str(cardObj.sellerUserName);
    if (seller) update.seller = seller.slice(0, SELLER_MAX);
  }
  return { listings: [], updates: [update], next: [] };
}

// ---------------------------------------------------------------------------------------------

export const municibidAdapter: SourceAdapter = {
  name: 'municibid',
  displayName: 'Municibid',
  accessKind: 'html',
  fetcher: 'http',
  baseUrl: (config: Config) => sourceBaseUrl(config, 'municibid', MUNICIBID_DEFAULT_BASE_URL),
  hosts: (config: Config) => sourceHosts(config, 'municibid', MUNICIBID_DEFAULT_BASE_URL),
  politeness: { minDelayMs: 5000, maxConcurrency: 1 },
  obeyRobots: true,
  // The redesigned site lists every active lot under /browse (ending soonest first).
  start: (env) => [{ label: 'list', url: `${env.baseUrl}/browse`, page: 1 }],
  // A lot is re-checked where it was found: lots stored from the old site keep their old address.
  detailStep: (lot, env) => {
    if (!/^\d+$/.test(lot.externalId)) return null;
    const path = /\/Listing\/Details\//.test(lot.originalUrl) ? `/Listing/Details/${lot.externalId}` : `/listing/${lot.externalId}`;
    return { label: 'detail', url: `${env.baseUrl}${path}`, externalId: lot.externalId };
  },
  router: createRouter({ list: parseMunicibidSearch, detail: parseMunicibidListing }),
};
