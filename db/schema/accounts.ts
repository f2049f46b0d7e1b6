import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { users } from './users.js';

/**
 * A signed-in session: one per login, the "family" of its rotating refresh tokens. Access tokens
 * name their session (`sid`), so revoking it (logout, refresh-token reuse, password change)
 * ends the session at once, not only when the access token expires.
 */
export const authSessions = pgTable(
  'auth_sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** `password`, `register` or `google`. */
    method: text('method').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastRefreshedAt: timestamp('last_refreshed_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    /** `logout`, `refresh_reuse`, `password_change`, `password_reset`. */
    revokedReason: text('revoked_reason'),
  },
  (t) => [index('auth_sessions_user_idx').on(t.userId)],
);

/** Opaque refresh tokens, stored only as their SHA-256. A used (rotated) token is kept to detect reuse. */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => authSessions.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    /** Set when the token is exchanged for a new pair; presenting it again is reuse. */
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [index('refresh_tokens_session_idx').on(t.sessionId), index('refresh_tokens_expires_idx').on(t.expiresAt)],
);

/** Password-reset tokens already spent: a reset link works once. */
export const passwordResetTokenUses = pgTable('password_reset_token_uses', {
  tokenHash: text('token_hash').primaryKey(),
  userId: integer('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  usedAt: timestamp('used_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Every outgoing message (e-mail now, SMS later), whatever the transport: the record that nothing
 * is lost. With no provider configured, the `outbox` transport "delivers" by leaving it here.
 * `message_key` is the notify job's idempotency key: one message per key.
 */
export const outboxMessages = pgTable(
  'outbox_messages',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    messageKey: text('message_key').notNull().unique(),
    /** `email` or `sms`. */
    channel: text('channel').notNull(),
    kind: text('kind').notNull().default('generic'),
    recipient: text('recipient').notNull(),
    subject: text('subject').notNull().default(''),
    textBody: text('text_body').notNull(),
    htmlBody: text('html_body'),
    /** Extra e-mail headers (alert mail: `List-Unsubscribe`, `List-Unsubscribe-Post`). */
    headers: jsonb('headers').$type<Record<string, string>>(),
    /** `queued` → `sending` → `sent`, or `failed` (after the last retry, or at once when retrying cannot help). */
    status: text('status').notNull().default('queued'),
    /** `sendgrid`, `smtp` or `outbox`: the transport of the last attempt. */
    transport: text('transport'),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    providerMessageId: text('provider_message_id'),
    claimedAt: timestamp('claimed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('outbox_messages_recipient_idx').on(sql`lower(${t.recipient})`, t.createdAt),
    index('outbox_messages_created_idx').on(t.createdAt),
    // The sweep looks for unsent messages only: a few rows among every message ever sent.
    index('outbox_messages_unsent_idx').on(t.status, t.updatedAt).where(sql`${t.status} IN ('queued', 'sending')`),
    // Twilio's status callback names the message by its SID.
    index('outbox_messages_provider_id_idx').on(t.providerMessageId).where(sql`${t.providerMessageId} IS NOT NULL`),
  ],
);

/**
 * Fixed-window counters for per-account abuse limits (login failures, register and reset
 * requests per e-mail). Kept in PostgreSQL so every API replica counts together.
 */
export const rateLimitCounters = pgTable('rate_limit_counters', {
  key: text('key').primaryKey(),
  windowStart: timestamp('window_start', { withTimezone: true }).notNull(),
  hits: integer('hits').notNull(),
});
