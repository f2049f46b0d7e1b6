/**
 * Public Surplus — server-rendered HTML. An auction page (`/sms/auction/view?auc={id}`) shows
 * the current price (`#val_{id}`), bid count (`#noOfBids`), increment, minimum bid, the end as
 * epoch milliseconds in `updateTimeLeftSpan(…, now, end, …)` and the pick-up address. The only
 * recorded page is an excerpt without the lot title, so it yields no listing (a listing with
 * no title is not one): the title is read from the page heading when the page has it.
 *
 * Disabled by default: no list page is recorded, so how lots are discovered is unverified —
 * the adapter can read an auction page but has no tested way to find them.
 */
import * as cheerio from 'cheerio';
import type { Config } from '../../shared/config.js';
import { createRouter, ParseError, type CrawlStep, type FetchedPage, type RouteResult, type SourceAdapter } from '../adapter.js';
import type { ScrapedListing } from '../../shared/lots/normalize-listing.js';
import { num, sourceBaseUrl, sourceHosts } from './adapter-support.js';

export const PUBLICSURPLUS_DEFAULT_BASE_URL = 'https://www.publicsurplus.com';
const PUBLIC_SITE = 'https://www.publicsurplus.com';

export type PublicSurplusAuction = {
  auctionId: string;
  title: string | null;
  currentPrice: number | null;
  bidCount: number | null;
  increment: number | null;
  minimumBid: number | null;
  endsAt: Date | null;
  street: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
};

function money(text: string): number | null {
  return num(text.replace(/[$,\s]/g, ''));
}

/** What an auction page states, field by field (no title on an excerpt). */
export function readPublicSurplusAuction(html: string, url: string): PublicSurplusAuction {
  const fromUrl = /[?&]auc=(\d+)/.exec(url)?.[1];
  const fromScript = /updateTimeLeftSpan\(\s*\w+\s*,\s*(\d+)\s*,/.exec(html)?.[1];
  const auctionId = fromUrl ?? fromScript;
  if (!auctionId) throw new ParseError('Public Surplus page: no auction id');
  const $ = cheerio.load(html);
  const endMatch = new RegExp(`updateTimeLeftSpan\\(\\s*\\w+\\s*,\\s*${auctionId}\\s*,\\s*"${auctionId}"\\s*,\\s*(\\d{12,14})\\s*,\\s*(\\d{12,14})`).exec(html);
  const address = $('.auction-print-address').first().children('div');
  const street = address.eq(0).text().replace(/\s+/g, ' ').trim() || null;
  const place = /^(.+?),\s*([A-Z]{2})\s+(\d{5}(?:-\d{4})?)?$/.exec(address.eq(1).text().replace(/\s+/g, ' ').trim());
  const heading = $('#auctionTitle, h1.auction-title, .auction-title h1, h1').first().text().replace(/\s+/g, ' ').trim();
  return {
    auctionId,
    title: heading || null,
    currentPrice: money($(`#val_${auctionId}`).first().text()),
    bidCount: num($('#noOfBids').first().text().trim()),
    increment: money($(`#valIncrement_${auctionId}`).first().text()),
    minimumBid: money($(`#minBid_${auctionId}`).first().text()),
    endsAt: endMatch ? new Date(Number(endMatch[2])) : null,
    street,
    city: place?.[1] ?? null,
    state: place?.[2] ?? null,
    zip: place?.[3] ?? null,
  };
}

export function parsePublicSurplusAuction(page: FetchedPage): RouteResult {
  const a = readPublicSurplusAuction(page.body, page.url);
  if (!a.title) throw new ParseError(`Public Surplus auction ${a.auctionId}: the page has no lot title (an excerpt?)`);
  if (a.currentPrice === null && a.endsAt === null) throw new ParseError(`Public Surplus auction ${a.auctionId}: no price or end time`);
  const ended = a.endsAt !== null && a.endsAt.getTime() <= page.fetchedAt.getTime();
  const listing: ScrapedListing = {
    externalId: a.auctionId,
    title: a.title,
    url: `${PUBLIC_SITE}/sms/auction/view?auc=${a.auctionId}`,
    city: a.city,
    state: a.state,
    zip: a.zip,
    country: 'US',
    currency: 'USD',
    currentBid: a.bidCount !== null && a.bidCount > 0 ? a.currentPrice : null,
    askingPrice: a.bidCount === 0 ? a.currentPrice : null,
    bidCount: a.bidCount,
    status: ended ? 'closed' : 'open',
    endsAt: a.endsAt,
  };
  return { listings: [listing], next: [] };
}

/** A list page: the auction pages it links to, and its next page. */
export function parsePublicSurplusList(page: FetchedPage, baseUrl: string): RouteResult {
  const $ = cheerio.load(page.body);
  const ids = new Set<string>();
  $('a[href*="/sms/auction/view?auc="]').each((_, a) => {
    const id = /auc=(\d+)/.exec($(a).attr('href') ?? '')?.[1];
    if (id) ids.add(id);
  });
  if (ids.size === 0) throw new ParseError('Public Surplus list: no auction links');
  const next: CrawlStep[] = [...ids].map((id) => ({ label: 'detail', url: `${baseUrl}/sms/auction/view?auc=${id}`, externalId: id }));
  const nextHref = $('a')
    .toArray()
    .find((a) => /^\s*next\s*(›|>|»)?\s*$/i.test($(a).text()))
    ?.attribs.href;
  if (nextHref) next.push({ label: 'list', url: new URL(nextHref, page.url).href, page: (page.step.page ?? 1) + 1 });
  return { listings: [], next };
}

export const publicSurplusAdapter: SourceAdapter = {
  name: 'publicsurplus',
  displayName: 'Public Surplus',
  accessKind: 'html',
  disabledReason: 'only an auction-page excerpt (without its title) is recorded: lot discovery and titles are unverified',
  fetcher: 'http',
  baseUrl: (config: Config) => sourceBaseUrl(config, 'publicsurplus', PUBLICSURPLUS_DEFAULT_BASE_URL),
  hosts: (config: Config) => sourceHosts(config, 'publicsurplus', PUBLICSURPLUS_DEFAULT_BASE_URL),
  politeness: { minDelayMs: 5000, maxConcurrency: 1 },
  obeyRobots: true,
  start: (env) => [{ label: 'list', url: `${env.baseUrl}/sms/list/current`, page: 1 }],
  detailStep: (lot, env) => (/^\d+$/.test(lot.externalId) ? { label: 'detail', url: `${env.baseUrl}/sms/auction/view?auc=${lot.externalId}`, externalId: lot.externalId } : null),
  router: createRouter({ list: (page, env) => parsePublicSurplusList(page, env.baseUrl), detail: parsePublicSurplusAuction }),
};
