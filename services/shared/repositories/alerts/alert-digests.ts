/**
 * SQL of daily digests: gathering a day's digest notifications per alert, the digests not yet
 * handed to the notifier with their listings, and marking them queued or skipped.
 */
import { sql } from 'drizzle-orm';
import type { NotificationEvent } from '../../../../db/schema/alerts.js';
import type { DbOrTx } from '../../database/db.js';
import { intArray } from '../../database/sql-arrays.js';
import type { AlertMessageColumns } from './alert-deliveries.js';

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
