/**
 * SQL of instant alert messages: what one notification's message needs, the daily cap that rolls
 * the rest into the digest, handing notifications to the notifier (message keys, the message
 * log) and marking them sent, and the user's list of what was matched and sent.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { alertDigests, alertNotifications } from '../../../../db/schema/index.js';
import type { AlertDealLevel, AlertFrequency, DeliveryMethod, NotificationEvent } from '../../../../db/schema/alerts.js';
import type { Condition } from '../../../../db/schema/listings.js';
import { parseAlertMessageKey } from '../../rules/alert-message-keys.js';
import type { DailyCaps } from '../../rules/alert-limits.js';
import type { DbOrTx } from '../../database/db.js';
import { intArray } from '../../database/sql-arrays.js';

/** Who an alert message goes to and what the alert asks, as the messages state it (instant and digest alike). */
export type AlertMessageColumns = {
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

/** A notification as the buyer's list shows it: the alert's criteria as its messages state them, and what was sent. */
export type NotificationListRow = Pick<
  AlertMessageColumns,
  'alertId' | 'categoryId' | 'priceMin' | 'priceMax' | 'alertState' | 'alertCondition' | 'dealLevel' | 'minDealScore' | 'includeUnscored' | 'keywords' | 'nearZip' | 'radiusMiles' | 'worthTheTrip'
> & {
  id: number;
  alertFrequency: AlertFrequency;
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
