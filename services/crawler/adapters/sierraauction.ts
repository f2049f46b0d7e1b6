/**
 * Sierra Auction Management — hosted on the AuctioneerSoftware platform, whose React pages
 * embed their GraphQL cache as `window.__APOLLO_STATE__` (`AuctionLot.{id}`, `Auction.{id}`).
 * A lot page carries everything: title, `dynamic_fields` (Year, Make, Model, Hours, Mileage…),
 * winning bid and bid count, starting bid, ISO UTC end time, location, images (CDN variants),
 * public URL, and its neighbours (`prevLot`/`nextLot`) — so a crawl walks an auction lot by lot
 * (forward, through `nextLot`).
 * The buyer's premium is a scale of flat fees per price band, not a percentage: left absent.
 */
import * as cheerio from 'cheerio';
import type { Config } from '../../shared/config.js';
import { createRouter, ParseError, type CrawlStep, type FetchedPage, type RouteResult, type SourceAdapter } from '../adapter.js';
import type { ScrapedListing } from '../../shared/lots/normalize-listing.js';
import { isObject, isoInstant, num, sourceBaseUrl, str, type JsonObject } from './adapter-support.js';

export const SIERRA_DEFAULT_BASE_URL = 'https://sierraauction.auctioneersoftware.com';

/** The page's `window.__APOLLO_STATE__` object. */
export function apolloState(html: string): JsonObject {
  const at = html.indexOf('__APOLLO_STATE__');
  if (at < 0) throw new ParseError('Sierra Auction page: no __APOLLO_STATE__');
  const start = html.indexOf('{', at);
  const end = html.indexOf('</script>', at);
  if (start < 0 || end < 0 || start > end) throw new ParseError('Sierra Auction page: __APOLLO_STATE__ is cut');
  const text = html.slice(start, end).trim().replace(/;\s*$/, '');
  let state: unknown;
  try {
    state = JSON.parse(text);
  } catch {
    throw new ParseError('Sierra Auction page: __APOLLO_STATE__ is not JSON');
  }
  if (!isObject(state)) throw new ParseError('Sierra Auction page: __APOLLO_STATE__ is not an object');
  return state;
}

function dynamicFields(lot: JsonObject): Map<string, string> {
  const fields = new Map<string, string>();
  if (!Array.isArray(lot.dynamic_fields)) return fields;
  for (const field of lot.dynamic_fields.filter(isObject)) {
    const label = str(field.label)?.toLowerCase();
    const value = isObject(field.data) ? str(field.data.value) : null;
    if (label && value) fields.set(label, value);
  }
  return fields;
}

function largestImage(image: unknown): string | null {
  if (!isObject(image) || !Array.isArray(image.cached_assets)) return null;
  const assets = image.cached_assets.filter(isObject);
  for (const variant of ['large', 'medium', 'small']) {
    const url = str(assets.find((a) => a.variant === variant)?.url);
    if (url && /^https?:\/\//.test(url)) return url;
  }
  return null;
}

export function sierraLotToListing(lot: JsonObject, fetchedAt: Date): ScrapedListing | null {
  const id = str(lot.auction_lot_id);
  const title = str(lot.title)?.replace(/\s+/g, ' ');
  const url = str(lot.public_url);
  if (!id || !title || !url || !/^https?:\/\//.test(url)) return null;
  const fields = dynamicFields(lot);
  const bids = num(lot.bid_count);
  const endsAt = isoInstant(lot.end_time);
  const ended = lot.is_past_end_time === true || (endsAt !== null && endsAt.getTime() <= fetchedAt.getTime());
  const sold = ended && bids !== null && bids > 0 && lot.is_no_sale !== true && lot.is_passed !== true;
  const bid = num(lot.winning_bid_amount);
  const location = isObject(lot.front_lot_location) && lot.hide_location !== true ? lot.front_lot_location : {};
  return {
    externalId: id,
    title,
    url,
    description: str(lot.description) ?? str(lot.description_plain) ?? '',
    year: fields.get('year') ?? null,
    make: fields.get('make') ?? null,
    model: fields.get('model') ?? null,
    hours: fields.get('hours') ?? null,
    category: fields.get('commercial type') ?? null,
    city: str(location.city),
    state: str(location.state_name),
    country: str(location.country_name) === 'United States' ? 'US' : null,
    currency: 'USD',
    currentBid: bids !== null && bids > 0 ? bid : null,
    askingPrice: bids === 0 ? num(lot.starting_bid) : null,
    bidCount: bids,
    status: sold ? 'sold' : ended ? 'closed' : 'open',
    soldPrice: sold ? bid : null,
    endsAt,
    images: Array.isArray(lot.images) ? lot.images.map(largestImage).filter((u): u is string => u !== null) : [],
    raw: lot,
  };
}

function lotSteps(baseUrl: string, lot: JsonObject): CrawlStep[] {
  const auction = str(lot.auction_id);
  // Forward only: walking both ways would queue every lot twice.
  return [lot.nextLot]
    .filter(isObject)
    .map((n) => str(n.auction_lot_id))
    .filter((id): id is string => id !== null && /^\d+$/.test(id) && auction !== null && /^\d+$/.test(auction))
    .map((id) => ({ label: 'detail' as const, url: `${baseUrl}/auctions/${auction}/lot/${id}`, externalId: id }));
}

/** A lot page: its lot, and the next lot to walk the auction. */
export function parseSierraLotPage(page: FetchedPage, baseUrl: string): RouteResult {
  const state = apolloState(page.body);
  const lots = Object.entries(state)
    .filter(([key, value]) => key.startsWith('AuctionLot.') && isObject(value))
    .map(([, value]) => value as JsonObject);
  const listings = lots.map((lot) => sierraLotToListing(lot, page.fetchedAt)).filter((l): l is ScrapedListing => l !== null);
  if (listings.length === 0) throw new ParseError('Sierra Auction page: no lot with an id, title and public URL');
  return { listings, next: lots.flatMap((lot) => lotSteps(baseUrl, lot)) };
}

/** An auctions or auction page: the lot and auction pages it links to (plus any lots in its state). */
export function parseSierraIndexPage(page: FetchedPage, baseUrl: string): RouteResult {
  const $ = cheerio.load(page.body);
  const next: CrawlStep[] = [];
  const seen = new Set<string>();
  $('a[href]').each((_, a) => {
    const href = $(a).attr('href') ?? '';
    const lot = /^(?:https?:\/\/[^/]+)?\/auctions\/(\d+)\/lot\/(\d+)(-[a-z0-9-]*)?\/?$/i.exec(href);
    const auction = /^(?:https?:\/\/[^/]+)?\/auctions\/(\d+)\/?$/i.exec(href);
    const step: CrawlStep | null = lot
      ? { label: 'detail', url: `${baseUrl}/auctions/${lot[1]}/lot/${lot[2]}${lot[3] ?? ''}`, externalId: lot[2] }
      : auction
        ? { label: 'list', url: `${baseUrl}/auctions/${auction[1]}`, page: 1 }
        : null;
    if (step && !seen.has(step.url)) {
      seen.add(step.url);
      next.push(step);
    }
  });
  if (next.length === 0 && !page.body.includes('__APOLLO_STATE__')) throw new ParseError('Sierra Auction index: no auction or lot links');
  return { listings: [], next };
}

export const sierraAuctionAdapter: SourceAdapter = {
  name: 'sierraauction',
  displayName: 'Sierra Auction Management',
  accessKind: 'html',
  fetcher: 'http',
  baseUrl: (config: Config) => sourceBaseUrl(config, 'sierraauction', SIERRA_DEFAULT_BASE_URL),
  politeness: { minDelayMs: 5000, maxConcurrency: 1 },
  obeyRobots: true,
  start: (env) => [{ label: 'list', url: `${env.baseUrl}/auctions`, page: 1 }],
  detailStep: (lot, env) => {
    const m = /\/auctions\/(\d+)\/lot\/(\d+)/.exec(lot.originalUrl);
    return m ? { label: 'detail', url: `${env.baseUrl}/auctions/${m[1]}/lot/${m[2]}`, externalId: lot.externalId } : null;
  },
  router: createRouter({
    list: (page, env) => parseSierraIndexPage(page, env.baseUrl),
    detail: (page, env) => parseSierraLotPage(page, env.baseUrl),
  }),
};
