/**
 * Pure rules of the Listings API: how query parameters become a filter, how a search text becomes
 * words, what a deal level is, how pages are counted and how a row becomes a card or a detail.
 * No I/O here; the repository and the route wire these to the database and HTTP.
 */
import { distanceMiles } from '../shared/geo/distance.js';
import { lookupZip, type GeoPoint } from '../shared/geo/gazetteer.js';
import { toStateCode } from '../shared/us-states.js';
import { deliveredPrice } from '../valuation/delivered-price.js';
import { weightClass } from '../shared/rules/freight-rates.js';
import { deliveredTotals } from './delivered-total.js';
import { bidLimitsBasis, bidLimitsLine, bidLimitsNote, dealClaimSentence } from '../valuation/deal-claim.js';
import type { StoredBidLimits } from '../../db/schema/listings.js';
import { valuationAgreement } from '../valuation/agreement.js';
import { impairedLot, reserveLot } from '../valuation/lot-neighbours.js';
import {
  DEFAULT_PAGE_SIZE,
  type BidLimitsView,
  type DealDetail,
  type DealLevel,
  type ListingCard,
  type ListQuery,
  type Pagination,
  type SortOption,
} from './listing-schemas.js';
import type { DetailRow, ListingRow } from '../shared/repositories/listings-repository.js';

export type LocationFilter = { state?: string; city?: string };

export type ListFilter = {
  categoryId?: number;
  minPrice?: number;
  maxPrice?: number;
  location?: LocationFilter;
  /** Normalised search words (lowercase ASCII letters/digits), at most MAX_SEARCH_WORDS. */
  searchWords: string[];
  /** The buyer's point (their ZIP code's) and, if asked, the radius around it. */
  near?: GeoPoint & { radiusMiles?: number };
  /** With `near`: the highest delivered total (USD, the haul's high estimate). */
  maxDelivered?: number;
  /** With `near`: only lots whose discount under fair value exceeds the haul's high estimate. */
  worthTheTrip?: boolean;
};

export type ListRequest = {
  filter: ListFilter;
  /** `relevance` only with search words (without them it means deal_score_high). */
  sort: SortOption;
  page: number;
  pageSize: number;
};

export const MAX_SEARCH_WORDS = 8;
export const MAX_WORD_LENGTH = 40;

/** "CAT 320-D, Excavators!" → ["cat", "320", "d", "excavators"]; bounded; duplicates dropped. */
export function searchWords(text: string | undefined): string[] {
  if (!text) return [];
  const words = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0)
    .map((w) => w.slice(0, MAX_WORD_LENGTH));
  return [...new Set(words)].slice(0, MAX_SEARCH_WORDS);
}

/** Common shorthand for makes, so "cat 320" and "jd 310" find Caterpillar and John Deere lots. */
export const MAKE_SYNONYMS: Record<string, string[]> = {
  cat: ['caterpillar'],
  caterpillar: ['cat'],
  jd: ['deere'],
  deere: ['jd'],
  ih: ['international'],
  nh: ['holland'],
  jcb: [],
};

/**
 * `Texas`, `tx` → state; `Houston` → city; `Houston, TX` → both. Whitespace-trimmed; an empty
 * value is no filter.
 */
export function parseLocation(value: string | undefined): LocationFilter | undefined {
  const v = value?.trim().replace(/\s+/g, ' ');
  if (!v) return undefined;
  const state = toStateCode(v);
  if (state) return { state };
  const comma = /^(.+?),\s*([^,]+)$/.exec(v);
  if (comma) {
    const commaState = toStateCode(comma[2]);
    if (commaState) return { city: comma[1]!.trim().toLowerCase(), state: commaState };
  }
  return { city: v.toLowerCase() };
}

/** The buyer's ZIP code's point (the schema let only known ZIP codes through). */
export function nearPoint(zip: string | undefined): GeoPoint | undefined {
  const place = zip ? lookupZip(zip) : null;
  return place ? { lat: place.lat, lon: place.lon } : undefined;
}

export function toListRequest(query: ListQuery): ListRequest {
  const words = searchWords(query.search);
  const point = nearPoint(query.near);
  const near = point ? { ...point, ...(query.radius_miles !== undefined ? { radiusMiles: query.radius_miles } : {}) } : undefined;
  return {
    filter: {
      categoryId: query.category,
      minPrice: query.min_price,
      maxPrice: query.max_price,
      location: parseLocation(query.location),
      searchWords: words,
      near,
      ...(near && query.max_delivered !== undefined ? { maxDelivered: query.max_delivered } : {}),
      ...(near && query.worth_the_trip === true ? { worthTheTrip: true } : {}),
    },
    // The spec's default order holds with a search too: a buyer searching "deere 310sj" wants the
    // best deals among the matches; `relevance` is there to ask for rank order.
    // Without a search there is no relevance, and without a point no distance: the default order.
    sort:
      (query.sort_by === 'relevance' && words.length === 0) || ((query.sort_by === 'distance' || query.sort_by === 'delivered') && !near)
        ? 'deal_score_high'
        : (query.sort_by ?? 'deal_score_high'),
    page: query.page ?? 1,
    pageSize: query.page_size ?? DEFAULT_PAGE_SIZE,
  };
}

/** A stable key of the filter alone (not sort or page): the count of results depends only on it. */
export function filterKey(filter: ListFilter): string {
  return JSON.stringify([
    filter.categoryId ?? null,
    filter.minPrice ?? null,
    filter.maxPrice ?? null,
    filter.location?.state ?? null,
    filter.location?.city ?? null,
    filter.searchWords,
    // the point matters to the count only with a radius or a delivered filter
    filter.near && (filter.near.radiusMiles !== undefined || filter.maxDelivered !== undefined || filter.worthTheTrip)
      ? [filter.near.lat, filter.near.lon, filter.near.radiusMiles ?? null, filter.maxDelivered ?? null, filter.worthTheTrip ?? false]
      : null,
  ]);
}

export function pagination(page: number, pageSize: number, totalCount: number): Pagination {
  const totalPages = Math.ceil(totalCount / pageSize);
  return {
    current_page: page,
    total_pages: totalPages,
    total_count: totalCount,
    has_next: page < totalPages,
    has_previous: page > 1,
  };
}

/** Deal level on the 0–1000 score, the spec's 80/60/40 after dividing by 10 (rounded up). */
export function dealLevel(score: number | null | undefined): DealLevel | null {
  if (score === null || score === undefined || !Number.isFinite(score)) return null;
  const percent = Math.min(100, Math.max(0, Math.ceil(score / 10)));
  if (percent >= 80) return 'excellent';
  if (percent >= 60) return 'good';
  if (percent >= 40) return 'fair';
  return 'poor';
}

export const MAX_DESCRIPTION_LENGTH = 5000;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/**
 * Untrusted description → plain text: tags and scripts removed, common entities decoded, control
 * characters dropped, whitespace collapsed (paragraph breaks kept), bounded. The client renders it
 * as text, never as markup.
 */
export function plainTextDescription(raw: string | null | undefined, max = MAX_DESCRIPTION_LENGTH): string {
  if (!raw) return '';
  let text = raw.length > max * 4 ? raw.slice(0, max * 4) : raw;
  text = text
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<br\s*\/?>|<\/(p|div|li|h[1-6])\s*>/gi, '\n')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+[0-9]*);/gi, (whole, name: string) => {
      const lower = name.toLowerCase();
      if (ENTITIES[lower] !== undefined) return ENTITIES[lower]!;
      const code = lower.startsWith('#x') ? parseInt(lower.slice(2), 16) : lower.startsWith('#') ? parseInt(lower.slice(1), 10) : NaN;
      return Number.isFinite(code) && code > 31 && code < 0x110000 ? String.fromCodePoint(code) : whole;
    })
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
    .replace(/[<>]/g, (c) => (c === '<' ? '‹' : '›'))
    .replace(/[ \t\r\f\v]+/g, ' ')
    .replace(/ *\n[\n ]*/g, (m) => (m.split('\n').length > 2 ? '\n\n' : '\n'))
    .trim();
  if (text.length > max) text = `${text.slice(0, max - 1).trimEnd()}…`;
  return text;
}

export type { DetailRow, ListingRow } from '../shared/repositories/listings-repository.js';

/** A lot's distance from the buyer's point and how exactly it is placed (null, null when unplaced). */
export function distanceFields(row: Pick<ListingRow, 'lat' | 'lon' | 'geoPrecision'>, near: GeoPoint): { distance_miles: number | null; location_precision: 'zip' | 'city' | 'state' | null } {
  if (row.lat === null || row.lon === null || row.geoPrecision === null || row.geoPrecision === 'none') return { distance_miles: null, location_precision: null };
  return { distance_miles: distanceMiles(near, { lat: row.lat, lon: row.lon }), location_precision: row.geoPrecision };
}

export function makeModel(row: Pick<ListingRow, 'make' | 'model' | 'title'>): string {
  const make = row.make?.trim();
  const model = row.model?.trim();
  if (make && model) return model.toLowerCase().startsWith(make.toLowerCase()) ? model : `${make} ${model}`;
  return make || model || row.title;
}

export function formatLocation(city: string | null, state: string | null): string | null {
  const c = city?.trim();
  const s = state?.trim();
  if (c && s) return `${c}, ${s}`;
  return c || s || null;
}

export function toCard(row: ListingRow, near?: GeoPoint): ListingCard {
  const card: ListingCard = {
    id: row.id,
    slug: row.slug,
    make_model: makeModel(row),
    year: row.year,
    price: row.price,
    current_price: row.currentBid,
    deal_score: row.dealScore,
    currency: row.currency,
    location: formatLocation(row.city, row.state),
    auction_end_date: row.auctionEndAt,
    first_image: row.firstImageUrl,
    image_count: row.imageCount,
    category: { id: row.categoryId, name: row.categoryName },
    auction_site: { id: row.sourceId, name: row.sourceName },
    original_url: row.originalUrl,
    good_bid_limit: row.goodBidLimit,
  };
  if (!near) return card;
  const where = distanceFields(row, near);
  const totals = deliveredTotals({
    price: row.priceUsd ?? null,
    buyersPremiumPct: row.buyersPremiumPct,
    weight: weightClass(row.categoryId, row.title),
    distanceMiles: where.distance_miles,
  });
  // Set on the card, not spread into a new object: `{ ...card, ...where, … }` took V8's slow
  // generic copy, ~30 µs a card — most of a near-a-ZIP list request's CPU (bench:api, issue 30).
  card.distance_miles = where.distance_miles;
  card.location_precision = where.location_precision;
  card.delivered_total_low = totals?.low ?? null;
  card.delivered_total_high = totals?.high ?? null;
  return card;
}

/**
 * The stored limits as the detail shows them, with their words; with a distance, each limit's
 * delivered total (the same arithmetic as the cards' delivered totals). null when unscored.
 */
export function toBidLimits(row: Pick<DetailRow, 'bidLimits' | 'scoredAt' | 'fairValue' | 'dealScore' | 'status' | 'categoryId' | 'title'>, distanceMiles?: number | null): BidLimitsView | null {
  if (!row.bidLimits || row.dealScore === null || row.fairValue === null || row.status !== 'open' || row.scoredAt === null) return null;
  return bidLimitsView(row.bidLimits, row.fairValue, row.scoredAt, distanceMiles === undefined ? undefined : { distanceMiles, categoryId: row.categoryId, title: row.title });
}

/** Stored limits → the API's view (the detail's and the estimate's), with each limit's delivered total given a distance. */
export function bidLimitsView(
  limits: StoredBidLimits,
  fairValue: number,
  asOf: string,
  place?: { distanceMiles: number | null; categoryId: number; title: string },
  estimate = false,
): BidLimitsView {
  const view: BidLimitsView = {
    excellent: limits.excellent,
    good: limits.good,
    market: limits.market,
    poor: limits.poor,
    premium_rate: limits.premium_rate,
    as_of: asOf,
    hours_left: limits.hours_left,
    at_most: limits.at_most,
    basis: bidLimitsBasis(limits, fairValue, estimate),
    line: bidLimitsLine(limits),
    note: bidLimitsNote(limits),
  };
  if (place === undefined) return view;
  const { distanceMiles } = place;
  if (distanceMiles === null) return { ...view, delivered: null };
  const weight = weightClass(place.categoryId, place.title);
  const pct = limits.premium_rate > 0 ? limits.premium_rate * 100 : null;
  const at = (bid: number | null) => (bid === null ? null : deliveredTotals({ price: bid, buyersPremiumPct: pct, weight, distanceMiles }));
  return { ...view, delivered: { excellent: at(limits.excellent), good: at(limits.good), market: at(limits.market) } };
}

/** What the deal page says of a listing the scorer has not reached yet (or scored before reasons were stored). */
export const NOT_VALUED_YET = 'Not valued yet';

const MAX_COMPARABLES = 10;

/**
 * The one line that says why the fair value lies outside its comparables, or how a lot without a
 * year or comparables was valued. Exported for `cli agreement`, which counts the notes the deal
 * page shows.
 */
export function valuationNote(row: Pick<DetailRow, 'comparables' | 'fairValue' | 'year' | 'hours' | 'title' | 'description'>): string | null {
  // the comparables the page shows (shownComparables), with their machines' year and hours
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const comparables = shownComparables(row.comparables).map((c) => ({ price: Number(c.price), year: num(c.year), hours: num(c.hours) }));
  if (row.fairValue === null) return null;
  const text = { title: row.title, description: row.description };
  return valuationAgreement({ year: row.year, hours: row.hours, impaired: impairedLot(text), reserve: reserveLot(text) }, row.fairValue, comparables).note;
}

/**
 * Stored comparables → the contract's items. Scores written before today's dollars carry only
 * `price`, which was then the price as sold: it serves as both prices. Text from auction sites is
 * bounded, and a link is kept only when it is http(s). Exported for `cli agreement`, which
 * measures the fair value against exactly the comparables the deal page shows.
 */
/**
 * The stored comparables the deal page shows: objects with a finite price and a sale date, the
 * first MAX_COMPARABLES of them. The note (valuationNote) and the list (toComparables) read the
 * same ones, so a lot never shows comparables its note did not weigh.
 */
function shownComparables(value: unknown): (Record<string, unknown> & { sold_at: string })[] {
  if (!Array.isArray(value)) return [];
  const out: (Record<string, unknown> & { sold_at: string })[] = [];
  for (const c of value) {
    if (!c || typeof c !== 'object') continue;
    const r = c as Record<string, unknown>;
    if (!Number.isFinite(Number(r.price)) || typeof r.sold_at !== 'string') continue;
    out.push(r as Record<string, unknown> & { sold_at: string });
    if (out.length >= MAX_COMPARABLES) break;
  }
  return out;
}

export function toComparables(value: unknown): NonNullable<DealDetail['valuation']>['comparables'] {
  const out: NonNullable<DealDetail['valuation']>['comparables'] = [];
  for (const r of shownComparables(value)) {
    const price = Number(r.price);
    const original = r.original_price === undefined || r.original_price === null ? price : Number(r.original_price);
    out.push({
      title: typeof r.title === 'string' ? r.title.slice(0, 300) : '',
      price,
      original_price: Number.isFinite(original) ? original : price,
      adjusted_price: price,
      sold_at: r.sold_at.slice(0, 40),
      source: typeof r.source === 'string' ? r.source.slice(0, 100) : '',
      url: typeof r.url === 'string' && /^https?:\/\//i.test(r.url) ? r.url.slice(0, 2000) : null,
    });
  }
  return out;
}

export function toDetail(
  row: DetailRow,
  images: string[],
  history: Array<{ observedAt: string; price: number | null }>,
  near?: GeoPoint,
): DealDetail {
  const card = toCard(row);
  const detail: DealDetail = {
    id: card.id,
    slug: card.slug,
    make_model: card.make_model,
    title: row.title,
    price: card.price,
    current_price: card.current_price,
    currency: card.currency,
    location: card.location,
    description: plainTextDescription(row.description),
    images: images.length > 0 ? images : row.firstImageUrl ? [row.firstImageUrl] : [],
    image_count: row.imageCount,
    auction_end_date: card.auction_end_date,
    original_url: card.original_url,
    status: row.status,
    bid_count: row.bidCount,
    category: card.category,
    auction_site: card.auction_site,
    deal_score: row.dealScore,
    deal_level: dealLevel(row.dealScore),
    score_reason: row.dealScore !== null ? null : (row.scoreReason ?? NOT_VALUED_YET),
    year: row.year,
    hours: row.hours,
    condition: row.condition,
    valuation:
      row.fairValue === null
        ? null
        : {
            as_of: row.valuationAsOf,
            market_as_of: typeof row.marketAsOf === 'string' && /^\d{4}-\d{2}$/.test(row.marketAsOf) ? row.marketAsOf : null,
            fair_value: row.fairValue,
            low: row.valueLow,
            high: row.valueHigh,
            confidence: row.valuationConfidence,
            claim: dealClaimSentence({ priceUsd: row.priceUsd ?? null, buyersPremiumPct: row.buyersPremiumPct ?? null, fairValue: row.fairValue, dealScore: row.dealScore }),
            note: valuationNote(row),
            comparables: toComparables(row.comparables),
          },
    bid_limits: toBidLimits(row),
    price_history: priceHistory(history).map((h) => ({ observed_at: h.observedAt, price: h.price })),
  };
  if (!near) return detail;
  const where = distanceFields(row, near);
  const delivered =
    where.distance_miles === null || where.location_precision === null
      ? null
      : deliveredPrice({
          // In USD, as the cards' delivered totals, the list's filters and the hauls are: a lot
          // listed in another currency is converted as the list converts it.
          price: row.priceUsd ?? null,
          buyersPremiumPct: row.buyersPremiumPct,
          categoryId: row.categoryId,
          title: row.title,
          distanceMiles: where.distance_miles,
          precision: where.location_precision,
        });
  detail.distance_miles = where.distance_miles;
  detail.location_precision = where.location_precision;
  detail.delivered = delivered;
  detail.bid_limits = toBidLimits(row, where.location_precision === null ? null : where.distance_miles);
  return detail;
}

/** Observations → price history, oldest first, one point per change of price. */
export function priceHistory(observations: Array<{ observedAt: string; price: number | null }>): Array<{ observedAt: string; price: number | null }> {
  const sorted = [...observations].sort((a, b) => Date.parse(a.observedAt) - Date.parse(b.observedAt));
  const out: Array<{ observedAt: string; price: number | null }> = [];
  for (const o of sorted) {
    if (out.length > 0 && out[out.length - 1]!.price === o.price) continue;
    out.push(o);
  }
  return out;
}
