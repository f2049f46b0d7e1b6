/**
 * SQL for alerts, their notifications, daily digests and SMS opt-outs — one surface, four parts
 * (services/shared/repositories/alerts/): the alerts table and opt-outs (`alert-records`), matching
 * changed listings to alerts (`alert-matching-sql`), instant messages and the daily cap
 * (`alert-deliveries`), and daily digests (`alert-digests`).
 */
export * from './alerts/alert-records.js';
export * from './alerts/alert-matching-sql.js';
export * from './alerts/alert-deliveries.js';
export * from './alerts/alert-digests.js';
