/**
 * A scraped lot (whatever the page gave, as loosely typed as pages are) becomes a normalised
 * listing: typed, sanitised, bounded, with category, make/model/year from the title when the
 * page has no fields for them, absolute URLs, UTC end time and the spec's condition values.
 */
import { createHash } from 'node:crypto';
import { CONDITIONS, type Condition, type ListingStatus } from '../../../db/schema/listings.js';
import { geocode, normalizeZip, type GeoPrecision } from '../geo/gazetteer.js';
import { toStateCode } from '../us-states.js';
import { categoryIdFor } from './category.js';
import { absoluteUrl, cleanLine, cleanText, parseCount, parseMoney } from './text.js';
import { canonicalMake, modelFamily, parseTitle } from './title-parser.js';

type Loose = string | number | null | undefined;

/** What an adapter's handler returns for one lot. Only `externalId`, `title` and `url` are required. */
export type ScrapedListing = {
  externalId: string;
  title: string;
  /** The lot's public page (relative URLs are resolved against the fetched page). */
  url: string;
  description?: string | null;
  make?: string | null;
  model?: string | null;
  year?: Loose;
  hours?: Loose;
  condition?: string | null;
  /** The source's own category label, tried before the title. */
  category?: string | null;
  city?: string | null;
  state?: string | null;
  /** The lot's ZIP code, when the source shows one (ZIP+4 is cut to 5 digits). */
  zip?: string | null;
  country?: string | null;
  currency?: string | null;
  askingPrice?: Loose;
  currentBid?: Loose;
  bidCount?: Loose;
  buyersPremiumPct?: Loose;
  status?: ListingStatus | null;
  endsAt?: Date | string | number | null;
  /** The final price when the source shows it for a closed lot. */
  soldPrice?: Loose;
  images?: (string | null | undefined)[];
  /**
   * Who sells the lot (a government agency on Municibid). Listings have no column for it yet:
   * it reaches storage only inside the raw payload.
   */
  seller?: string | null;
  /** Whether the reserve is met (null: no reserve, or not said); like `seller`, only in the raw payload for now. */
  reserveMet?: boolean | null;
  /** The lot's part of the fetched payload, kept for re-parsing. */
  raw?: unknown;
};

/**
 * Part of a lot as one response carries it (a bid-info row, an image gallery, a listing page
 * without location): the external id and only the fields the response holds. A key left
 * undefined is not carried and keeps its stored value; any other value (null included) is what
 * the response says now. A full `ScrapedListing` is a LotPatch too: merged onto a stored lot,
 * the fields its page does not carry keep their stored values.
 */
export type LotPatch = { externalId: string } & Partial<Omit<ScrapedListing, 'externalId'>>;

export type NormalizedListing = {
  externalId: string;
  title: string;
  description: string;
  make: string | null;
  model: string | null;
  modelFamily: string | null;
  year: number | null;
  hours: number | null;
  condition: Condition | null;
  categoryId: number;
  city: string | null;
  state: string | null;
  /** 5 digits, or null. Hashed only when known, so lots whose source gives none kept their hashes. */
  zip: string | null;
  country: string;
  currency: string;
  askingPrice: number | null;
  currentBid: number | null;
  bidCount: number;
  /** What the buyer pays now before premium: the bid if there are bids, else the asking price. */
  price: number | null;
  priceUsd: number | null;
  buyersPremiumPct: number | null;
  status: ListingStatus;
  auctionEndAt: Date | null;
  originalUrl: string;
  images: string[];
  soldPrice: number | null;
  /** Digest of every stored field: equal hashes mean nothing changed. */
  contentHash: string;
};

const CONDITION_WORDS: [Condition, RegExp][] = [
  ['Parts Only', /\bparts\b|salvage|inoperable|non[\s-]?running|not running|does not run|for repair/i],
  ['Like New', /like new|excellent|\bmint\b/i],
  ['New', /^\s*(new|unused|brand new)\b/i],
  ['Good', /\bgood\b|very good|runs and drives|running/i],
  ['Fair', /\bfair\b|average|\bok\b|used/i],
  ['Poor', /\bpoor\b|rough|needs work|damaged/i],
];

export function normalizeCondition(value: string | null | undefined): Condition | null {
  if (!value) return null;
  const v = value.trim();
  const exact = CONDITIONS.find((c) => c.toLowerCase() === v.toLowerCase());
  if (exact) return exact;
  for (const [condition, pattern] of CONDITION_WORDS) if (pattern.test(v)) return condition;
  return null;
}

/** A Date/ISO string/epoch (s or ms) → a valid UTC Date in a plausible range, else null. */
export function parseEndTime(value: Date | string | number | null | undefined): Date | null {
  if (value === null || value === undefined || value === '') return null;
  let date: Date;
  if (value instanceof Date) date = value;
  else if (typeof value === 'number') date = new Date(value < 1e11 ? value * 1000 : value);
  else date = new Date(value.trim());
  const t = date.getTime();
  if (!Number.isFinite(t) || t < Date.UTC(1990, 0, 1) || t > Date.UTC(2100, 0, 1)) return null;
  return new Date(t);
}

function parseYear(value: Loose, now: Date): number | null {
  const n = typeof value === 'number' ? value : parseCount(value ?? null);
  return n !== null && Number.isInteger(n) && n >= 1930 && n <= now.getUTCFullYear() + 1 ? n : null;
}

/** Galleries are kept whole up to this (West Auctions' recorded lots have up to 155 images). */
const MAX_IMAGES = 250;

/** Rates to USD for filtering and sorting non-USD prices; unknown currencies get no USD price. */
const USD_RATES: Record<string, number> = { USD: 1, CAD: 0.73, EUR: 1.08, GBP: 1.27, AUD: 0.66, MXN: 0.055 };

export function normalizeListing(lot: ScrapedListing, pageUrl: string, now = new Date()): NormalizedListing {
  const title = cleanLine(lot.title, 300);
  const parsed = parseTitle(title, now);
  const make = canonicalMake(cleanLine(lot.make, 60) || null) ?? parsed.make;
  const model = cleanLine(lot.model, 60) || parsed.model;
  const currency = /^[A-Z]{3}$/.test(String(lot.currency ?? '').trim().toUpperCase()) ? String(lot.currency).trim().toUpperCase() : 'USD';
  const askingPrice = parseMoney(lot.askingPrice);
  const bidCount = parseCount(lot.bidCount, 1_000_000) ?? 0;
  const { currentBid, price, priceUsd } = priceFields(askingPrice, parseMoney(lot.currentBid), bidCount, currency);
  const premium = parseMoney(lot.buyersPremiumPct);
  const originalUrl = absoluteUrl(lot.url, pageUrl) ?? pageUrl;
  const images = [...new Set((lot.images ?? []).map((src) => absoluteUrl(src, pageUrl)).filter((u): u is string => u !== null))].slice(0, MAX_IMAGES);
  const category = cleanLine(lot.category, 120);
  const soldPrice = parseMoney(lot.soldPrice);
  const status: ListingStatus = lot.status ?? 'open';

  const normalized: Omit<NormalizedListing, 'contentHash'> = {
    externalId: cleanLine(lot.externalId, 200),
    title: title || 'Untitled lot',
    description: cleanText(lot.description, 10_000),
    make,
    model: model || null,
    modelFamily: modelFamily(model),
    year: parseYear(lot.year, now) ?? parsed.year,
    hours: parseCount(lot.hours, 500_000),
    condition: normalizeCondition(cleanLine(lot.condition, 60)),
    categoryId: categoryIdFor(category, title),
    city: cleanLine(lot.city, 100) || null,
    state: toStateCode(cleanLine(lot.state, 40)) ?? null,
    zip: normalizeZip(cleanLine(lot.zip, 20)),
    country: /^[A-Z]{2}$/.test(String(lot.country ?? '').trim().toUpperCase()) ? String(lot.country).trim().toUpperCase() : 'US',
    currency,
    askingPrice,
    currentBid,
    bidCount,
    price,
    priceUsd,
    buyersPremiumPct: premium !== null && premium <= 100 ? premium : null,
    status,
    auctionEndAt: parseEndTime(lot.endsAt),
    originalUrl,
    images,
    soldPrice: status === 'sold' ? (soldPrice ?? currentBid) : null,
  };
  // A category the source names wins; "Other" from its label falls back to the title's.
  if (normalized.categoryId === categoryIdFor(null) && parsed.categoryId !== normalized.categoryId) normalized.categoryId = parsed.categoryId;
  return { ...normalized, contentHash: contentHash(normalized) };
}

/** The bid (kept only when positive or bid on), the buyer's price now, and that price in USD. */
function priceFields(askingPrice: number | null, rawBid: number | null, bidCount: number, currency: string) {
  const currentBid = rawBid !== null && (rawBid > 0 || bidCount > 0) ? rawBid : null;
  const price = currentBid !== null && bidCount > 0 ? currentBid : (askingPrice ?? currentBid);
  const rate = USD_RATES[currency];
  return { currentBid, price, priceUsd: price !== null && rate !== undefined ? Math.round(price * rate * 100) / 100 : null };
}

/**
 * A stored lot with what one response carries merged in: every field the response carries is
 * normalised as a new lot's would be and replaces the stored value; every other field keeps its
 * stored value. A carried title re-derives what the title gives (make, model, year, type) unless
 * the response carries those too, as for a new lot. Price, USD price and final price are derived
 * again from the merged bid, asking price, bid count, currency and status.
 */
export function mergeLot(stored: Omit<NormalizedListing, 'contentHash'>, lot: LotPatch, pageUrl: string, now = new Date()): NormalizedListing {
  const has = (key: keyof LotPatch) => lot[key] !== undefined;
  const fresh = normalizeListing({ ...lot, title: lot.title ?? stored.title, url: lot.url ?? stored.originalUrl }, pageUrl, now);
  const byTitle = has('title');
  const askingPrice = has('askingPrice') ? fresh.askingPrice : stored.askingPrice;
  const bidCount = has('bidCount') ? fresh.bidCount : stored.bidCount;
  const currency = has('currency') ? fresh.currency : stored.currency;
  const rawBid = has('currentBid') ? parseMoney(lot.currentBid) : stored.currentBid;
  const { currentBid, price, priceUsd } = priceFields(askingPrice, rawBid, bidCount, currency);
  const status = has('status') ? fresh.status : stored.status;
  const knownSoldPrice = has('soldPrice') ? parseMoney(lot.soldPrice) : stored.soldPrice;
  // Same keys in the same order as normalizeListing: the content hash depends on it.
  const merged: Omit<NormalizedListing, 'contentHash'> = {
    externalId: stored.externalId,
    title: byTitle ? fresh.title : stored.title,
    description: has('description') ? fresh.description : stored.description,
    make: has('make') || byTitle ? fresh.make : stored.make,
    model: has('model') || byTitle ? fresh.model : stored.model,
    modelFamily: has('model') || byTitle ? fresh.modelFamily : stored.modelFamily,
    year: has('year') || byTitle ? fresh.year : stored.year,
    hours: has('hours') ? fresh.hours : stored.hours,
    condition: has('condition') ? fresh.condition : stored.condition,
    categoryId: has('category') || byTitle ? fresh.categoryId : stored.categoryId,
    city: has('city') ? fresh.city : stored.city,
    state: has('state') ? fresh.state : stored.state,
    zip: has('zip') ? fresh.zip : stored.zip,
    country: has('country') ? fresh.country : stored.country,
    currency,
    askingPrice,
    currentBid,
    bidCount,
    price,
    priceUsd,
    buyersPremiumPct: has('buyersPremiumPct') ? fresh.buyersPremiumPct : stored.buyersPremiumPct,
    status,
    auctionEndAt: has('endsAt') ? fresh.auctionEndAt : stored.auctionEndAt,
    originalUrl: has('url') ? fresh.originalUrl : stored.originalUrl,
    images: has('images') ? fresh.images : stored.images,
    soldPrice: status === 'sold' ? (knownSoldPrice ?? currentBid) : null,
  };
  return { ...merged, contentHash: contentHash(merged) };
}

export function contentHash(listing: Omit<NormalizedListing, 'contentHash'>): string {
  // The ZIP code came with issue 30: left out when unknown, so the hashes of lots stored before
  // it (and of sources that give none) did not all change at once.
  const { zip, ...rest } = listing;
  const stable = { ...rest, ...(zip !== null ? { zip } : {}), auctionEndAt: listing.auctionEndAt?.toISOString() ?? null };
  return createHash('sha1').update(JSON.stringify(stable)).digest('hex');
}

/** Where a lot is, as stored: the gazetteer's place and its precision, or `none` when nothing places it. */
export type ListingPlace = { lat: number | null; lon: number | null; geoPrecision: GeoPrecision | 'none' };

/** Places a normalised lot from its ZIP code, city and state (never in a state other than its own). */
export function placeListing(l: Pick<NormalizedListing, 'zip' | 'city' | 'state' | 'country'>): ListingPlace {
  const place = geocode(l);
  return place ? { lat: place.lat, lon: place.lon, geoPrecision: place.precision } : { lat: null, lon: null, geoPrecision: 'none' };
}
