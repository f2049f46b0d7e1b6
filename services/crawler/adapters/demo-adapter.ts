/**
 * The demo source: the bundled demo auction site (scripts/demo-site), crawled like any HTML
 * site — list pages with pagination, then one detail page per lot.
 */
import * as cheerio from 'cheerio';
import type { Config } from '../../shared/config.js';
import { createRouter, ParseError, type CrawlStep, type FetchedPage, type RouteResult, type SourceAdapter } from '../adapter.js';
import type { ScrapedListing } from '../../shared/lots/normalize-listing.js';

function demoBaseUrl(config: Config): string {
  if (!config.DEMO_SITE_URL) throw new Error('DEMO_SITE_URL is not set (npm run demo sets it)');
  return config.DEMO_SITE_URL.replace(/\/+$/, '');
}

/** A list page: one detail step per lot card, plus the next page. */
export function parseDemoListPage(page: FetchedPage): RouteResult {
  const $ = cheerio.load(page.body);
  const cards = $('li.lot-card[data-lot-id]');
  if (cards.length === 0 && $('ul.lots').length === 0) throw new ParseError('not a demo list page: no ul.lots');
  const next: CrawlStep[] = [];
  cards.each((_, el) => {
    const card = $(el);
    const href = card.find('a.lot-link').attr('href');
    const externalId = card.attr('data-lot-id')?.trim();
    if (!href || !externalId) return;
    next.push({ label: 'detail', url: new URL(href, page.url).href, externalId });
  });
  const nextHref = $('nav.pagination a[rel="next"]').attr('href');
  if (nextHref) next.push({ label: 'list', url: new URL(nextHref, page.url).href, page: (page.step.page ?? 1) + 1 });
  return { listings: [], next };
}

const STATUS: Record<string, ScrapedListing['status']> = { open: 'open', sold: 'sold', closed: 'closed' };

/** A detail page: the lot, field by field. */
export function parseDemoDetailPage(page: FetchedPage): RouteResult {
  const $ = cheerio.load(page.body);
  const article = $('article.lot[data-lot-id]').first();
  const externalId = article.attr('data-lot-id')?.trim();
  const title = article.find('h1.lot-title').text().trim();
  if (!externalId || !title) throw new ParseError('not a demo lot page: no article.lot with an id and a title');
  const status = STATUS[article.attr('data-status') ?? ''];
  if (!status) throw new ParseError(`lot ${externalId}: unknown status "${article.attr('data-status')}"`);
  const spec = (cls: string) => article.find(`dd.${cls}`).first().text().trim() || null;
  const amount = (selector: string) => article.find(selector).first().attr('data-amount') ?? null;
  const listing: ScrapedListing = {
    externalId,
    title,
    url: page.url,
    description: article.find('section.description p').html() ?? '',
    make: spec('spec-make'),
    model: spec('spec-model'),
    year: spec('spec-year'),
    hours: spec('spec-hours'),
    condition: spec('spec-condition'),
    category: spec('spec-category'),
    city: spec('spec-city'),
    state: spec('spec-state'),
    currency: 'USD',
    askingPrice: amount('.starting-bid'),
    currentBid: amount('.current-bid'),
    bidCount: article.find('.bid-count').attr('data-count') ?? null,
    buyersPremiumPct: article.find('.buyers-premium').attr('data-pct') ?? null,
    status,
    endsAt: article.find('time.ends').attr('datetime') ?? null,
    soldPrice: amount('.sold-price'),
    images: article.find('.gallery img').map((_, img) => $(img).attr('src') ?? null).get(),
  };
  return { listings: [listing], next: [] };
}

export const demoAdapter: SourceAdapter = {
  name: 'demo',
  displayName: 'Iron Ridge Demo Auctions (demo)',
  accessKind: 'html',
  isDemo: true,
  fetcher: 'http',
  baseUrl: demoBaseUrl,
  // A local site: a short delay still exercises the shared politeness path.
  politeness: { minDelayMs: 0, maxConcurrency: 8 },
  start: (env) => [{ label: 'list', url: `${env.baseUrl}/auctions?page=1`, page: 1 }],
  detailStep: (lot) => ({ label: 'detail', url: lot.originalUrl, externalId: lot.externalId }),
  router: createRouter({
    list: (page) => parseDemoListPage(page),
    detail: (page) => parseDemoDetailPage(page),
  }),
};
