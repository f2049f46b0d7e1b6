/**
 * SQL of the watchlist (issue 31): a user's watched lots, the dispatcher's claim of due rows and
 * its write-back, the per-user daily cap, and the outcomes report's read.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { subscriptions } from '../../../db/schema/billing.js';
import { watchedLots, type RemindBeforeMinutes } from '../../../db/schema/watchlist.js';
import type { ListingStatus } from '../../../db/schema/listings.js';
import type { DeliveryMethod } from '../../../db/schema/alerts.js';
import type { DbOrTx } from '../database/db.js';
import { intArray } from '../database/sql-arrays.js';

/** A watch's settings as stored (the watchlist's rules validate them: services/watchlist/watch-rules.ts). */
export type WatchSettings = {
  remindBeforeMinutes: RemindBeforeMinutes;
  maxPrice: number | null;
  deliveryMethod: DeliveryMethod;
  /** The maximum is the lot's Good limit (the service fills it in; the scorer moves it on a rescore). */
  maxPriceFollowsGood: boolean;
};

export type WatchRow = typeof watchedLots.$inferSelect;

type Rows<T> = T[];
/** ISO 8601 UTC text (postgres.js hands timestamps of raw SQL over as PostgreSQL's text otherwise). */
const iso = (column: ReturnType<typeof sql>) => sql`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const rows = <T>(result: unknown) => result as unknown as Rows<T>;

/** The listing facts the watch rules read (and its Good limit, a watch's default maximum), or undefined for an unknown listing. */
export async function findWatchableListing(
  db: DbOrTx,
  listingId: number,
): Promise<{ id: number; status: ListingStatus; auctionEndAt: Date | null; priceUsd: number | null; goodBidLimit: number | null } | undefined> {
  const [row] = rows<{ id: number; status: ListingStatus; auctionEndAt: string | null; priceUsd: number | null; goodBidLimit: number | null }>(
    await db.execute(
      sql`SELECT id, status, ${iso(sql`auction_end_at`)} AS "auctionEndAt", price_usd::float8 AS "priceUsd", good_bid_limit AS "goodBidLimit" FROM listings WHERE id = ${listingId}`,
    ),
  );
  return row ? { ...row, auctionEndAt: row.auctionEndAt === null ? null : new Date(row.auctionEndAt) } : undefined;
}

/**
 * Adds a watch unless the user already watches the lot or has `maxWatched` (null = no limit).
 * The user's row is locked for the count, so two requests at once cannot both take the last slot.
 */
export async function insertWatchWithinLimit(
  db: DbOrTx,
  values: { userId: number; listingId: number; settings: WatchSettings; dueAt: Date | null },
  maxWatched: number | null,
): Promise<WatchRow | 'limit' | 'exists'> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT id FROM users WHERE id = ${values.userId} FOR UPDATE`);
    const [existing] = await tx.select({ id: watchedLots.id }).from(watchedLots).where(and(eq(watchedLots.userId, values.userId), eq(watchedLots.listingId, values.listingId)));
    if (existing) return 'exists' as const;
    if (maxWatched !== null) {
      const [count] = rows<{ n: number }>(await tx.execute(sql`SELECT count(*)::int AS n FROM watched_lots WHERE user_id = ${values.userId}`));
      if ((count?.n ?? 0) >= maxWatched) return 'limit' as const;
    }
    const [row] = await tx
      .insert(watchedLots)
      .values({ userId: values.userId, listingId: values.listingId, ...values.settings, dueAt: values.dueAt })
      .returning();
    return row!;
  });
}

/**
 * After a rescore: the watches of these listings whose maximum follows the Good limit take the new
 * one (null while no bid can be Good); a watch whose bid is now over it, not yet told, is due now.
 */
export async function followGoodBidLimits(db: DbOrTx, listingIds: number[]): Promise<number> {
  if (listingIds.length === 0) return 0;
  const moved = rows<{ id: number }>(
    await db.execute(sql`
      UPDATE watched_lots w SET
        max_price = l.good_bid_limit,
        due_at = CASE WHEN l.good_bid_limit IS NOT NULL AND l.price_usd > l.good_bid_limit AND w.price_notice_at IS NULL AND w.notify THEN now() ELSE w.due_at END,
        updated_at = now()
      FROM listings l
      WHERE l.id = w.listing_id AND w.listing_id = ANY(${intArray(listingIds)}) AND w.max_price_follows_good
        AND w.max_price IS DISTINCT FROM l.good_bid_limit
      RETURNING w.id`),
  );
  return moved.length;
}

export async function findUserWatch(db: DbOrTx, userId: number, listingId: number): Promise<WatchRow | undefined> {
  const [row] = await db.select().from(watchedLots).where(and(eq(watchedLots.userId, userId), eq(watchedLots.listingId, listingId)));
  return row;
}

export async function findWatchById(db: DbOrTx, watchId: number): Promise<WatchRow | undefined> {
  const [row] = await db.select().from(watchedLots).where(eq(watchedLots.id, watchId));
  return row;
}

export async function updateUserWatch(
  db: DbOrTx,
  userId: number,
  listingId: number,
  change: WatchSettings & { dueAt: Date | null; notify?: boolean },
): Promise<WatchRow | undefined> {
  const [row] = await db
    .update(watchedLots)
    .set({ ...change, updatedAt: sql`now()` })
    .where(and(eq(watchedLots.userId, userId), eq(watchedLots.listingId, listingId)))
    .returning();
  return row;
}

export async function deleteUserWatch(db: DbOrTx, userId: number, listingId: number): Promise<boolean> {
  const deleted = await db
    .delete(watchedLots)
    .where(and(eq(watchedLots.userId, userId), eq(watchedLots.listingId, listingId)))
    .returning({ id: watchedLots.id });
  return deleted.length > 0;
}

/** The one-click unsubscribe: no more messages for this watch (it stays on the watchlist). */
export async function turnWatchNoticesOff(db: DbOrTx, watchId: number): Promise<boolean> {
  const updated = await db
    .update(watchedLots)
    .set({ notify: false, dueAt: null, updatedAt: sql`now()` })
    .where(eq(watchedLots.id, watchId))
    .returning({ id: watchedLots.id });
  return updated.length > 0;
}

export type WatchListRow = WatchRow & {
  status: ListingStatus;
  fairValue: number | null;
  valueLow: number | null;
  valueHigh: number | null;
  finalPrice: number | null;
  outcomeFairValue: number | null;
  outcomeDealScore: number | null;
};

/** A user's watched lots with what the watchlist shows beyond the card (cards are read by id). */
export async function listUserWatches(db: DbOrTx, userId: number): Promise<WatchListRow[]> {
  const found = rows<WatchListRow & { createdAt: string; dueAt: string | null; reminderEndAt: string | null; reminderSentAt: string | null; priceNoticeAt: string | null; closedNoticeAt: string | null; goneNoticeAt: string | null; updatedAt: string }>(
    await db.execute(sql`
      SELECT w.id, w.user_id AS "userId", w.listing_id AS "listingId", w.remind_before_minutes AS "remindBeforeMinutes",
        w.max_price::float8 AS "maxPrice", w.max_price_follows_good AS "maxPriceFollowsGood", w.delivery_method AS "deliveryMethod", w.notify, ${iso(sql`w.due_at`)} AS "dueAt",
        ${iso(sql`w.reminder_end_at`)} AS "reminderEndAt", ${iso(sql`w.reminder_sent_at`)} AS "reminderSentAt", w.price_notice_max::float8 AS "priceNoticeMax",
        ${iso(sql`w.price_notice_at`)} AS "priceNoticeAt", ${iso(sql`w.closed_notice_at`)} AS "closedNoticeAt", ${iso(sql`w.gone_notice_at`)} AS "goneNoticeAt",
        w.last_notice_error AS "lastNoticeError", ${iso(sql`w.created_at`)} AS "createdAt", ${iso(sql`w.updated_at`)} AS "updatedAt",
        l.status, l.fair_value::float8 AS "fairValue", l.value_low::float8 AS "valueLow", l.value_high::float8 AS "valueHigh",
        ${finalPriceSql} AS "finalPrice",
        o.fair_value::float8 AS "outcomeFairValue", o.deal_score AS "outcomeDealScore"
      FROM watched_lots w
      JOIN listings l ON l.id = w.listing_id
      LEFT JOIN lot_outcomes o ON o.listing_id = l.id
      WHERE w.user_id = ${userId}
      ORDER BY w.created_at DESC, w.id DESC`),
  );
  const date = (v: string | Date | null) => (v === null ? null : new Date(v));
  return found.map((r) => ({
    ...r,
    createdAt: new Date(r.createdAt),
    updatedAt: new Date(r.updatedAt),
    dueAt: date(r.dueAt),
    reminderEndAt: date(r.reminderEndAt),
    reminderSentAt: date(r.reminderSentAt),
    priceNoticeAt: date(r.priceNoticeAt),
    closedNoticeAt: date(r.closedNoticeAt),
    goneNoticeAt: date(r.goneNoticeAt),
  }));
}

/** A sold lot's final price: its sold result, else the last bid seen; null for any other status. */
const finalPriceSql = sql`CASE WHEN l.status = 'sold' THEN coalesce(
  (SELECT s.price::float8 FROM sold_results s WHERE s.listing_id = l.id ORDER BY s.sold_at DESC LIMIT 1),
  l.current_bid::float8, l.price_usd::float8) END`;

/** A due watch with everything its notices say and whom they go to. */
export type DueWatch = {
  id: number;
  userId: number;
  listingId: number;
  remindBeforeMinutes: number;
  maxPrice: number | null;
  deliveryMethod: DeliveryMethod;
  notify: boolean;
  dueAt: Date;
  reminderEndAt: Date | null;
  priceNoticeMax: number | null;
  /** The maximum is the lot's Good limit (followed on rescores): its passing is told once. */
  maxPriceFollowsGood: boolean;
  priceNoticeAt: Date | null;
  closedNoticeAt: Date | null;
  goneNoticeAt: Date | null;
  lastNoticeError: string | null;
  email: string;
  phone: string;
  userActive: boolean;
  slug: string;
  title: string;
  status: ListingStatus;
  auctionEndAt: Date | null;
  priceUsd: number | null;
  dealScore: number | null;
  fairValue: number | null;
  finalPrice: number | null;
  outcomeFairValue: number | null;
};

/**
 * Locks and returns up to `limit` watches due at `now`, earliest first: one range scan of the
 * partial `watched_lots_due_idx`. SKIP LOCKED lets two dispatchers share the work; the caller
 * writes each row's new state before its transaction commits.
 */
export async function claimDueWatches(tx: DbOrTx, now: Date, limit: number): Promise<DueWatch[]> {
  const found = rows<
    Omit<DueWatch, 'dueAt' | 'reminderEndAt' | 'priceNoticeAt' | 'closedNoticeAt' | 'goneNoticeAt' | 'auctionEndAt'> &
      Record<'dueAt' | 'reminderEndAt' | 'priceNoticeAt' | 'closedNoticeAt' | 'goneNoticeAt' | 'auctionEndAt', string | null>
  >(
    await tx.execute(sql`
      WITH due AS (
        SELECT id FROM watched_lots WHERE due_at <= ${now.toISOString()}::timestamptz ORDER BY due_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
      )
      SELECT w.id, w.user_id AS "userId", w.listing_id AS "listingId", w.remind_before_minutes AS "remindBeforeMinutes",
        w.max_price::float8 AS "maxPrice", w.delivery_method AS "deliveryMethod", w.notify, ${iso(sql`w.due_at`)} AS "dueAt",
        ${iso(sql`w.reminder_end_at`)} AS "reminderEndAt", w.price_notice_max::float8 AS "priceNoticeMax",
        w.max_price_follows_good AS "maxPriceFollowsGood", ${iso(sql`w.price_notice_at`)} AS "priceNoticeAt",
        ${iso(sql`w.closed_notice_at`)} AS "closedNoticeAt", ${iso(sql`w.gone_notice_at`)} AS "goneNoticeAt", w.last_notice_error AS "lastNoticeError",
        u.email, u.phone, u.is_active AS "userActive",
        l.slug, l.title, l.status, ${iso(sql`l.auction_end_at`)} AS "auctionEndAt", l.price_usd::float8 AS "priceUsd", l.deal_score AS "dealScore",
        l.fair_value::float8 AS "fairValue", ${finalPriceSql} AS "finalPrice", o.fair_value::float8 AS "outcomeFairValue"
      FROM due JOIN watched_lots w ON w.id = due.id
      JOIN users u ON u.id = w.user_id
      JOIN listings l ON l.id = w.listing_id
      LEFT JOIN lot_outcomes o ON o.listing_id = l.id`),
  );
  const date = (v: string | null) => (v === null ? null : new Date(v));
  return found.map((r) => ({
    ...r,
    dueAt: new Date(r.dueAt!),
    reminderEndAt: date(r.reminderEndAt),
    priceNoticeAt: date(r.priceNoticeAt),
    closedNoticeAt: date(r.closedNoticeAt),
    goneNoticeAt: date(r.goneNoticeAt),
    auctionEndAt: date(r.auctionEndAt),
  }));
}

export type WatchStateUpdate = {
  id: number;
  dueAt: Date | null;
  reminderEndAt: Date | null;
  reminderSentAt: Date | null;
  priceNoticeMax: number | null;
  priceNoticeAt: Date | null;
  closedNoticeAt: Date | null;
  goneNoticeAt: Date | null;
  lastNoticeError: string | null;
};

/** Writes the dispatcher's verdicts back, all rows in one statement (a null send time keeps the last one). */
export async function applyWatchStates(tx: DbOrTx, updates: WatchStateUpdate[]): Promise<void> {
  if (updates.length === 0) return;
  const text = (d: Date | null) => (d === null ? null : d.toISOString());
  const payload = updates.map((u) => ({
    id: u.id,
    due_at: text(u.dueAt),
    reminder_end_at: text(u.reminderEndAt),
    reminder_sent_at: text(u.reminderSentAt),
    price_notice_max: u.priceNoticeMax,
    price_notice_at: text(u.priceNoticeAt),
    closed_notice_at: text(u.closedNoticeAt),
    gone_notice_at: text(u.goneNoticeAt),
    last_notice_error: u.lastNoticeError,
  }));
  await tx.execute(sql`
    UPDATE watched_lots w SET
      due_at = u.due_at, reminder_end_at = u.reminder_end_at, reminder_sent_at = coalesce(u.reminder_sent_at, w.reminder_sent_at),
      price_notice_max = u.price_notice_max, price_notice_at = coalesce(u.price_notice_at, w.price_notice_at), closed_notice_at = u.closed_notice_at,
      gone_notice_at = u.gone_notice_at, last_notice_error = u.last_notice_error, updated_at = now()
    FROM jsonb_to_recordset(${JSON.stringify(payload)}::jsonb) AS u(
      id int, due_at timestamptz, reminder_end_at timestamptz, reminder_sent_at timestamptz, price_notice_max numeric,
      price_notice_at timestamptz, closed_notice_at timestamptz, gone_notice_at timestamptz, last_notice_error text)
    WHERE w.id = u.id`);
}

/** The subscriptions of these users (entitlements are computed from them, one query for all). */
export async function subscriptionsOfUsers(db: DbOrTx, userIds: number[]) {
  if (userIds.length === 0) return [];
  return db.select().from(subscriptions).where(inArray(subscriptions.userId, userIds));
}

/**
 * Takes up to `want` messages of `channel` from each user's daily cap for `day` and returns how
 * many each got (one statement; the row lock serialises two dispatchers on one user).
 */
export async function takeDailyCap(
  tx: DbOrTx,
  day: string,
  channel: DeliveryMethod,
  wants: Array<{ userId: number; want: number }>,
  cap: number,
): Promise<Map<number, number>> {
  const got = new Map<number, number>();
  if (wants.length === 0) return got;
  const column = channel === 'sms' ? sql.raw('sms_used') : sql.raw('email_used');
  const payload = JSON.stringify(wants.map((w) => ({ user_id: w.userId, want: w.want })));
  // Insert-or-lock each user's row first, then grant what is left of the cap.
  await tx.execute(sql`
    INSERT INTO watch_notice_days (user_id, day) SELECT user_id, ${day} FROM jsonb_to_recordset(${payload}::jsonb) AS x(user_id int, want int)
    ON CONFLICT (user_id, day) DO NOTHING`);
  const granted = rows<{ userId: number; granted: number }>(
    await tx.execute(sql`
      WITH wanted AS (SELECT user_id, want FROM jsonb_to_recordset(${payload}::jsonb) AS x(user_id int, want int)),
      current AS (
        SELECT d.user_id, d.${column} AS used FROM watch_notice_days d JOIN wanted USING (user_id) WHERE d.day = ${day} ORDER BY d.user_id FOR UPDATE
      ),
      decided AS (SELECT c.user_id, least(w.want, greatest(0, ${cap} - c.used)) AS granted FROM current c JOIN wanted w USING (user_id))
      UPDATE watch_notice_days d SET ${column} = d.${column} + decided.granted
      FROM decided WHERE d.user_id = decided.user_id AND d.day = ${day}
      RETURNING d.user_id AS "userId", decided.granted`),
  );
  for (const g of granted) got.set(g.userId, g.granted);
  return got;
}

/** Watched lots of `sourceId` that are open and end within `withinMs` (or ended up to an hour ago): the watched re-check list. */
export async function listWatchedClosingSoon(db: DbOrTx, sourceId: number, withinMs: number, limit = 2000) {
  return rows<{ externalId: string; originalUrl: string }>(
    await db.execute(sql`
      SELECT l.external_id AS "externalId", l.original_url AS "originalUrl"
      FROM listings l
      WHERE l.source_id = ${sourceId} AND l.status = 'open'
        AND l.auction_end_at > now() - interval '1 hour'
        AND l.auction_end_at <= now() + make_interval(secs => ${withinMs / 1000})
        AND EXISTS (SELECT 1 FROM watched_lots w WHERE w.listing_id = l.id)
      ORDER BY l.auction_end_at
      LIMIT ${limit}`),
  );
}


/**
 * Lots that closed since `since` (any lot, watched or not) with the valuation shown while they
 * were open and their final price: the sold result, else the last price seen for a sold lot.
 */
export async function listLotOutcomes(db: DbOrTx, since: Date) {
  return rows<{ source: string; status: ListingStatus; finalPrice: number | null; fairValue: number | null; valueLow: number | null; valueHigh: number | null; dealScore: number | null }>(
    await db.execute(sql`
      SELECT s.name AS source, o.status,
        CASE WHEN o.status = 'sold' THEN coalesce(
          (SELECT r.price::float8 FROM sold_results r WHERE r.listing_id = o.listing_id ORDER BY r.sold_at DESC LIMIT 1),
          o.last_price_usd::float8) END AS "finalPrice",
        o.fair_value::float8 AS "fairValue", o.value_low::float8 AS "valueLow", o.value_high::float8 AS "valueHigh", o.deal_score AS "dealScore"
      FROM lot_outcomes o JOIN sources s ON s.id = o.source_id
      WHERE o.closed_at >= ${since.toISOString()}::timestamptz`),
  );
}
