/**
 * The Listings API contract (product spec §3/§7, PRODUCT.md "Listings") as zod schemas: the
 * query of the list route and every response. Routes validate with them and the OpenAPI
 * description at /api/docs/ is generated from them, so the web app can build on either.
 */
import { z } from 'zod';
import { lookupZip } from '../shared/geo/gazetteer.js';

/**
 * The spec's four orders, plus our `relevance` (full-text rank; meaningful with `search`),
 * `distance` (nearest first; needs `near`) and `delivered` (cheapest delivered first; needs `near`).
 */
export const SORT_OPTIONS = ['deal_score_high', 'deal_score_low', 'price_low', 'price_high', 'relevance', 'distance', 'delivered'] as const;
export type SortOption = (typeof SORT_OPTIONS)[number];

export const DEAL_LEVELS = ['excellent', 'good', 'fair', 'poor'] as const;
export type DealLevel = (typeof DEAL_LEVELS)[number];

export const DEFAULT_PAGE_SIZE = 15;
export const MAX_PAGE_SIZE = 100;
export const MAX_PAGE = 1_000_000;
export const MAX_PRICE = 1_000_000_000;
export const MAX_SEARCH_LENGTH = 200;
export const MAX_LOCATION_LENGTH = 100;
/** The largest radius asked for: farther than any two points of the lower 48 states. */
export const MAX_RADIUS_MILES = 3000;
export const GEO_PRECISIONS = ['zip', 'city', 'state'] as const;

/** Browsers send `?min_price=` for an empty field: an empty value means "not set". */
const emptyAsUnset = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);

// Messages omit the parameter's name: the error handler prefixes it ("page: must be at least 1.").
export const wholeNumber = (min: number, max: number) =>
  z.preprocess(
    emptyAsUnset,
    z.coerce
      .number({ error: 'must be a whole number.' })
      .int({ error: 'must be a whole number.' })
      .min(min, { error: `must be at least ${min}.` })
      .max(max, { error: `must be at most ${max}.` })
      .optional(),
  );

/** A US ZIP code the gazetteer knows (5 digits; ZIP+4 is accepted and cut). */
export const zipCodeSchema = z.preprocess(
  emptyAsUnset,
  z
    .string({ error: 'must be given once.' })
    .trim()
    .regex(/^\d{5}(-\d{4})?$/, { error: 'must be a 5-digit US ZIP code.' })
    .refine((zip) => !/^\d{5}(-\d{4})?$/.test(zip) || lookupZip(zip) !== null, { error: 'is not a known US ZIP code.' })
    .transform((zip) => zip.slice(0, 5))
    .optional(),
);

export const text = (max: number) => z.preprocess(emptyAsUnset, z.string({ error: 'must be given once.' }).max(max, { error: `must be at most ${max} characters.` }).optional());

export const listQuerySchema = z.object({
  category: wholeNumber(1, 2_147_483_647).describe('Category id (see /api/auctions/categories/).'),
  min_price: wholeNumber(0, MAX_PRICE).describe('Lowest price in whole USD: what the buyer would pay now.'),
  max_price: wholeNumber(0, MAX_PRICE).describe('Highest price in whole USD: what the buyer would pay now.'),
  location: text(MAX_LOCATION_LENGTH).describe('A US state (code or name), a city, or "City, ST".'),
  search: text(MAX_SEARCH_LENGTH).describe('Words to find in make, model, title and description.'),
  sort_by: z
    .preprocess(emptyAsUnset, z.enum(SORT_OPTIONS, { error: `must be one of ${SORT_OPTIONS.join(', ')}.` }).optional())
    .describe(
      'deal_score_high (default), deal_score_low, price_low, price_high; distance (needs near: nearest first, listings that cannot be placed last); delivered (needs near: the cheapest delivered total first — price, stated premium and the haul\'s high estimate — listings without a price or a place last); relevance ranks the 300 best-scored search matches (make/model words first, then title, then description), the other matches following by deal score, and falls back to deal_score_high without a search.',
    ),
  near: zipCodeSchema.describe("The buyer's US ZIP code: cards then carry distance_miles, and radius_miles and sort_by=distance apply."),
  radius_miles: wholeNumber(0, MAX_RADIUS_MILES).describe('With near: only listings within this many miles (as the crow flies) of the ZIP code; listings that cannot be placed are left out.'),
  max_delivered: wholeNumber(0, MAX_PRICE).describe(
    "Needs near: only listings whose delivered total — price, the source's stated buyer's premium and the haul's high estimate to the ZIP code, in USD — is at most this; listings without a price or a place are left out.",
  ),
  worth_the_trip: z
    .preprocess(emptyAsUnset, z.enum(['true', 'false'], { error: 'must be true or false.' }).optional())
    .transform((v) => (v === undefined ? undefined : v === 'true'))
    .describe("true needs near: only listings whose discount under their fair value exceeds the haul's high estimate to the ZIP code (the bargain survives bringing it home)."),
  page: wholeNumber(1, MAX_PAGE).describe('Page number, from 1.'),
  page_size: wholeNumber(1, MAX_PAGE_SIZE).describe(`Items per page, default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}.`),
});
export type ListQuery = z.infer<typeof listQuerySchema>;

export const idNameSchema = z.object({ id: z.number().int(), name: z.string() });

/** A dashboard card (spec §3 "Auction listing (card)"). */
export const listingCardSchema = z.object({
  id: z.number().int(),
  slug: z.string(),
  make_model: z.string(),
  year: z.number().int().nullable(),
  /** What the buyer would pay now (current bid, else asking price), in `currency`; null = price on request. */
  price: z.number().nullable(),
  /** The latest bid, or null when there is none. */
  current_price: z.number().nullable(),
  /** 0–1000 from the scorer, or null when the listing cannot be valued. */
  deal_score: z.number().int().nullable(),
  currency: z.string(),
  location: z.string().nullable(),
  auction_end_date: z.string().nullable(),
  first_image: z.string().nullable(),
  image_count: z.number().int(),
  category: idNameSchema,
  auction_site: idNameSchema,
  original_url: z.string(),
  good_bid_limit: z
    .number()
    .int()
    .nullable()
    .describe('The highest bid (USD, before the stated buyer\'s premium) at which the lot still scores Good at its time left, as stored with its score ("Good up to $6,200"); null when unscored or no bid can be Good yet.'),
  distance_miles: z.number().nullable().optional().describe('With near: miles from the ZIP code as the crow flies (a tenth), null when the lot cannot be placed.'),
  location_precision: z
    .enum(GEO_PRECISIONS)
    .nullable()
    .optional()
    .describe("With near: how exactly the lot is placed: its ZIP code, its city, or only its state's centroid (a distance then is rough); null when it cannot be placed."),
  delivered_total_low: z
    .number()
    .nullable()
    .optional()
    .describe("With near: the delivered total in USD with the haul's low estimate (price + stated premium + haul_low, as the detail's delivered.total_low); null without a price or a place."),
  delivered_total_high: z
    .number()
    .nullable()
    .optional()
    .describe('With near: the same with the haul\'s high estimate — what max_delivered and sort_by=delivered use; null without a price or a place.'),
});
export type ListingCard = z.infer<typeof listingCardSchema>;

export const paginationSchema = z.object({
  current_page: z.number().int(),
  total_pages: z.number().int(),
  total_count: z.number().int(),
  has_next: z.boolean(),
  has_previous: z.boolean(),
});
export type Pagination = z.infer<typeof paginationSchema>;

export const listResponseSchema = z.object({
  data: z.object({ items: z.array(listingCardSchema), pagination: paginationSchema }),
});
export type ListResponse = z.infer<typeof listResponseSchema>;

export const comparableSaleSchema = z.object({
  title: z.string(),
  /** Kept for older clients: the same as `adjusted_price`. */
  price: z.number().describe('The sale price in the dollars of the valuation date (same as adjusted_price).'),
  original_price: z.number().describe('The price the machine sold for, in the dollars of its sale date.'),
  adjusted_price: z.number().describe("The sale price brought to the valuation date's market (valuation.as_of) by the price index."),
  sold_at: z.string().describe('When it sold (ISO 8601).'),
  source: z.string(),
  url: z.string().nullable(),
});

export const valuationSchema = z.object({
  /** YYYY-MM-DD: the market and dollars the fair value and adjusted prices are in. */
  as_of: z.string().nullable().describe('The date (YYYY-MM-DD) whose market and dollars the values are in; null for valuations older than this field.'),
  market_as_of: z
    .string()
    .nullable()
    .describe("The month (YYYY-MM) of the latest sales the market level rests on: after it the level is carried flat; null for models before it."),
  fair_value: z.number(),
  low: z.number().nullable(),
  high: z.number().nullable(),
  /** 0–1. */
  confidence: z.number().nullable(),
  /** The deal in one sentence with numbers (services/valuation/deal-claim.ts). */
  claim: z
    .string()
    .nullable()
    .describe('The deal in one sentence: what the buyer pays (premium included), how far under or over similar sales, how sure, e.g. "$3,350 — about 60% under similar sales; 99 in 100 sold for more"; null without a score.'),
  /** Why the fair value lies outside its comparables, or how a lot without a year or comparables was valued (agreement.ts). */
  note: z
    .string()
    .nullable()
    .describe('One line when the fair value lies outside its comparables\' today prices (e.g. "Newer and fewer hours than these sales, so valued above them.") or the lot has no year or no comparables; null otherwise.'),
  comparables: z.array(comparableSaleSchema),
});
export type Valuation = z.infer<typeof valuationSchema>;

export const pricePointSchema = z.object({ observed_at: z.string(), price: z.number().nullable() });

/** What the lot costs at the buyer's ZIP code (issue 30): see docs/delivered-price.md. */
export const deliveredSchema = z.object({
  price: z.number().nullable().describe('What the buyer pays the seller now before premium (current bid, else asking price), in USD (price_usd, as the cards); null: price on request.'),
  premium: z.number().nullable().describe("The buyer's premium in USD when the source states its rate; null when it does not."),
  haul_low: z.number().describe('The haul estimate, low end (USD).'),
  haul_high: z.number().describe('The haul estimate, high end (USD).'),
  total_low: z.number().nullable().describe('price + premium + haul_low; null without a price.'),
  total_high: z.number().nullable().describe('price + premium + haul_high; null without a price.'),
  distance_miles: z.number().describe('Miles from the ZIP code as the crow flies (the haul counts road miles: × 1.2).'),
  weight_class: z.enum(['compact', 'mid', 'heavy', 'oversize']).describe("The machine's weight class, from its type and the size words and model of its title."),
  basis: z.string().describe('How the haul was estimated, in a sentence a buyer reads.'),
});

const deliveredRangeSchema = z.object({ low: z.number(), high: z.number() }).nullable();

/** The deal score inverted (issue 38, services/valuation/bid-limits.ts), stored with the score. */
export const bidLimitsSchema = z.object({
  excellent: z.number().int().nullable().describe("The highest hammer bid (USD, before the stated buyer's premium) at which the lot still scores Excellent at its time left; null when no bid can yet."),
  good: z.number().int().nullable().describe('The highest hammer bid at which it still scores Good; null when no bid can yet (an auction days from its close).'),
  market: z.number().int().describe("The bid at the lot's market: the fair value less the stated premium."),
  poor: z.number().int().describe('The lowest bid at which the lot scores Poor (the price bar\'s Fair | Poor boundary).'),
  premium_rate: z.number().describe("The buyer's premium the limits are before, as a fraction (0.1 = 10%); 0 when the source states none."),
  as_of: z.string().describe('When the limits were worked out (the score\'s time, ISO 8601): they rise as the close nears and the lot is rescored.'),
  hours_left: z.number().nullable().describe('Hours to the close then; null for a fixed-price listing.'),
  at_most: z.enum(['excellent', 'good', 'fair']).describe('The best level any bid can have at that time left.'),
  basis: z.string().describe('What the limits rest on, in a sentence: hammer bids, the premium, the fair value, the time left.'),
  line: z.string().describe('The deal page\'s line, e.g. "Bid up to $6,200 for a Good deal (19 in 20 similar machines sold for more); $3,100 for Excellent".'),
  note: z.string().nullable().describe('Why a level is out of reach now ("With 5 days left this lot can be at most Fair: …"); null when every level can be reached.'),
  delivered: z
    .object({ excellent: deliveredRangeSchema, good: deliveredRangeSchema, market: deliveredRangeSchema })
    .nullable()
    .optional()
    .describe('With near: each limit\'s delivered total (the bid, its premium and the haul\'s low and high estimates); null when the lot cannot be placed.'),
});
export type BidLimitsView = z.infer<typeof bidLimitsSchema>;

/** The deal detail (spec §3 "Deal (detail)" plus PRODUCT.md's additions). */
export const dealDetailSchema = z.object({
  id: z.number().int(),
  slug: z.string(),
  make_model: z.string(),
  title: z.string(),
  price: z.number().nullable(),
  current_price: z.number().nullable(),
  currency: z.string(),
  location: z.string().nullable(),
  /** Plain text (markup removed), at most 5,000 characters. */
  description: z.string(),
  images: z.array(z.string()),
  image_count: z.number().int(),
  auction_end_date: z.string().nullable(),
  original_url: z.string(),
  status: z.enum(['open', 'closed', 'sold', 'withdrawn']),
  bid_count: z.number().int(),
  category: idNameSchema,
  auction_site: idNameSchema,
  deal_score: z.number().int().nullable(),
  deal_level: z.enum(DEAL_LEVELS).nullable(),
  /** Why there is no deal score, for the buyer; null when scored. */
  score_reason: z.string().nullable().describe('Why deal_score is null, in words a buyer reads (e.g. "Not enough sales of this type yet"); null when scored.'),
  year: z.number().int().nullable(),
  hours: z.number().int().nullable(),
  condition: z.string().nullable(),
  valuation: valuationSchema.nullable(),
  bid_limits: bidLimitsSchema.nullable().describe('The deal score inverted: the most to bid for each level at the lot\'s time left; null when the lot is unscored or not open.'),
  /** Oldest first. */
  price_history: z.array(pricePointSchema),
  distance_miles: z.number().nullable().optional().describe('With near: miles from the ZIP code as the crow flies (a tenth), null when the lot cannot be placed.'),
  location_precision: z.enum(GEO_PRECISIONS).nullable().optional().describe('With near: how exactly the lot is placed (zip, city, or state centroid); null when it cannot be placed.'),
  delivered: deliveredSchema.nullable().optional().describe('With near: the price delivered to that ZIP code (bid, premium, haul range, total); null when the lot cannot be placed.'),
});
export type DealDetail = z.infer<typeof dealDetailSchema>;

export const detailResponseSchema = z.object({ data: dealDetailSchema });
export const detailQuerySchema = z.object({
  near: zipCodeSchema.describe("The buyer's US ZIP code: the detail then carries distance_miles and the price delivered."),
});
export const detailParamsSchema = z.object({
  id: z.string().min(1).max(200).describe('The numeric id or the slug of the listing.'),
});

export const categoriesResponseSchema = z.object({ data: z.object({ categories: z.array(idNameSchema) }) });

export const notFoundSchema = z.object({ detail: z.string() });
export const badRequestSchema = z.object({ detail: z.string() }).catchall(z.union([z.array(z.string()), z.string()]));
