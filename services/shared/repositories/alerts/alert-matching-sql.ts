/**
 * SQL of matching: which alerts the changed listings satisfy, recorded as notifications.
 *
 * Matching is set-based: one INSERT … SELECT … ON CONFLICT DO NOTHING RETURNING per batch of
 * changed listings. Each listing is expanded to its (state, condition) keys and '' ("any"), and
 * joined to active alerts by equality on (category_id, state_key, condition_key) — a hash join
 * for big batches, probes of `alerts_active_match_idx` for one listing — then the remaining
 * criteria (price bounds, badge score, keywords) filter the candidates. The rule is the one in
 * services/alerts/alert-matching.ts, which tests compare this SQL against.
 */
import { sql, type SQL } from 'drizzle-orm';
import { MATERIAL_PRICE_DROP } from '../../rules/alert-limits.js';
import { FREIGHT_RATES, ROAD_FACTOR, WEIGHT_CLASSES, weightClass, type WeightClass } from '../../rules/freight-rates.js';
import type { DbOrTx } from '../../database/db.js';
import { intArray, textArray } from '../../database/sql-arrays.js';

export type MatchTrigger = 'new' | 'scored' | 'price_drop';
/** A listing that appeared, was (re)scored or dropped in price. */
export type ChangedListing = { listingId: number; trigger: MatchTrigger };

/**
 * Records one notification per (alert, listing, event) for every active alert the changed
 * listings satisfy, and returns how many. The event is `match` the first time a lot satisfies an
 * alert; after that only a material change records one: `price_drop` (keyed by the new price)
 * when the price is 10% or more below the lowest notified, else `level_up` (keyed by the level)
 * when the deal level is above every level notified — `notificationEvent` in alert-matching.ts.
 * Anything else (a rescore at the same level, a bid going up, the same batch run twice) records
 * nothing. The daily cap of instant messages is applied when they are dispatched
 * (`rollOverBeyondDailyCap`), not here: it needs the alerts locked, and this statement stays the
 * one fast set-based pass.
 */
export async function matchChangedListings(db: DbOrTx, changes: ChangedListing[], now: Date = new Date()): Promise<number> {
  if (changes.length === 0) return 0;
  const classes = await weightClassesOf(db, changes.map((c) => c.listingId));
  const [row] = (await db.execute(matchStatement(changes, now, classes))) as unknown as Array<{ created: number }>;
  return row?.created ?? 0;
}

/**
 * The weight class (freight.ts) of each listing, for "worth the trip" alerts: it is read from the
 * type and title by rules stated once, in TypeScript, so the matcher computes it here and hands it
 * to the statement rather than restating the rules in SQL.
 */
export async function weightClassesOf(db: DbOrTx, listingIds: number[]): Promise<Map<number, WeightClass>> {
  if (listingIds.length === 0) return new Map();
  const rows = (await db.execute(sql`
    SELECT id, category_id AS "categoryId", title FROM listings WHERE id = ANY(${intArray([...new Set(listingIds)])})
  `)) as unknown as Array<{ id: number; categoryId: number; title: string }>;
  return new Map(rows.map((r) => [r.id, weightClass(r.categoryId, r.title)]));
}

/**
 * The haul's high estimate (freight.ts `haulEstimate(...).high`) in SQL, from a weight class and a
 * distance: road miles = round(miles × ROAD_FACTOR), at least the class's minimum, rounded to
 * $10. The same float8 operations as JavaScript's, in the same order, so the two agree exactly
 * (Math.round(x) is floor(x + 0.5) for these non-negative values). NULL for an unknown class.
 */
function haulHighSql(weight: SQL, miles: SQL): SQL {
  // Our own constants as literals (numbers only), one CASE per rate.
  const byClass = (value: (c: WeightClass) => number) =>
    sql`(CASE ${weight} ${sql.raw(WEIGHT_CLASSES.map((c) => `WHEN '${c}' THEN ${Number(value(c))}::float8`).join(' '))} END)`;
  const minimum = byClass((c) => FREIGHT_RATES[c].minimum[1]);
  const perMile = byClass((c) => FREIGHT_RATES[c].perMile[1]);
  const roadMiles = sql`floor(greatest(0::float8, ${miles}) * ${sql.raw(`${Number(ROAD_FACTOR)}::float8`)} + 0.5::float8)`;
  return sql`(floor(greatest(${minimum}, ${roadMiles} * ${perMile}) / 10::float8 + 0.5::float8) * 10::float8)`;
}

/** The level rank of `levelRank` (alert-matching.ts) in SQL, from a badge (NULL: not valued). */
const rankOf = (badge: SQL) => sql`CASE WHEN ${badge} IS NULL THEN 0 WHEN ${badge} >= 80 THEN 4 WHEN ${badge} >= 60 THEN 3 WHEN ${badge} >= 40 THEN 2 ELSE 1 END`;
const badgeOf = (dealScore: SQL) => sql`CASE WHEN ${dealScore} IS NULL THEN NULL ELSE least(100, greatest(0, ceil(${dealScore} / 10.0)))::int END`;

/**
 * The matching statement itself (the benchmark prints its plan). `classes`: each listing's weight
 * class (`weightClassesOf`); a listing without one is never "worth the trip".
 */
export function matchStatement(changes: ChangedListing[], now: Date, classes: ReadonlyMap<number, WeightClass> = new Map()): SQL {
  // unnest of two arrays rather than jsonb_to_recordset: the planner knows unnest's row count
  // (one for a match job's single listing, so it probes alerts_active_match_idx), while a jsonb
  // set is always guessed at 100 rows, which made it scan every alert for one listing.
  const ids = intArray(changes.map((c) => c.listingId));
  const triggers = textArray(changes.map((c) => c.trigger));
  const weights = textArray(changes.map((c) => classes.get(c.listingId) ?? ''));
  return sql`
    WITH changed AS (
      SELECT DISTINCT ON (l.id)
             l.id, l.category_id, l.price_usd, l.state, l.condition, l.deal_score, l.lat, l.lon,
             l.fair_value, nullif(e.weight_class, '') AS weight_class,
             ${badgeOf(sql`l.deal_score`)} AS badge,
             lower(l.title || ' ' || coalesce(l.make, '') || ' ' || coalesce(l.model, '') || ' ' || l.description) AS haystack,
             e.trigger
      FROM unnest(${ids}, ${triggers}, ${weights}) AS e(listing_id, trigger, weight_class)
      JOIN listings l ON l.id = e.listing_id
      WHERE l.status = 'open' AND (l.auction_end_at IS NULL OR l.auction_end_at > ${now.toISOString()}::timestamptz)
      ORDER BY l.id, (e.trigger = 'price_drop') DESC, e.trigger
    ),
    -- What these listings were already notified at, read once before any row is inserted (a
    -- per-pair probe would rescan the rows this very statement adds).
    previous AS MATERIALIZED (
      SELECT p.alert_id, p.listing_id, min(p.price_usd) AS lowest, max(${rankOf(badgeOf(sql`p.deal_score`))}) AS best_rank
      FROM alert_notifications p
      WHERE p.listing_id IN (SELECT id FROM changed)
      GROUP BY p.alert_id, p.listing_id
    ),
    keyed AS (
      SELECT c.*, ${rankOf(sql`c.badge`)} AS rank, s.state_key, k.condition_key
      FROM changed c
      CROSS JOIN LATERAL (SELECT DISTINCT x AS state_key FROM unnest(ARRAY['', coalesce(c.state, '')]) AS x) s
      CROSS JOIN LATERAL (SELECT DISTINCT y AS condition_key FROM unnest(ARRAY['', coalesce(c.condition, '')]) AS y) k
    ),
    candidates AS (
      SELECT a.id AS alert_id, a.user_id, k.id AS listing_id, a.delivery_method, a.frequency, k.trigger, k.price_usd, k.deal_score, k.badge,
             CASE WHEN prev.alert_id IS NULL THEN 'match'
                  WHEN k.price_usd <= prev.lowest * ${MATERIAL_PRICE_DROP} THEN 'price_drop'
                  ELSE 'level_up' END AS event,
             CASE WHEN prev.alert_id IS NULL THEN ''
                  WHEN k.price_usd <= prev.lowest * ${MATERIAL_PRICE_DROP} THEN k.price_usd::float8::text
                  ELSE (ARRAY['unscored', 'poor', 'fair', 'good', 'excellent'])[k.rank + 1] END AS event_key
      FROM keyed k
      JOIN alerts a ON a.is_active
                   AND a.category_id = k.category_id
                   AND a.state_key = k.state_key
                   AND a.condition_key = k.condition_key
      JOIN users u ON u.id = a.user_id AND u.is_active
      LEFT JOIN previous prev ON prev.alert_id = a.id AND prev.listing_id = k.id
      WHERE (a.price_min IS NULL OR k.price_usd >= a.price_min)
        AND (a.price_max IS NULL OR k.price_usd <= a.price_max)
        -- deals only: the premium minimum, else the level (good 60, excellent 80); unvalued lots by opt-in
        AND (CASE WHEN k.badge IS NULL THEN a.include_unscored
                  ELSE k.badge >= coalesce(a.min_deal_score, CASE WHEN a.deal_level = 'excellent' THEN 80 ELSE 60 END) END)
        -- within the radius of the alert's ZIP code (the same distance as the pure rule: geo_distance_miles)
        AND (a.radius_miles IS NULL OR (k.lat IS NOT NULL AND k.lon IS NOT NULL
             AND geo_distance_miles(a.near_lat, a.near_lon, k.lat, k.lon) <= a.radius_miles))
        -- worth the trip: the discount under fair value exceeds the haul's high estimate from the
        -- alert's ZIP code (worthTheTripFor in alert-matching.ts), in numeric (whole cents, as the
        -- pure rule and the list count it); unplaced, unvalued or unpriced lots never
        AND (NOT a.worth_the_trip OR (k.lat IS NOT NULL AND k.lon IS NOT NULL AND a.near_lat IS NOT NULL AND a.near_lon IS NOT NULL
             AND k.price_usd IS NOT NULL AND k.fair_value IS NOT NULL AND k.weight_class IS NOT NULL
             AND k.fair_value - k.price_usd > ${haulHighSql(sql`k.weight_class`, sql`geo_distance_miles(a.near_lat, a.near_lon, k.lat, k.lon)`)}::numeric))
        AND (a.keyword_terms IS NULL OR NOT EXISTS (SELECT 1 FROM unnest(a.keyword_terms) AS t WHERE strpos(k.haystack, t) = 0))
        AND (prev.alert_id IS NULL OR k.price_usd <= prev.lowest * ${MATERIAL_PRICE_DROP} OR k.rank > prev.best_rank)
    ),
    inserted AS (
      INSERT INTO alert_notifications (alert_id, user_id, listing_id, event, event_key, trigger, channel, frequency, price_usd, deal_score)
      SELECT c.alert_id, c.user_id, c.listing_id, c.event, c.event_key, c.trigger, c.delivery_method, c.frequency, c.price_usd, c.deal_score
      FROM candidates c
      ON CONFLICT DO NOTHING
      RETURNING 1
    )
    SELECT count(*)::int AS created FROM inserted
  `;
}
