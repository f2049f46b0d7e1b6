/**
 * BidSpotter — server-rendered search results (`/en-us/search-results?searchTerm=…&page=N`).
 * Each `div.lot-single` card has the lot GUID, title, lot page link, image (`data-src`),
 * location ("City, State") and currency; the page's `gapAmplitudeConfig.forItem` JSON gives
 * each lot's UTC end time; `ul.pagination-content[data-pages]` the page count.
 *
 * Prices are not in the cards: the page loads them afterwards from a second endpoint
 * (`POST /en-us/lot/reload-timed-bid-info`, recorded too). The pipeline stores what one
 * response yields, and a bid-info row alone has no title, so listings from BidSpotter carry no
 * bid or price (absent, never guessed) — see README "Sources".
 */
import * as cheerio from 'cheerio';
import type { Config } from '../../shared/config.js';
import { createRouter, ParseError, type CrawlStep, type FetchedPage, type RouteResult, type SourceAdapter } from '../adapter.js';
import type { ScrapedListing } from '../normalize/listing.js';
import { isObject, isoInstant, num, sourceBaseUrl, sourceHosts, str, type JsonObject } from './adapter-support.js';

export const BIDSPOTTER_DEFAULT_BASE_URL = 'https://www.bidspotter.com';
const PUBLIC_SITE = 'https://www.bidspotter.com';
export const BIDSPOTTER_SEARCH_TERMS = ['excavator', 'wheel loader', 'dozer', 'skid steer', 'backhoe', 'motor grader', 'compactor', 'crane', 'generator', 'dump truck'];
const MAX_PAGES = 20;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

export function parseBidSpotterSearch(page: FetchedPage): RouteResult {
  const $ = cheerio.load(page.body);
  const cards = $('div.lot-single[id^="lot-"]');
  const pager = $('ul.pagination-content[data-pages]').first();
  if (cards.length === 0 && pager.length === 0 && !/search-results-items-info/.test(page.body)) throw new ParseError('BidSpotter search: no lot cards or result counter');
  const meta = amplitudeForItem(page.body);
  const listings: ScrapedListing[] = [];
  cards.each((_, el) => {
    const card = $(el);
    const guid = card.attr('id')!.slice('lot-'.length);
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
      status: endsAt && endsAt.getTime() <= page.fetchedAt.getTime() ? 'closed' : 'open',
      endsAt,
      images: image && /^https?:\/\//.test(image) ? [image] : [],
      raw: { guid, title, href, location, image: image ?? null, meta: meta[guid] ?? null },
    });
  });
  if (cards.length > 0 && listings.length === 0) throw new ParseError('BidSpotter search: no card has a lot id, title and link');
  const next: CrawlStep[] = [];
  const pages = num(pager.attr('data-pages'));
  const current = page.step.page ?? 1;
  if (pages !== null && current < Math.min(pages, MAX_PAGES) && listings.length > 0) {
    const url = new URL(page.step.url);
    url.searchParams.set('page', String(current + 1));
    next.push({ label: 'list', url: url.href, page: current + 1 });
  }
  return { listings, next };
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
  router: createRouter({ list: parseBidSpotterSearch }),
};
