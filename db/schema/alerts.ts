import { sql } from 'drizzle-orm';
import { boolean, check, doublePrecision, index, integer, numeric, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { categories } from './catalog.js';
import type { Condition } from './listings.js';
import { users } from './users.js';

export const DELIVERY_METHODS = ['email', 'sms'] as const;
export type DeliveryMethod = (typeof DELIVERY_METHODS)[number];
export const ALERT_FREQUENCIES = ['instant', 'daily'] as const;
export type AlertFrequency = (typeof ALERT_FREQUENCIES)[number];
/** The deal level an alert asks for (issue #22): good or better (badge ≥ 60, the default) or excellent only (≥ 80). */
export const ALERT_DEAL_LEVELS = ['good', 'excellent'] as const;
export type AlertDealLevel = (typeof ALERT_DEAL_LEVELS)[number];
/** `match` the first time; then only on a material change: the price 10% or more down, or the deal level up. */
export const NOTIFICATION_EVENTS = ['match', 'price_drop', 'level_up'] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/**
 * A buyer's saved criteria. Null criteria mean "any". `state_key`/`condition_key` are the same
 * values with '' for "any": the matcher joins changed listings on (category, state_key,
 * condition_key) with each listing expanded to its value and '' — an equality join the planner
 * can hash or probe through the partial index, instead of comparing every alert with every lot.
 */
export const alerts = pgTable(
  'alerts',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    categoryId: integer('category_id')
      .notNull()
      .references(() => categories.id),
    /** Whole USD; no check that min ≤ max (spec §5). */
    priceMin: integer('price_min'),
    priceMax: integer('price_max'),
    /** USPS code. */
    state: text('state'),
    condition: text('condition').$type<Condition>(),
    stateKey: text('state_key')
      .notNull()
      .generatedAlwaysAs(sql`coalesce(state, '')`),
    conditionKey: text('condition_key')
      .notNull()
      .generatedAlwaysAs(sql`coalesce(condition, '')`),
    deliveryMethod: text('delivery_method').$type<DeliveryMethod>().notNull().default('email'),
    frequency: text('frequency').$type<AlertFrequency>().notNull().default('instant'),
    /** Deals only by default: the listing's level must reach this one (unless `min_deal_score` says otherwise). */
    dealLevel: text('deal_level').$type<AlertDealLevel>().notNull().default('good'),
    /** Premium: badge scale 0–100, the listing's ceil(deal_score / 10) must reach it; overrides `deal_level`. */
    minDealScore: integer('min_deal_score'),
    /** Listings that cannot be valued (no deal score) match only when the alert opts in. */
    includeUnscored: boolean('include_unscored').notNull().default(false),
    /** As the user typed them (shown back); `keyword_terms` is what matching uses. */
    keywords: text('keywords'),
    /** Lower-cased words that must all occur in the listing's title, make, model or description. */
    keywordTerms: text('keyword_terms').array(),
    /** "Within radius_miles of near_zip" (issue 30); the ZIP code's point is fixed when the alert is saved. */
    nearZip: text('near_zip'),
    nearLat: doublePrecision('near_lat'),
    nearLon: doublePrecision('near_lon'),
    radiusMiles: integer('radius_miles'),
    /**
     * "Worth the trip" (issue 30): only lots whose discount under fair value exceeds the haul's
     * high estimate from `near_zip` (which it needs: the check of migration 0045).
     */
    worthTheTrip: boolean('worth_the_trip').notNull().default(false),
    isActive: boolean('is_active').notNull().default(true),
    /** The daily cap's count: the UTC day (`YYYY-MM-DD`) and the instant messages kept that day. */
    capDay: text('cap_day'),
    capUsed: integer('cap_used').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('alerts_user_idx').on(t.userId, t.createdAt),
    index('alerts_active_match_idx').on(t.categoryId, t.stateKey, t.conditionKey).where(sql`is_active`),
    check('alerts_worth_the_trip_zip_check', sql`NOT ${t.worthTheTrip} OR ${t.nearZip} IS NOT NULL`),
  ],
);

/**
 * One row per (alert, listing, event): what matched, and what became of its message. The unique
 * key makes a second match of the same event impossible, however often a match job runs.
 * `event` is `match` (the first time the lot satisfies the alert; `event_key` '') or
 * `price_drop` (`event_key` the new price) or `level_up` (`event_key` the new level). `trigger` is the pipeline event that caused it.
 */
export const alertNotifications = pgTable(
  'alert_notifications',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    // No foreign keys on this fan-out table: rows are written only by the matcher from the alert,
    // user and listing it has just joined, and the per-row checks were over a third of a big
    // batch's insert time (bench:match). Deleting an alert deletes its notifications
    // (alerts-repository); accounts are deactivated, not deleted.
    alertId: integer('alert_id').notNull(),
    userId: integer('user_id').notNull(),
    listingId: integer('listing_id').notNull(),
    event: text('event').$type<NotificationEvent>().notNull(),
    eventKey: text('event_key').notNull().default(''),
    trigger: text('trigger').$type<'new' | 'scored' | 'price_drop'>().notNull(),
    channel: text('channel').$type<DeliveryMethod>().notNull(),
    frequency: text('frequency').$type<AlertFrequency>().notNull(),
    /**
     * `pending` (matched, message not yet queued) → `queued` → `sent`, or `failed` (permanent,
     * `error` says why), `skipped` (e.g. the phone replied STOP); daily ones become `digested`.
     */
    status: text('status').notNull().default('pending'),
    /** The listing as it was when it matched: what the message said. */
    priceUsd: numeric('price_usd', { precision: 14, scale: 2, mode: 'number' }),
    dealScore: integer('deal_score'),
    messageKey: text('message_key'),
    digestId: integer('digest_id'),
    /** The daily cap has decided this instant notification (kept, or rolled into the digest). */
    capCounted: boolean('cap_counted').notNull().default(false),
    error: text('error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // Listing first: the matcher and the dispatcher look notifications up by listing, and one
    // index fewer to write per matched row (bench:match). By alert: through the user index.
    uniqueIndex('alert_notifications_listing_event_key').on(t.listingId, t.alertId, t.event, t.eventKey),
    index('alert_notifications_user_idx').on(t.userId, t.createdAt),
    index('alert_notifications_digest_idx').on(t.digestId).where(sql`digest_id IS NOT NULL`),
    index('alert_notifications_digest_due_idx').on(t.alertId).where(sql`status = 'pending' AND frequency = 'daily'`),
  ],
);

/** One digest message per (alert, day): the daily gathering of that alert's matches. */
export const alertDigests = pgTable(
  'alert_digests',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    alertId: integer('alert_id')
      .notNull()
      .references(() => alerts.id, { onDelete: 'cascade' }),
    /** UTC date, `YYYY-MM-DD`. */
    day: text('day').notNull(),
    matchCount: integer('match_count').notNull(),
    /** `pending` → `queued` → `sent` / `failed`. */
    status: text('status').notNull().default('pending'),
    messageKey: text('message_key').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('alert_digests_alert_day_key').on(t.alertId, t.day)],
);

/** Phone numbers (E.164) that replied STOP: no SMS goes to them until they reply START. */
export const smsOptOuts = pgTable('sms_opt_outs', {
  phone: text('phone').primaryKey(),
  keyword: text('keyword').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * E-mail addresses nothing more is sent to (issue #22): SendGrid's signed event webhook reported
 * a bounce, a block or a spam report. The account page shows the owner theirs, with a way to
 * re-enable. Stored lower-cased.
 */
export const emailSuppressions = pgTable('email_suppressions', {
  email: text('email').primaryKey(),
  /** SendGrid's event: `bounce`, `dropped` or `spamreport`. */
  reason: text('reason').notNull(),
  /** What SendGrid said (bounce reason), bounded. */
  detail: text('detail'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
