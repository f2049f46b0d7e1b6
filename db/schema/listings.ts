import {
  date,
  doublePrecision,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { categories, sources } from './catalog.js';

const money = (name: string) => numeric(name, { precision: 14, scale: 2, mode: 'number' });

/** The listing's lifecycle at its source. */
export const LISTING_STATUSES = ['open', 'closed', 'sold', 'withdrawn'] as const;
export type ListingStatus = (typeof LISTING_STATUSES)[number];

/** The spec's six conditions; anything else is stored as null. */
export const CONDITIONS = ['New', 'Like New', 'Good', 'Fair', 'Poor', 'Parts Only'] as const;
export type Condition = (typeof CONDITIONS)[number];

/**
 * A comparable sale as stored on the listing: `price` in the dollars of the valuation's date
 * (`valuation_as_of`), `original_price` as it sold (absent on scores written before issue 18).
 */
export type Comparable = { title: string; price: number; original_price?: number; sold_at: string; source: string; url: string | null };

/**
 * A lot's bid limits as the scorer stores them (services/valuation/bid-limits.ts): whole-dollar
 * hammer bids before the stated premium; `hours_left` is the time left they were worked out at
 * (null: a fixed-price listing); `reachable_hours_left` from when each level can be reached.
 */
export type StoredBidLimits = {
  excellent: number | null;
  good: number | null;
  market: number;
  poor: number;
  premium_rate: number;
  hours_left: number | null;
  at_most: 'excellent' | 'good' | 'fair';
  reachable_hours_left: { excellent: number | null; good: number | null };
};

/**
 * One lot at one source, unique per (source, external id). `price` is what the buyer would pay
 * now before buyer's premium (current bid if there are bids, else asking/starting price);
 * `price_usd` is the same converted to USD for filtering and sorting.
 */
export const listings = pgTable(
  'listings',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    sourceId: integer('source_id')
      .notNull()
      .references(() => sources.id),
    externalId: text('external_id').notNull(),
    slug: text('slug').notNull(),
    title: text('title').notNull(),
    make: text('make'),
    model: text('model'),
    modelFamily: text('model_family'),
    year: integer('year'),
    hours: integer('hours'),
    condition: text('condition').$type<Condition>(),
    description: text('description').notNull().default(''),
    categoryId: integer('category_id')
      .notNull()
      .references(() => categories.id),
    city: text('city'),
    /** USPS code, e.g. `TX`. */
    state: text('state'),
    country: text('country').notNull().default('US'),
    /** The ZIP code the source gives, when it gives one (5 digits). */
    zip: text('zip'),
    /** Where the gazetteer placed the lot (services/shared/geo/); null when it could not. */
    lat: doublePrecision('lat'),
    lon: doublePrecision('lon'),
    /** How exactly: from its ZIP, its city, or its state's centroid; `none` when nothing placed it; null: not tried yet. */
    geoPrecision: text('geo_precision').$type<'zip' | 'city' | 'state' | 'none'>(),
    currency: text('currency').notNull().default('USD'),
    askingPrice: money('asking_price'),
    currentBid: money('current_bid'),
    bidCount: integer('bid_count').notNull().default(0),
    price: money('price'),
    priceUsd: money('price_usd'),
    buyersPremiumPct: numeric('buyers_premium_pct', { precision: 6, scale: 3, mode: 'number' }),
    status: text('status').$type<ListingStatus>().notNull().default('open'),
    auctionEndAt: timestamp('auction_end_at', { withTimezone: true }),
    originalUrl: text('original_url').notNull(),
    imageCount: integer('image_count').notNull().default(0),
    firstImageUrl: text('first_image_url'),

    /** 0–1000, null when the listing cannot be valued. Written only by the scorer. */
    dealScore: integer('deal_score'),
    fairValue: money('fair_value'),
    valueLow: money('value_low'),
    valueHigh: money('value_high'),
    valuationConfidence: doublePrecision('valuation_confidence'),
    comparables: jsonb('comparables').$type<Comparable[]>(),
    modelVersion: integer('model_version'),
    scoredAt: timestamp('scored_at', { withTimezone: true }),
    /** Why there is no deal score, for the buyer (the deal page shows it); null when scored. */
    scoreReason: text('score_reason'),
    /** The date (YYYY-MM-DD) whose market and dollars the valuation is in. */
    valuationAsOf: date('valuation_as_of', { mode: 'string' }),
    /** The deal score inverted (issue 38, migration 0050), written with the score; null when unscored or not open. */
    bidLimits: jsonb('bid_limits').$type<StoredBidLimits>(),
    /** bid_limits.good as a column: cards and the watchlist read it. */
    goodBidLimit: integer('good_bid_limit'),

    /** The last fetched payload, kept so a parser fix can re-parse without re-crawling. */
    rawPayload: jsonb('raw_payload'),
    contentHash: text('content_hash'),
    firstSeenAt: timestamp('first_seen_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('listings_source_external_key').on(t.sourceId, t.externalId),
    uniqueIndex('listings_slug_key').on(t.slug),
    index('listings_status_end_idx').on(t.status, t.auctionEndAt),
    index('listings_category_idx').on(t.categoryId),
  ],
);

/** Image URLs of a listing, in the source's order. */
export const listingImages = pgTable(
  'listing_images',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    listingId: integer('listing_id')
      .notNull()
      .references(() => listings.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    url: text('url').notNull(),
  },
  (t) => [uniqueIndex('listing_images_listing_position_key').on(t.listingId, t.position)],
);

/** Price/bid history: one row per observed change of price, bid or status. */
export const priceObservations = pgTable(
  'price_observations',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    listingId: integer('listing_id')
      .notNull()
      .references(() => listings.id, { onDelete: 'cascade' }),
    observedAt: timestamp('observed_at', { withTimezone: true }).notNull().defaultNow(),
    price: money('price'),
    currentBid: money('current_bid'),
    bidCount: integer('bid_count').notNull().default(0),
    status: text('status').$type<ListingStatus>().notNull(),
  },
  (t) => [index('price_observations_listing_time_idx').on(t.listingId, t.observedAt)],
);

/**
 * Sales history used by the valuation model: closed lots with a final price from crawled
 * sources, and imported records (e.g. Fast Iron). Unique per (origin, external id).
 */
export const soldResults = pgTable(
  'sold_results',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    /** `crawl:<source>` or `import:<format>`. */
    origin: text('origin').notNull(),
    externalId: text('external_id').notNull(),
    listingId: integer('listing_id').references(() => listings.id, { onDelete: 'set null' }),
    title: text('title').notNull().default(''),
    make: text('make'),
    model: text('model'),
    modelFamily: text('model_family'),
    year: integer('year'),
    hours: integer('hours'),
    condition: text('condition').$type<Condition>(),
    categoryId: integer('category_id')
      .notNull()
      .references(() => categories.id),
    state: text('state'),
    saleChannel: text('sale_channel'),
    soldAt: timestamp('sold_at', { withTimezone: true }).notNull(),
    price: money('price').notNull(),
    currency: text('currency').notNull().default('USD'),
    url: text('url'),
    /** Whatever else the record carries (size class, enclosure, attachments…), for the model. */
    attributes: jsonb('attributes').$type<Record<string, string | number | null>>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('sold_results_origin_external_key').on(t.origin, t.externalId),
    index('sold_results_category_family_idx').on(t.categoryId, t.modelFamily, t.soldAt),
    index('sold_results_sold_at_idx').on(t.soldAt),
  ],
);
