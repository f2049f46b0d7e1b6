/**
 * SQL for alerts, their notifications, daily digests and SMS opt-outs.
 *
 * Matching is set-based: one INSERT … SELECT … ON CONFLICT DO NOTHING RETURNING per batch of
 * changed listings. Each listing is expanded to its (state, condition) keys and '' ("any"), and
 * joined to active alerts by equality on (category_id, state_key, condition_key) — a hash join
 * for big batches, probes of `alerts_active_match_idx` for one listing — then the remaining
 * criteria (price bounds, badge score, keywords) filter the candidates. The rule is the one in
 * services/alerts/alert-matching.ts, which tests compare this SQL against.
 */
import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import { alertDigests, alertNotifications, alerts, smsOptOuts } from '../../../db/schema/index.js';
import type { AlertDealLevel, AlertFrequency, DeliveryMethod, NotificationEvent } from '../../../db/schema/alerts.js';
import type { Condition } from '../../../db/schema/listings.js';
import { parseAlertMessageKey } from '../../alerts/alert-message-keys.js';
import type { AlertCriteria } from '../../alerts/alert-rules.js';
import { MATERIAL_PRICE_DROP, type DailyCaps } from '../../alerts/alert-matching.js';
import { FREIGHT_RATES, ROAD_FACTOR, WEIGHT_CLASSES, weightClass, type WeightClass } from '../../valuation/freight.js';
import type { DbOrTx } from '../database/db.js';
import { intArray, textArray } from '../database/sql-arrays.js';

export type AlertRow = typeof alerts.$inferSelect;
export type MatchTrigger = 'new' | 'scored' | 'price_drop';
/** A listing that appeared, was (re)scored or dropped in price. */
export type ChangedListing = { listingId: number; trigger: MatchTrigger };

function criteriaValues(c: AlertCriteria) {
  return {
    categoryId: c.categoryId,
    priceMin: c.priceMin,
    priceMax: c.priceMax,
    state: c.state,
    condition: c.condition,
    deliveryMethod: c.deliveryMethod,
    frequency: c.frequency,
    dealLevel: c.dealLevel,
    minDealScore: c.minDealScore,
    includeUnscored: c.includeUnscored,
    keywords: c.keywords,
    keywordTerms: c.keywordTerms,
    isActive: c.isActive,
    nearZip: c.nearZip,
    nearLat: c.nearLat,
    nearLon: c.nearLon,
    radiusMiles: c.radiusMiles,
    worthTheTrip: c.worthTheTrip ?? false,
  };
}

export function criteriaOf(row: AlertRow): AlertCriteria {
  return {
    categoryId: row.categoryId,
    priceMin: row.priceMin,
    priceMax: row.priceMax,
    state: row.state,
    condition: row.condition,
    deliveryMethod: row.deliveryMethod,
    frequency: row.frequency,
    dealLevel: row.dealLevel,
    minDealScore: row.minDealScore,
    includeUnscored: row.includeUnscored,
    keywords: row.keywords,
    keywordTerms: row.keywordTerms,
    isActive: row.isActive,
    nearZip: row.nearZip,
    nearLat: row.nearLat,
    nearLon: row.nearLon,
    radiusMiles: row.radiusMiles,
    worthTheTrip: row.worthTheTrip,
  };
}

// ---- alerts ------------------------------------------------------------------------------

export async function listAlerts(db: DbOrTx, userId: number): Promise<AlertRow[]> {
  return db.select().from(alerts).where(eq(alerts.userId, userId)).orderBy(desc(alerts.createdAt), desc(alerts.id));
}

export async function findUserAlert(db: DbOrTx, userId: number, alertId: number): Promise<AlertRow | undefined> {
  const [row] = await db.select().from(alerts).where(and(eq(alerts.id, alertId), eq(alerts.userId, userId)));
  return row;
}

/**
 * Inserts an alert unless the user already has `maxAlerts` (null = no limit). The user's row is
 * locked for the count, so two requests at once cannot both take the last free slot.
 */
export async function insertAlertWithinLimit(
  db: DbOrTx,
  userId: number,
  criteria: AlertCriteria,
  maxAlerts: number | null,
): Promise<AlertRow | 'limit'> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`);
    if (maxAlerts !== null) {
      const [{ n }] = (await tx.execute(sql`SELECT count(*)::int AS n FROM alerts WHERE user_id = ${userId}`)) as unknown as [{ n: number }];
      if (n >= maxAlerts) return 'limit' as const;
    }
    const [row] = await tx.insert(alerts).values({ userId, ...criteriaValues(criteria) }).returning();
    return row!;
  });
}

export async function countUserAlerts(db: DbOrTx, userId: number): Promise<number> {
  const [{ n }] = (await db.execute(sql`SELECT count(*)::int AS n FROM alerts WHERE user_id = ${userId}`)) as unknown as [{ n: number }];
  return n;
}

export async function updateUserAlert(db: DbOrTx, userId: number, alertId: number, criteria: AlertCriteria): Promise<AlertRow | undefined> {
  const [row] = await db
    .update(alerts)
    .set({ ...criteriaValues(criteria), updatedAt: sql`now()` })
    .where(and(eq(alerts.id, alertId), eq(alerts.userId, userId)))
    .returning();
  return row;
}

/** Deletes the alert and what was matched for it (notifications have no foreign key: see schema). */
export async function deleteUserAlert(db: DbOrTx, userId: number, alertId: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    const rows = await tx.delete(alerts).where(and(eq(alerts.id, alertId), eq(alerts.userId, userId))).returning({ id: alerts.id });
    if (rows.length > 0) await tx.delete(alertNotifications).where(and(eq(alertNotifications.userId, userId), eq(alertNotifications.alertId, alertId)));
    return rows.length > 0;
  });
}

export async function findAlertById(db: DbOrTx, alertId: number): Promise<AlertRow | undefined> {
  const [row] = await db.select().from(alerts).where(eq(alerts.id, alertId));
  return row;
}

/** The unsubscribe link's effect: the alert is turned off (whoever is signed in, or no one). */
export async function deactivateAlert(db: DbOrTx, alertId: number): Promise<AlertRow | undefined> {
  const [row] = await db.update(alerts).set({ isActive: false, updatedAt: sql`now()` }).where(eq(alerts.id, alertId)).returning();
  return row;
}

// ---- matching ----------------------------------------------------------------------------

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

/** Everything a message about one notification needs. */
/** Who an alert message goes to and what the alert asks, as the messages state it (instant and digest alike). */
type AlertMessageColumns = {
  alertId: number;
  channel: DeliveryMethod;
  userId: number;
  email: string;
  phone: string;
  categoryId: number;
  priceMin: number | null;
  priceMax: number | null;
  alertState: string | null;
  alertCondition: Condition | null;
  dealLevel: AlertDealLevel;
  minDealScore: number | null;
  includeUnscored: boolean;
  keywords: string | null;
  /** Where the buyer is (issue 30): messages then carry the distance and the price delivered. */
  nearZip: string | null;
  nearLat: number | null;
  nearLon: number | null;
  radiusMiles: number | null;
  worthTheTrip: boolean;
};

export type DeliveryRow = AlertMessageColumns & {
  notificationId: number;
  event: NotificationEvent;
  alertActive: boolean;
  listingId: number;
  slug: string;
  title: string;
  priceUsd: number | null;
  dealScore: number | null;
  fairValue: number | null;
  valueLow: number | null;
  valueHigh: number | null;
  auctionEndAt: Date | null;
  city: string | null;
  state: string | null;
  lat: number | null;
  lon: number | null;
  geoPrecision: string | null;
  buyersPremiumPct: number | null;
  listingCategoryId: number;
  /** The Good bid limit stored with the score (issue 38): "Good up to $X" in the message. */
  goodBidLimit: number | null;
};

const deliveryColumns = sql`
  n.id AS "notificationId", n.event, n.channel, n.alert_id AS "alertId", a.is_active AS "alertActive",
  n.user_id AS "userId", u.email, u.phone,
  a.category_id AS "categoryId", a.price_min AS "priceMin", a.price_max AS "priceMax",
  a.state AS "alertState", a.condition AS "alertCondition", a.deal_level AS "dealLevel", a.min_deal_score AS "minDealScore",
  a.include_unscored AS "includeUnscored", a.keywords,
  l.id AS "listingId", l.slug, l.title, l.price_usd::float8 AS "priceUsd", l.deal_score AS "dealScore",
  l.fair_value::float8 AS "fairValue", l.value_low::float8 AS "valueLow", l.value_high::float8 AS "valueHigh", l.auction_end_at AS "auctionEndAt", l.city, l.state,
  a.near_zip AS "nearZip", a.near_lat AS "nearLat", a.near_lon AS "nearLon", a.radius_miles AS "radiusMiles", a.worth_the_trip AS "worthTheTrip",
  l.lat, l.lon, l.geo_precision AS "geoPrecision", l.buyers_premium_pct::float8 AS "buyersPremiumPct", l.category_id AS "listingCategoryId",
  l.good_bid_limit AS "goodBidLimit"`;

/**
 * The daily cap, strictly: before these listings' pending instant notifications are handed to the
 * notifier, those beyond their alert's cap for the UTC day become `daily`: they go out in the next
 * digest (best deals of this lot kept first). The alert row carries the day's count (`cap_day`,
 * `cap_used`), so deciding costs a few rows whatever the day's volume; each decided notification
 * is marked `cap_counted`, so a job run again (after a crash between this and the queueing)
 * neither counts it twice nor decides it again. The alerts' rows are locked (in id order) so that
 * match jobs running at once decide one after another, each seeing the others' counts.
 */
export async function rollOverBeyondDailyCap(db: DbOrTx, listingIds: number[], now: Date, caps: DailyCaps): Promise<number> {
  if (listingIds.length === 0) return 0;
  const statements = dailyCapStatements(listingIds, now, caps);
  return db.transaction(async (tx) => {
    const locked = (await tx.execute(statements.lock)) as unknown as Array<{ id: number }>;
    if (locked.length === 0) return 0;
    const [row] = (await tx.execute(statements.rollOver)) as unknown as Array<{ rolled: number }>;
    return row?.rolled ?? 0;
  });
}

/** The daily cap's two statements: lock the alerts, then decide (the benchmark prints their plans). */
export function dailyCapStatements(listingIds: number[], now: Date, caps: DailyCaps): { lock: SQL; rollOver: SQL } {
  const day = now.toISOString().slice(0, 10);
  const undecided = sql`n.listing_id = ANY(${intArray(listingIds)}) AND n.status = 'pending' AND n.frequency = 'instant' AND NOT n.cap_counted`;
  const lock = sql`
      SELECT a.id FROM alerts a
      WHERE a.id IN (SELECT n.alert_id FROM alert_notifications n WHERE ${undecided})
      ORDER BY a.id
      FOR UPDATE
    `;
  const rollOver = sql`
      WITH mine AS (
        SELECT n.id, n.alert_id,
               row_number() OVER (PARTITION BY n.alert_id ORDER BY n.deal_score DESC NULLS LAST, n.id) AS nth
        FROM alert_notifications n
        WHERE ${undecided}
      ),
      budget AS (
        SELECT a.id AS alert_id,
               CASE WHEN a.delivery_method = 'sms' THEN ${caps.sms}::int ELSE ${caps.email}::int END
                 - CASE WHEN a.cap_day = ${day} THEN a.cap_used ELSE 0 END AS room
        FROM alerts a
        WHERE a.id IN (SELECT alert_id FROM mine)
      ),
      decided AS (
        UPDATE alert_notifications n
        SET cap_counted = true, frequency = CASE WHEN m.nth > b.room THEN 'daily' ELSE n.frequency END, updated_at = now()
        FROM mine m
        JOIN budget b ON b.alert_id = m.alert_id
        WHERE n.id = m.id
        RETURNING n.alert_id, n.frequency
      ),
      -- A data-modifying CTE runs whether or not it is referenced; every CTE sees the alerts as
      -- they were before this statement, so the day's count is read and written once.
      counted AS (
        UPDATE alerts a
        SET cap_day = ${day}, cap_used = CASE WHEN a.cap_day = ${day} THEN a.cap_used ELSE 0 END + k.kept
        FROM (SELECT alert_id, count(*) FILTER (WHERE frequency = 'instant')::int AS kept FROM decided GROUP BY alert_id) k
        WHERE a.id = k.alert_id
      )
      SELECT count(*) FILTER (WHERE frequency = 'daily')::int AS rolled FROM decided
    `;
  return { lock, rollOver };
}

/** Instant notifications of these listings not yet handed to the notifier (also after a crash). */
export async function pendingInstantDeliveries(db: DbOrTx, listingIds: number[]): Promise<DeliveryRow[]> {
  if (listingIds.length === 0) return [];
  return (await db.execute(sql`
    SELECT ${deliveryColumns}
    FROM alert_notifications n
    JOIN alerts a ON a.id = n.alert_id
    JOIN users u ON u.id = n.user_id
    JOIN listings l ON l.id = n.listing_id
    WHERE n.listing_id = ANY(${intArray(listingIds)}) AND n.status = 'pending' AND n.frequency = 'instant'
    ORDER BY n.id
  `)) as unknown as DeliveryRow[];
}

/**
 * Instant notifications of these listings marked queued whose message is still queued in the
 * message log: a match job that died between marking them and adding their notify-batch job
 * left them with no job (its rerun queues them again). In the order they were matched.
 */
export async function queuedInstantMessages(db: DbOrTx, listingIds: number[]): Promise<Array<{ listingId: number; messageKey: string }>> {
  if (listingIds.length === 0) return [];
  return (await db.execute(sql`
    SELECT n.listing_id AS "listingId", n.message_key AS "messageKey"
    FROM alert_notifications n
    JOIN outbox_messages m ON m.message_key = n.message_key
    WHERE n.listing_id = ANY(${intArray(listingIds)}) AND n.status = 'queued' AND n.frequency = 'instant' AND m.status = 'queued'
    ORDER BY n.id
  `)) as unknown as Array<{ listingId: number; messageKey: string }>;
}

/** Marks notifications as handed to the notifier under their message keys. */
export async function markNotificationsQueued(db: DbOrTx, queued: Array<{ id: number; messageKey: string; channel: DeliveryMethod }>): Promise<void> {
  if (queued.length === 0) return;
  await db.execute(sql`
    UPDATE alert_notifications n
    SET status = 'queued', message_key = q.message_key, channel = q.channel, updated_at = now()
    FROM jsonb_to_recordset(${JSON.stringify(queued.map((q) => ({ id: q.id, message_key: q.messageKey, channel: q.channel })))}::jsonb)
         AS q(id int, message_key text, channel text)
    WHERE n.id = q.id AND n.status = 'pending'
  `);
}

export async function markNotificationsSkipped(db: DbOrTx, ids: number[], reason: string): Promise<void> {
  if (ids.length === 0) return;
  await db.execute(sql`
    UPDATE alert_notifications SET status = 'skipped', error = ${reason.slice(0, 2000)}, updated_at = now()
    WHERE id = ANY(${intArray(ids)}) AND status IN ('pending', 'queued')
  `);
}

/**
 * The notifier's report on an alert message (found by its message key): sent, failed for good
 * (with why), or skipped (e.g. the phone replied STOP). Other keys are not alert messages.
 */
export async function recordAlertDelivery(
  db: DbOrTx,
  messageKey: string,
  outcome: { status: 'sent' } | { status: 'failed' | 'skipped'; error: string },
): Promise<void> {
  const ref = parseAlertMessageKey(messageKey);
  if (!ref) return;
  const error = outcome.status === 'sent' ? null : outcome.error.slice(0, 2000);
  const sentAt = outcome.status === 'sent' ? sql`now()` : null;
  if (ref.kind === 'instant') {
    await db
      .update(alertNotifications)
      .set({ status: outcome.status, error, sentAt, updatedAt: sql`now()` })
      .where(eq(alertNotifications.id, ref.notificationId));
    return;
  }
  const [digest] = await db
    .update(alertDigests)
    .set({ status: outcome.status })
    .where(and(eq(alertDigests.alertId, ref.alertId), eq(alertDigests.day, ref.day)))
    .returning({ id: alertDigests.id });
  if (digest) {
    await db
      .update(alertNotifications)
      .set({ status: outcome.status, error, sentAt, updatedAt: sql`now()` })
      .where(eq(alertNotifications.digestId, digest.id));
  }
}

/**
 * Many sent messages recorded in one statement (one commit): each marked sent in the message log
 * and, for instant alert messages, on its notification. The notifier's batch sender calls it as
 * its sends complete (digest keys go through `recordAlertDelivery`).
 */
export async function markAlertMessagesSent(db: DbOrTx, sent: Array<{ messageKey: string; providerMessageId: string | null }>): Promise<void> {
  if (sent.length === 0) return;
  const ids = sent.flatMap((s) => {
    const ref = parseAlertMessageKey(s.messageKey);
    return ref?.kind === 'instant' ? [ref.notificationId] : [];
  });
  await db.execute(sql`
    -- A data-modifying CTE runs whether or not it is referenced: both tables in one commit.
    WITH sent AS (
      UPDATE outbox_messages m
      SET status = 'sent', provider_message_id = s.provider_message_id, last_error = NULL, sent_at = now(), claimed_at = NULL, updated_at = now()
      FROM jsonb_to_recordset(${JSON.stringify(sent.map((s) => ({ message_key: s.messageKey, provider_message_id: s.providerMessageId })))}::jsonb)
           AS s(message_key text, provider_message_id text)
      WHERE m.message_key = s.message_key
      RETURNING m.message_key
    )
    UPDATE alert_notifications SET status = 'sent', error = NULL, sent_at = now(), updated_at = now()
    WHERE id = ANY(${intArray(ids)})
  `);
}

// ---- notifications list -----------------------------------------------------------------

export type NotificationListRow = {
  id: number;
  alertId: number;
  categoryId: number;
  alertFrequency: AlertFrequency;
  priceMin: number | null;
  priceMax: number | null;
  alertState: string | null;
  alertCondition: Condition | null;
  dealLevel: AlertDealLevel;
  minDealScore: number | null;
  includeUnscored: boolean;
  keywords: string | null;
  nearZip: string | null;
  radiusMiles: number | null;
  worthTheTrip: boolean;
  fairValue: number | null;
  valueLow: number | null;
  valueHigh: number | null;
  auctionEndAt: Date | string | null;
  event: NotificationEvent;
  channel: DeliveryMethod;
  frequency: AlertFrequency;
  status: string;
  error: string | null;
  priceUsd: number | null;
  dealScore: number | null;
  createdAt: Date;
  sentAt: Date | null;
  listingId: number;
  slug: string;
  title: string;
};

/** What was matched and sent for the user's alerts, newest first; `beforeId` pages on. */
export async function listUserNotifications(db: DbOrTx, userId: number, opts: { limit: number; beforeId?: number }): Promise<NotificationListRow[]> {
  return (await db.execute(sql`
    SELECT n.id, n.alert_id AS "alertId", a.category_id AS "categoryId", a.frequency AS "alertFrequency",
           a.price_min AS "priceMin", a.price_max AS "priceMax", a.state AS "alertState", a.condition AS "alertCondition",
           a.deal_level AS "dealLevel", a.min_deal_score AS "minDealScore", a.include_unscored AS "includeUnscored", a.keywords,
           a.near_zip AS "nearZip", a.radius_miles AS "radiusMiles", a.worth_the_trip AS "worthTheTrip",
           l.fair_value::float8 AS "fairValue", l.value_low::float8 AS "valueLow", l.value_high::float8 AS "valueHigh",
           l.auction_end_at AS "auctionEndAt", n.event, n.channel, n.frequency, n.status, n.error,
           n.price_usd::float8 AS "priceUsd", n.deal_score AS "dealScore", n.created_at AS "createdAt", n.sent_at AS "sentAt",
           l.id AS "listingId", l.slug, l.title
    FROM alert_notifications n
    JOIN alerts a ON a.id = n.alert_id
    JOIN listings l ON l.id = n.listing_id
    WHERE n.user_id = ${userId} ${opts.beforeId !== undefined ? sql`AND n.id < ${opts.beforeId}` : sql``}
    ORDER BY n.created_at DESC, n.id DESC
    LIMIT ${opts.limit}
  `)) as unknown as NotificationListRow[];
}

// ---- daily digests ------------------------------------------------------------------------

/**
 * Gathers every daily alert's pending matches created before `cutoff` into one digest per
 * (alert, day). Idempotent: a second run for the same day finds nothing new to gather (later
 * matches wait for the next day's digest).
 */
export async function gatherDigests(db: DbOrTx, day: string, cutoff: Date): Promise<number> {
  return db.transaction(async (tx) => {
    const created = (await tx.execute(sql`
      WITH due AS (
        SELECT n.alert_id, count(*)::int AS match_count
        FROM alert_notifications n
        JOIN alerts a ON a.id = n.alert_id AND a.is_active
        WHERE n.status = 'pending' AND n.frequency = 'daily' AND n.created_at < ${cutoff.toISOString()}::timestamptz
        GROUP BY n.alert_id
      )
      INSERT INTO alert_digests (alert_id, day, match_count, message_key)
      SELECT alert_id, ${day}, match_count, 'alert-digest:' || alert_id || ':' || ${day} FROM due
      ON CONFLICT (alert_id, day) DO NOTHING
      RETURNING id, alert_id
    `)) as unknown as Array<{ id: number; alert_id: number }>;
    if (created.length > 0) {
      await tx.execute(sql`
        UPDATE alert_notifications n SET status = 'digested', digest_id = d.id, updated_at = now()
        FROM alert_digests d
        WHERE d.id = ANY(${intArray(created.map((c) => c.id))}) AND n.alert_id = d.alert_id
          AND n.status = 'pending' AND n.frequency = 'daily' AND n.created_at < ${cutoff.toISOString()}::timestamptz
      `);
    }
    // Matches of alerts turned off meanwhile are not sent.
    await tx.execute(sql`
      UPDATE alert_notifications n SET status = 'skipped', error = 'alert turned off', updated_at = now()
      FROM alerts a
      WHERE a.id = n.alert_id AND NOT a.is_active AND n.status = 'pending' AND n.frequency = 'daily'
        AND n.created_at < ${cutoff.toISOString()}::timestamptz
    `);
    return created.length;
  });
}

export type DigestDelivery = AlertMessageColumns & {
  digestId: number;
  day: string;
  messageKey: string;
  items: Array<{
    event: NotificationEvent;
    listingId: number;
    slug: string;
    title: string;
    priceUsd: number | null;
    dealScore: number | null;
    fairValue: number | null;
    valueLow: number | null;
    valueHigh: number | null;
    buyersPremiumPct: number | null;
    auctionEndAt: string | null;
    city: string | null;
    state: string | null;
    lat: number | null;
    lon: number | null;
    geoPrecision: string | null;
    listingCategoryId: number;
    goodBidLimit: number | null;
  }>;
};

/** Digests of `day` not yet handed to the notifier, with their listings (best deals first). */
export async function pendingDigestDeliveries(db: DbOrTx, day: string): Promise<DigestDelivery[]> {
  return (await db.execute(sql`
    SELECT d.id AS "digestId", d.day, d.message_key AS "messageKey", a.id AS "alertId", a.delivery_method AS channel,
           a.user_id AS "userId", u.email, u.phone, a.category_id AS "categoryId", a.price_min AS "priceMin", a.price_max AS "priceMax",
           a.state AS "alertState", a.condition AS "alertCondition", a.deal_level AS "dealLevel", a.min_deal_score AS "minDealScore",
           a.include_unscored AS "includeUnscored", a.keywords,
           a.near_zip AS "nearZip", a.near_lat AS "nearLat", a.near_lon AS "nearLon", a.radius_miles AS "radiusMiles", a.worth_the_trip AS "worthTheTrip",
           (SELECT coalesce(jsonb_agg(jsonb_build_object(
                     'event', n.event, 'listingId', l.id, 'slug', l.slug, 'title', l.title,
                     'priceUsd', l.price_usd::float8, 'dealScore', l.deal_score, 'fairValue', l.fair_value::float8,
                     'valueLow', l.value_low::float8, 'valueHigh', l.value_high::float8, 'buyersPremiumPct', l.buyers_premium_pct::float8,
                     'auctionEndAt', l.auction_end_at, 'city', l.city, 'state', l.state,
                     'lat', l.lat, 'lon', l.lon, 'geoPrecision', l.geo_precision, 'listingCategoryId', l.category_id,
                     'goodBidLimit', l.good_bid_limit)
                   ORDER BY l.deal_score DESC NULLS LAST, n.id), '[]'::jsonb)
            FROM alert_notifications n JOIN listings l ON l.id = n.listing_id
            WHERE n.alert_id = d.alert_id AND n.digest_id = d.id) AS items
    FROM alert_digests d
    JOIN alerts a ON a.id = d.alert_id
    JOIN users u ON u.id = a.user_id
    WHERE d.day = ${day} AND d.status = 'pending'
    ORDER BY d.id
  `)) as unknown as DigestDelivery[];
}

export async function markDigestsQueued(db: DbOrTx, digestIds: number[]): Promise<void> {
  if (digestIds.length === 0) return;
  await db.execute(sql`UPDATE alert_digests SET status = 'queued' WHERE id = ANY(${intArray(digestIds)}) AND status = 'pending'`);
  await db.execute(sql`
    UPDATE alert_notifications n SET status = 'queued', updated_at = now()
    FROM alert_digests d
    WHERE d.id = ANY(${intArray(digestIds)}) AND n.alert_id = d.alert_id AND n.digest_id = d.id AND n.status = 'digested'`);
}

export async function markDigestsSkipped(db: DbOrTx, digestIds: number[], reason: string): Promise<void> {
  if (digestIds.length === 0) return;
  await db.execute(sql`UPDATE alert_digests SET status = 'skipped' WHERE id = ANY(${intArray(digestIds)})`);
  await db.execute(sql`
    UPDATE alert_notifications n SET status = 'skipped', error = ${reason}, updated_at = now()
    FROM alert_digests d
    WHERE d.id = ANY(${intArray(digestIds)}) AND n.alert_id = d.alert_id AND n.digest_id = d.id`);
}

// ---- SMS opt-outs -------------------------------------------------------------------------

export async function recordSmsOptOut(db: DbOrTx, phone: string, keyword: string): Promise<void> {
  await db.insert(smsOptOuts).values({ phone, keyword }).onConflictDoUpdate({ target: smsOptOuts.phone, set: { keyword, createdAt: sql`now()` } });
}

export async function removeSmsOptOut(db: DbOrTx, phone: string): Promise<void> {
  await db.delete(smsOptOuts).where(eq(smsOptOuts.phone, phone));
}

/** Which of these E.164 numbers replied STOP. */
export async function optedOutPhones(db: DbOrTx, phones: string[]): Promise<Set<string>> {
  if (phones.length === 0) return new Set();
  const rows = (await db.execute(sql`SELECT phone FROM sms_opt_outs WHERE phone = ANY(${`{${phones.map((p) => `"${p.replace(/[^+0-9]/g, '')}"`).join(',')}}`}::text[])`)) as unknown as Array<{ phone: string }>;
  return new Set(rows.map((r) => r.phone));
}

/** Test and operator helper: notifications of one alert, oldest first. */
export async function listAlertNotifications(db: DbOrTx, alertId: number) {
  return db.select().from(alertNotifications).where(eq(alertNotifications.alertId, alertId)).orderBy(alertNotifications.id);
}

// ---- operator counts ----------------------------------------------------------------------

/** Active alerts per (user, frequency), and whether the user has any subscription record (else: free plan). */
export async function activeAlertCountsByUser(db: DbOrTx): Promise<Array<{ userId: number; frequency: AlertFrequency; alerts: number; hasSubscription: boolean }>> {
  return (await db.execute(sql`
    SELECT a.user_id AS "userId", a.frequency, count(*)::int AS alerts,
           EXISTS (SELECT 1 FROM subscriptions s WHERE s.user_id = a.user_id) AS "hasSubscription"
    FROM alerts a
    WHERE a.is_active
    GROUP BY a.user_id, a.frequency
  `)) as unknown as Array<{ userId: number; frequency: AlertFrequency; alerts: number; hasSubscription: boolean }>;
}

/** Notifications created since `since`, counted by status and frequency. */
export async function notificationCountsSince(db: DbOrTx, since: Date): Promise<Array<{ status: string; frequency: AlertFrequency; count: number }>> {
  return (await db.execute(sql`
    SELECT status, frequency, count(*)::int AS count
    FROM alert_notifications
    WHERE created_at >= ${since.toISOString()}::timestamptz
    GROUP BY status, frequency
    ORDER BY status, frequency
  `)) as unknown as Array<{ status: string; frequency: AlertFrequency; count: number }>;
}
