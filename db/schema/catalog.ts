import { boolean, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Auction sites we crawl. `name` is the adapter's key (`gsaauctions`, `demo`, …). */
export const sources = pgTable('sources', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  name: text('name').notNull().unique(),
  displayName: text('display_name').notNull(),
  baseUrl: text('base_url').notNull(),
  /** How the site is reached: `api`, `html` or `browser`. */
  accessKind: text('access_kind').notNull().default('html'),
  enabled: boolean('enabled').notNull().default(false),
  disabledReason: text('disabled_reason'),
  isDemo: boolean('is_demo').notNull().default(false),
  /** `unknown`, `ok`, `empty`, `blocked` or `error`: the outcome of the last crawl. */
  status: text('status').notNull().default('unknown'),
  blockedSince: timestamp('blocked_since', { withTimezone: true }),
  lastRunAt: timestamp('last_run_at', { withTimezone: true }),
  settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

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
