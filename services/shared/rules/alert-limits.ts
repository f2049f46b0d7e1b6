/**
 * The numbers that decide when an alert speaks again and how often a day: pure, read by the
 * matching rule (services/alerts/alert-matching.ts) and by the alerts repository's SQL, which
 * applies the same rule to a whole batch.
 */

/** A price this far below the lowest one notified is a material change (10% or more). */
export const MATERIAL_PRICE_DROP = 0.9;

/** Instant messages per alert per UTC day before matches roll into the daily digest. */
export type DailyCaps = { email: number; sms: number };
export const DEFAULT_DAILY_CAPS: DailyCaps = { email: 5, sms: 3 };
