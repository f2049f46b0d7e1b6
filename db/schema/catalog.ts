import { sql } from 'drizzle-orm';
import { boolean, check, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * What the last crawl of a source found. `layout-changed`: pages that should hold listings yielded
 * none (parse failures, or a content page without listings) — the adapter needs updating;
 * `login-required`: the site answered with a login wall. Neither empties the source: its listings
 * stay and it is crawled again on its schedule.
 */
export const SOURCE_STATUSES = ['unknown', 'ok', 'empty', 'blocked', 'error', 'layout-changed', 'login-required'] as const;
export type SourceStatus = (typeof SOURCE_STATUSES)[number];

/** Auction sites we crawl. `name` is the adapter's key (`gsaauctions`, `demo`, …). */
export const sources = pgTable(
  'sources',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull().unique(),
    displayName: text('display_name').notNull(),
    baseUrl: text('base_url').notNull(),
    /** How the site is reached: `api`, `html` or `browser`. */
    accessKind: text('access_kind').notNull().default('html'),
    enabled: boolean('enabled').notNull().default(false),
    disabledReason: text('disabled_reason'),
    isDemo: boolean('is_demo').notNull().default(false),
    /** The outcome of the last crawl: one of SOURCE_STATUSES. */
    status: text('status').$type<SourceStatus>().notNull().default('unknown'),
    /** For `layout-changed`, `login-required` and `blocked`: the parser's or fetcher's message. */
    statusMessage: text('status_message'),
    /** For the same statuses: the URLs that failed (a few). */
    statusUrls: jsonb('status_urls').$type<string[]>().notNull().default([]),
    /** Since when the source has had its current status. */
    statusSince: timestamp('status_since', { withTimezone: true }),
    blockedSince: timestamp('blocked_since', { withTimezone: true }),
    lastRunAt: timestamp('last_run_at', { withTimezone: true }),
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check('sources_status_check', sql`${t.status} IN ('unknown', 'ok', 'empty', 'blocked', 'error', 'layout-changed', 'login-required')`)],
);

/**
 * The spec's ten equipment types, then Other. Ids are fixed (seeded by migration) so that
 * `?category=3` means the same thing on every installation.
 */
export const categories = pgTable('categories', {
  id: integer('id').primaryKey(),
  name: text('name').notNull().unique(),
  slug: text('slug').notNull().unique(),
  position: integer('position').notNull(),
});
