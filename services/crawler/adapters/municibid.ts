/**
 * Municibid — server-rendered HTML. The search results page embeds every result as JSON
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
import { createRouter, ParseError, type CrawlStep, type FetchedPage, type RouteResult, type SourceAdapter } from '../adapter.js';
import type { LotPatch, ScrapedListing } from '../normalize/listing.js';
import { isObject, num, str, sourceBaseUrl, sourceHosts, usDateTimeToUtc, zonedTimeToUtc } from './adapter-support.js';

export const MUNICIBID_DEFAULT_BASE_URL = 'https://municibid.com';
const PUBLIC_SITE = 'https://municibid.com';
const EASTERN = 'America/New_York';
const TITLE_SUFFIX = /\s*Online Government Auctions of Government Surplus\s*\|\s*Municibid\s*$/i;

const lotUrl = (id: string) => `${PUBLIC_SITE}/Listing/Details/${id}`;

/** `2026-08-04T12:27:00` in the search JSON is UTC without a designator. */
function utcWithoutDesignator(value: unknown): Date | null {
  const m = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value.trim()) : null;
  if (!m) return null;
  return zonedTimeToUtc({ year: +m[1]!, month: +m[2]!, day: +m[3]!, hour: +m[4]!, minute: +m[5]!, second: m[6] ? +m[6] : 0 }, 'UTC');
}

export function parseMunicibidSearch(page: FetchedPage): RouteResult {
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
  return { listings, next };
}

function amount(text: string): number | null {
  return num(text.replace(/[$,\s]/g, ''));
}

export function parseMunicibidListing(page: FetchedPage): RouteResult {
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

export const municibidAdapter: SourceAdapter = {
  name: 'municibid',
  displayName: 'Municibid',
  accessKind: 'html',
  fetcher: 'http',
  baseUrl: (config: Config) => sourceBaseUrl(config, 'municibid', MUNICIBID_DEFAULT_BASE_URL),
  hosts: (config: Config) => sourceHosts(config, 'municibid', MUNICIBID_DEFAULT_BASE_URL),
  politeness: { minDelayMs: 5000, maxConcurrency: 1 },
  obeyRobots: true,
  start: (env) => [{ label: 'list', url: `${env.baseUrl}/Search/Results?page=1`, page: 1 }],
  detailStep: (lot, env) => (/^\d+$/.test(lot.externalId) ? { label: 'detail', url: `${env.baseUrl}/Listing/Details/${lot.externalId}`, externalId: lot.externalId } : null),
  router: createRouter({ list: parseMunicibidSearch, detail: parseMunicibidListing }),
};
