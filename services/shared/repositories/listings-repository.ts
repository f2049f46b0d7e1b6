/**
 * SQL for reading listings: the list route (filter, search, order, page, count), the detail
 * (by id or slug, with images and price history) and the categories. Writing listings from
 * crawls belongs to the crawler.
 *
 * The query shapes lean on the indexes of migration 0003 (see README "Performance"): partial
 * indexes on open listings per sort order, a GIN index on the generated `search_vector`, and the
 * `listing_search_terms` lexicon with a trigram index for typo correction.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../database/db.js';
import { executePrepared } from '../database/prepared.js';
import { MAKE_SYNONYMS, type DetailRow, type ListFilter, type ListingRow, type ListRequest } from '../../listings/listing-rules.js';

/** Listed by default: open at the source and not past its end time. */
const IS_LISTED = sql`l.status = 'open' AND (l.auction_end_at IS NULL OR l.auction_end_at > now())`;

/** How close a make/model word must be to a query word to be taken as its correction. */
const MIN_CORRECTION_SIMILARITY = 0.45;
const MAX_CORRECTIONS = 2;

/**
 * For each query word that is not itself a make/model word, the closest make/model words by
 * trigram similarity ("catterpillar" → "caterpillar"). One round trip for all words.
 */
export async function findSearchCorrections(db: DbOrTx, words: string[]): Promise<Map<string, string[]>> {
  const candidates = words.filter((w) => w.length >= 4 && /[a-z]/.test(w));
  const result = new Map<string, string[]>();
  if (candidates.length === 0) return result;
  const rows = await executePrepared<{ word: string; corrections: string[] }>(db, sql`
    SELECT w.word, array(
      SELECT t.term FROM listing_search_terms t
      WHERE t.term % w.word AND similarity(t.term, w.word) >= ${MIN_CORRECTION_SIMILARITY}
      ORDER BY similarity(t.term, w.word) DESC, t.term
      LIMIT ${MAX_CORRECTIONS}
    ) AS corrections
    FROM unnest(string_to_array(${candidates.join(' ')}, ' ')) AS w(word)
    WHERE NOT EXISTS (SELECT 1 FROM listing_search_terms e WHERE e.term = w.word)
  `);
  for (const row of rows) if (row.corrections.length > 0) result.set(row.word, row.corrections);
  return result;
}

/**
 * One tsquery group per word: the word (a prefix when it holds a digit, so the model code "320"
 * finds "320D" and "320FL"), its typo corrections and make synonyms; groups are ANDed, each looked
 * up in both configurations (english stems "excavators" to the title's "excavator"). Letter-only
 * words match whole lexemes: a prefix over a common word ("deere:*") makes GIN collect every
 * matching TID before intersecting (400 ms at 1M rows), where an exact lexeme lets its fast scan
 * skip along the rarer word. Words are [a-z0-9] only (searchWords): they cannot inject syntax.
 */
export function searchQuery(words: string[], corrections: Map<string, string[]>): SQL | undefined {
  if (words.length === 0) return undefined;
  const groups = words.map((word) => {
    if (!/^[a-z0-9]+$/.test(word)) throw new Error(`unsafe search word: ${word}`);
    const fixed = corrections.get(word) ?? [];
    const alternatives = [/[0-9]/.test(word) ? `${word}:*` : word, ...fixed, ...[word, ...fixed].flatMap((w) => MAKE_SYNONYMS[w] ?? [])];
    const text = [...new Set(alternatives)].join(' | ');
    return sql`(to_tsquery('simple'::regconfig, ${text}) || to_tsquery('english'::regconfig, ${text}))`;
  });
  return sql.join(groups, sql` && `);
}

function whereOf(filter: ListFilter, tsquery: SQL | undefined): SQL {
  const parts: SQL[] = [IS_LISTED];
  if (filter.categoryId !== undefined) parts.push(sql`l.category_id = ${filter.categoryId}`);
  if (filter.minPrice !== undefined) parts.push(sql`l.price_usd >= ${filter.minPrice}`);
  if (filter.maxPrice !== undefined) parts.push(sql`l.price_usd <= ${filter.maxPrice}`);
  if (filter.location?.state) parts.push(sql`l.state = ${filter.location.state}`);
  if (filter.location?.city) parts.push(sql`lower(l.city) = ${filter.location.city}`);
  if (tsquery) parts.push(sql`l.search_vector @@ (${tsquery})`);
  return sql.join(parts, sql` AND `);
}

/** ORDER BY for a sort over alias `p` (the page subquery's columns); always total (id last). */
function orderOf(sort: ListRequest['sort'], alias: 'l' | 'p'): SQL {
  const a = sql.raw(alias);
  switch (sort) {
    case 'deal_score_high':
      return sql`${a}.deal_score DESC NULLS LAST, ${a}.id ASC`;
    case 'deal_score_low':
      return sql`${a}.deal_score ASC NULLS LAST, ${a}.id ASC`;
    case 'price_low':
      return sql`${a}.price_usd ASC NULLS LAST, ${a}.id ASC`;
    case 'price_high':
      return sql`${a}.price_usd DESC NULLS LAST, ${a}.id ASC`;
    case 'relevance':
      // Over the ranked matches (see relevancePageIds) `rank` is a column of its own.
      return alias === 'l' ? sql`rank DESC, deal_score DESC NULLS LAST, id ASC` : sql`p.rank DESC, p.deal_score DESC NULLS LAST, p.id ASC`;
  }
}

export type SearchPlan = { tsquery: SQL | undefined };

/** Resolves a filter's search words into a tsquery (with corrections); reuse it for count and page. */
export async function planSearch(db: DbOrTx, filter: ListFilter): Promise<SearchPlan> {
  if (filter.searchWords.length === 0) return { tsquery: undefined };
  const corrections = await findSearchCorrections(db, filter.searchWords);
  return { tsquery: searchQuery(filter.searchWords, corrections) };
}

/** The count query of a filter (exported so the benchmark can EXPLAIN exactly what runs). */
export function countListedQuery(filter: ListFilter, plan: SearchPlan): SQL {
  return sql`SELECT count(*)::int AS n FROM listings l WHERE ${whereOf(filter, plan.tsquery)}`;
}

/**
 * Runs a page query: prepared (one round trip, plan reused) unless it searches or combines
 * filters (see executePrepared). A search's plan depends on its words; a combination's on how
 * selective each of its values is — which index to walk and which to filter by — and the
 * generic plan PostgreSQL switches a prepared statement to after five runs ignores the values:
 * on the benchmark's category+price+state shape, planning each time took it from 596 to 936
 * req/s and p95 from 213 to 82 ms, while a single filter is fastest prepared.
 */
async function runListQuery<T>(db: DbOrTx, query: SQL, plan: SearchPlan, filter: ListFilter): Promise<T[]> {
  const filters = [filter.categoryId !== undefined, filter.minPrice !== undefined || filter.maxPrice !== undefined, filter.location !== undefined];
  if (plan.tsquery || filters.filter(Boolean).length > 1) return (await db.execute(query)) as unknown as T[];
  return executePrepared<T>(db, query);
}

/**
 * Counts are planned with their values every time (not prepared): a count reads every match, so
 * its best path depends on how many a price bound or state lets through, which a generic plan
 * cannot know (the benchmark's category+price+state shape had a p99 of 3.6 s), and counts are cached
 * (CountCache), so their planning time is paid rarely.
 */
export async function countListed(db: DbOrTx, filter: ListFilter, plan: SearchPlan): Promise<number> {
  const rows = (await db.execute(countListedQuery(filter, plan))) as unknown as Array<{ n: number }>;
  return rows[0]?.n ?? 0;
}

/** ISO 8601 UTC text (the driver hands timestamps over as PostgreSQL text otherwise). */
const isoTime = (column: SQL) => sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const CARD_COLUMNS = sql`
  l.id, l.slug, l.title, l.make, l.model, l.year,
  l.price::float8 AS price, l.current_bid::float8 AS "currentBid", l.deal_score AS "dealScore",
  l.currency, l.city, l.state, ${isoTime(sql`l.auction_end_at`)} AS "auctionEndAt",
  l.first_image_url AS "firstImageUrl", l.image_count AS "imageCount",
  c.id AS "categoryId", c.name AS "categoryName", s.id AS "sourceId", s.display_name AS "sourceName",
  l.original_url AS "originalUrl"`;

/**
 * How many matches `relevance` ranks: the best-scored ones. Ranking every match of a broad word
 * (200k for "excavator") cost seconds; these are read off the deal-score index (or, for rarer
 * words, the GIN index) and ranked in a few milliseconds. Past them, matches follow in deal-score
 * order — still one total order, so pages never repeat or skip a listing.
 */
export const RELEVANCE_CANDIDATES = 300;

/**
 * The ids of one page in `relevance` order: the RELEVANCE_CANDIDATES best deals among the matches
 * by `ts_rank` (make/model words weigh most, then title, then description; equal ranks by deal
 * score), then the remaining matches by deal score.
 */
function relevancePageIds(request: ListRequest, plan: SearchPlan, offset: number): SQL {
  if (!plan.tsquery) throw new Error('relevance needs a search');
  const where = whereOf(request.filter, plan.tsquery);
  const end = offset + request.pageSize;
  const byScore = orderOf('deal_score_high', 'l');
  const ranked = sql`
      SELECT c.id, c.deal_score, c.price_usd, ts_rank(c.search_vector, ${plan.tsquery})::float8 AS rank
      FROM (
        SELECT l.id, l.deal_score, l.price_usd, l.search_vector FROM listings l
        WHERE ${where} ORDER BY ${byScore} LIMIT ${RELEVANCE_CANDIDATES}
      ) c`;
  // ts_rank is never negative, so the rest (rank -1) follows every candidate.
  const rest =
    end > RELEVANCE_CANDIDATES
      ? sql`
      UNION ALL (
        SELECT l.id, l.deal_score, l.price_usd, -1::float8 AS rank FROM listings l
        WHERE ${where} ORDER BY ${byScore} LIMIT ${end - RELEVANCE_CANDIDATES} OFFSET ${RELEVANCE_CANDIDATES}
      )`
      : sql``;
  return sql`
      SELECT id, deal_score, price_usd, rank FROM (${ranked} ${rest}) matches
      ORDER BY ${orderOf('relevance', 'l')}
      LIMIT ${request.pageSize} OFFSET ${offset}`;
}

/**
 * One page of listed listings. The page's ids are chosen first from the narrow sort index (an
 * index-only scan for deep OFFSETs), then only those rows are read and joined.
 */
export function listedPageQuery(request: ListRequest, plan: SearchPlan): SQL {
  const offset = (request.page - 1) * request.pageSize;
  // toListRequest already turns relevance without search words into the default order.
  const sort = request.sort === 'relevance' && !plan.tsquery ? 'deal_score_high' : request.sort;
  const ids =
    sort === 'relevance'
      ? relevancePageIds(request, plan, offset)
      : sql`
      SELECT l.id, l.deal_score, l.price_usd
      FROM listings l
      WHERE ${whereOf(request.filter, plan.tsquery)}
      ORDER BY ${orderOf(sort, 'l')}
      LIMIT ${request.pageSize} OFFSET ${offset}`;
  return sql`
    SELECT ${CARD_COLUMNS}
    FROM (${ids}) p
    JOIN listings l ON l.id = p.id
    JOIN categories c ON c.id = l.category_id
    JOIN sources s ON s.id = l.source_id
    ORDER BY ${orderOf(sort, 'p')}
  `;
}

export async function listListedPage(db: DbOrTx, request: ListRequest, plan: SearchPlan): Promise<ListingRow[]> {
  return runListQuery<ListingRow>(db, listedPageQuery(request, plan), plan, request.filter);
}

/** A listing by numeric id or slug, whatever its status (ended lots stay reachable). */
export async function findListingDetail(db: DbOrTx, key: { id: number } | { slug: string }): Promise<DetailRow | undefined> {
  const where = 'id' in key ? sql`l.id = ${key.id}` : sql`l.slug = ${key.slug}`;
  const rows = await executePrepared<DetailRow>(db, sql`
    SELECT ${CARD_COLUMNS},
      l.description, l.hours, l.condition, l.status, l.bid_count AS "bidCount",
      l.fair_value::float8 AS "fairValue", l.value_low::float8 AS "valueLow", l.value_high::float8 AS "valueHigh",
      l.valuation_confidence AS "valuationConfidence", l.comparables
    FROM listings l
    JOIN categories c ON c.id = l.category_id
    JOIN sources s ON s.id = l.source_id
    WHERE ${where}
  `);
  return rows[0];
}

const MAX_IMAGES = 50;
const MAX_HISTORY_POINTS = 500;

export async function listListingImageUrls(db: DbOrTx, listingId: number): Promise<string[]> {
  const rows = await executePrepared<{ url: string }>(db, sql`
    SELECT url FROM listing_images WHERE listing_id = ${listingId} ORDER BY position LIMIT ${MAX_IMAGES}
  `);
  return rows.map((r) => r.url);
}

/** The most recent observations (bounded), for the price history; the caller orders them. */
export async function listPriceObservations(db: DbOrTx, listingId: number): Promise<Array<{ observedAt: string; price: number | null }>> {
  return executePrepared<{ observedAt: string; price: number | null }>(db, sql`
    SELECT ${isoTime(sql`observed_at`)} AS "observedAt", price::float8 AS price
    FROM price_observations WHERE listing_id = ${listingId}
    ORDER BY observed_at DESC, id DESC LIMIT ${MAX_HISTORY_POINTS}
  `);
}

/** The ten equipment types then Other, in their fixed order. */
export async function listCategories(db: DbOrTx): Promise<Array<{ id: number; name: string }>> {
  const rows = (await db.execute(sql`SELECT id, name FROM categories ORDER BY position, id`)) as unknown as Array<{
    id: number;
    name: string;
  }>;
  return rows;
}
