import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, numeric, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { DeliveryMethod } from './alerts.js';
import { listings, type ListingStatus } from './listings.js';
import { users } from './users.js';

const money = (name: string) => numeric(name, { precision: 14, scale: 2, mode: 'number' });

/** How long before the close a reminder goes out (minutes): 15 min, 1 h (default), 3 h, 24 h. */
export const REMIND_BEFORE_MINUTES = [15, 60, 180, 1440] as const;
export type RemindBeforeMinutes = (typeof REMIND_BEFORE_MINUTES)[number];

/**
 * A lot a buyer follows to its close (issue 31), with its reminder settings and the state of each
 * notice sent. `due_at` is when the watchlist dispatcher next looks at the row: the reminder's
 * time, or "now" when the listing's status, end time or price changed in a way that may call for
 * a notice (a trigger on `listings` sets it, migration 0040). Null: nothing pending.
 */
export const watchedLots = pgTable(
  'watched_lots',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    listingId: integer('listing_id')
      .notNull()
      .references(() => listings.id, { onDelete: 'cascade' }),
    remindBeforeMinutes: integer('remind_before_minutes').$type<RemindBeforeMinutes>().notNull().default(60),
    /** Premium: a notice when the price passes this (USD). */
    maxPrice: money('max_price'),
    /** The maximum is the lot's Good limit and follows it on a rescore (migration 0050); false: the buyer's own. */
    maxPriceFollowsGood: boolean('max_price_follows_good').notNull().default(false),
    deliveryMethod: text('delivery_method').$type<DeliveryMethod>().notNull().default('email'),
    /** False after the one-click unsubscribe: the lot stays on the watchlist, no messages. */
    notify: boolean('notify').notNull().default(true),
    dueAt: timestamp('due_at', { withTimezone: true }),
    /** The end time the reminder was sent for (a soft close moving it a little sends no second one). */
    reminderEndAt: timestamp('reminder_end_at', { withTimezone: true }),
    reminderSentAt: timestamp('reminder_sent_at', { withTimezone: true }),
    /** The maximum whose passing was notified: raising it arms the notice again. */
    priceNoticeMax: money('price_notice_max'),
    priceNoticeAt: timestamp('price_notice_at', { withTimezone: true }),
    closedNoticeAt: timestamp('closed_notice_at', { withTimezone: true }),
    /** The lot stayed open long past its end: its source no longer shows it (reported once). */
    goneNoticeAt: timestamp('gone_notice_at', { withTimezone: true }),
    /** Why the last notice was not sent (daily cap, suppressed address, STOP), for the watchlist page. */
    lastNoticeError: text('last_notice_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('watched_lots_user_listing_key').on(t.userId, t.listingId),
    index('watched_lots_listing_idx').on(t.listingId),
    index('watched_lots_due_idx').on(t.dueAt).where(sql`due_at IS NOT NULL`),
    check('watched_lots_remind_before_check', sql`${t.remindBeforeMinutes} IN (15, 60, 180, 1440)`),
    check('watched_lots_delivery_method_check', sql`${t.deliveryMethod} IN ('email', 'sms')`),
  ],
);

/** Watchlist messages per user per UTC day (`YYYY-MM-DD`): the daily cap's count. */
export const watchNoticeDays = pgTable(
  'watch_notice_days',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    day: text('day').notNull(),
    emailUsed: integer('email_used').notNull().default(0),
    smsUsed: integer('sms_used').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.userId, t.day] })],
);

/**
 * How a lot ended (every lot, watched or not), written by the listings trigger when its status
 * leaves `open`: the valuation and deal score it carried while open (what we claimed), the last
 * price seen. The final price of a sold lot is its sold result. `outcomes` reports on these.
 */
export const lotOutcomes = pgTable(
  'lot_outcomes',
  {
    listingId: integer('listing_id')
      .primaryKey()
      .references(() => listings.id, { onDelete: 'cascade' }),
    sourceId: integer('source_id').notNull(),
    status: text('status').$type<ListingStatus>().notNull(),
    closedAt: timestamp('closed_at', { withTimezone: true }).notNull().defaultNow(),
    auctionEndAt: timestamp('auction_end_at', { withTimezone: true }),
    lastPriceUsd: money('last_price_usd'),
    fairValue: money('fair_value'),
    valueLow: money('value_low'),
    valueHigh: money('value_high'),
    dealScore: integer('deal_score'),
    modelVersion: integer('model_version'),
  },
  (t) => [index('lot_outcomes_closed_at_idx').on(t.closedAt)],
);
