/** SQL for analytics events (`analytics_events`). */
import { asc, eq } from 'drizzle-orm';
import { analyticsEvents } from '../../../db/schema/index.js';
import type { DbOrTx } from '../database/db.js';

export type NewAnalyticsEvent = typeof analyticsEvents.$inferInsert;
export type AnalyticsEventRow = typeof analyticsEvents.$inferSelect;

/** One multi-row INSERT for a batch; returns how many rows were stored. */
export async function insertAnalyticsEvents(db: DbOrTx, events: NewAnalyticsEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const rows = await db.insert(analyticsEvents).values(events).returning({ id: analyticsEvents.id });
  return rows.length;
}

/** A device's events, oldest first (operators and tests). */
export async function listDeviceEvents(db: DbOrTx, deviceId: string): Promise<AnalyticsEventRow[]> {
  return db.select().from(analyticsEvents).where(eq(analyticsEvents.deviceId, deviceId)).orderBy(asc(analyticsEvents.id));
}
