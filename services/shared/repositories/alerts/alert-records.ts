/**
 * SQL of the alerts table and SMS opt-outs: an alert's criteria as stored, a user's alerts
 * (create within the plan's limit, read, update, delete, turn off), the STOP replies, and the
 * operator's counts.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import { alertNotifications, alerts, smsOptOuts } from '../../../../db/schema/index.js';
import type { AlertDealLevel, AlertFrequency, DeliveryMethod } from '../../../../db/schema/alerts.js';
import type { Condition } from '../../../../db/schema/listings.js';
import type { DbOrTx } from '../../database/db.js';

/** A valid alert's criteria, as stored. */
export type AlertCriteria = {
  categoryId: number;
  priceMin: number | null;
  priceMax: number | null;
  state: string | null;
  condition: Condition | null;
  deliveryMethod: DeliveryMethod;
  frequency: AlertFrequency;
  /** Every plan: good or better (default) or excellent only. */
  dealLevel: AlertDealLevel;
  /** Premium: any minimum badge 0–100, in place of the level. */
  minDealScore: number | null;
  /** Listings without a deal score match only with this (default off). */
  includeUnscored: boolean;
  keywords: string | null;
  keywordTerms: string[] | null;
  isActive: boolean;
  /** The buyer's ZIP code and its point: with `radiusMiles`, only lots within it match; always, messages carry the price delivered there. */
  nearZip: string | null;
  nearLat: number | null;
  nearLon: number | null;
  radiusMiles: number | null;
  /** Only lots whose discount under fair value exceeds the haul's high estimate from `nearZip` (which it needs); absent: off. */
  worthTheTrip?: boolean;
};

export type AlertRow = typeof alerts.$inferSelect;

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
