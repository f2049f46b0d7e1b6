import { bigint, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users.js';

/**
 * Usage events sent by the web app (`POST /api/events/`): page views, the product's usage events
 * and client errors. Anonymous visitors are allowed, so `user_id` is null for them; the device id
 * ties a visitor's events together. Properties are already sanitised and bounded (spec §5).
 */
export const analyticsEvents = pgTable(
  'analytics_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    name: text('name').notNull(),
    /** 'page' (a route change), 'track' (a usage event) or 'error'. */
    kind: text('kind').notNull(),
    deviceId: text('device_id').notNull(),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    properties: jsonb('properties').$type<Record<string, unknown>>().notNull().default({}),
    /** The §3 user properties, kept only when the request was signed in. */
    userProperties: jsonb('user_properties').$type<Record<string, unknown>>(),
    /** The client's clock (bounded to ±1 day of the server's); `received_at` is ours. */
    occurredAt: timestamp('occurred_at', { withTimezone: true }).notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('analytics_events_received_idx').on(t.receivedAt), index('analytics_events_name_idx').on(t.name, t.receivedAt), index('analytics_events_user_idx').on(t.userId)],
);
