/**
 * SQL for e-mail suppressions (issue #22): addresses SendGrid reported as bouncing or as
 * reporting spam get no more mail until their owner re-enables them; and the fate of SMS that
 * Twilio's status callback reports as failed. Addresses are compared lower-cased.
 */
import { eq, sql } from 'drizzle-orm';
import { emailSuppressions } from '../../../db/schema/index.js';
import type { DbOrTx } from '../database/db.js';
import { textArray } from '../database/sql-arrays.js';

export type EmailSuppression = typeof emailSuppressions.$inferSelect;

/** Records (or refreshes) a suppression; the first reason stays unless a spam report follows a bounce. */
export async function suppressEmail(db: DbOrTx, email: string, reason: string, detail: string | null): Promise<void> {
  await db
    .insert(emailSuppressions)
    .values({ email: email.trim().toLowerCase(), reason, detail: detail?.slice(0, 500) ?? null })
    .onConflictDoUpdate({ target: emailSuppressions.email, set: { reason, detail: detail?.slice(0, 500) ?? null, createdAt: sql`now()` } });
}

export async function removeEmailSuppression(db: DbOrTx, email: string): Promise<boolean> {
  const rows = await db.delete(emailSuppressions).where(eq(emailSuppressions.email, email.trim().toLowerCase())).returning({ email: emailSuppressions.email });
  return rows.length > 0;
}

export async function findEmailSuppression(db: DbOrTx, email: string): Promise<EmailSuppression | undefined> {
  const [row] = await db.select().from(emailSuppressions).where(eq(emailSuppressions.email, email.trim().toLowerCase()));
  return row;
}

/** Which of these addresses are suppressed (lower-cased). */
export async function suppressedEmails(db: DbOrTx, emails: string[]): Promise<Set<string>> {
  if (emails.length === 0) return new Set();
  const lowered = [...new Set(emails.map((e) => e.trim().toLowerCase()))];
  const rows = (await db.execute(sql`SELECT email FROM email_suppressions WHERE email = ANY(${textArray(lowered)})`)) as unknown as Array<{ email: string }>;
  return new Set(rows.map((r) => r.email));
}

/**
 * Twilio's status callback: the SMS with this SID failed (or was undelivered). Marks it failed in
 * the message log and returns its message key (null when no message has that SID).
 */
export async function markSmsFailedBySid(db: DbOrTx, sid: string, error: string): Promise<string | null> {
  const rows = (await db.execute(sql`
    UPDATE outbox_messages SET status = 'failed', last_error = ${error.slice(0, 2000)}, updated_at = now()
    WHERE provider_message_id = ${sid} AND channel = 'sms'
    RETURNING message_key AS "messageKey"
  `)) as unknown as Array<{ messageKey: string }>;
  return rows[0]?.messageKey ?? null;
}

/** The latest SMS to this number that Twilio reported failed, for the account page. */
export async function latestFailedSms(db: DbOrTx, phone: string): Promise<{ error: string | null; at: Date } | null> {
  const rows = (await db.execute(sql`
    SELECT last_error AS error, updated_at AS at FROM outbox_messages
    WHERE recipient = ${phone} AND channel = 'sms' AND status = 'failed'
    ORDER BY updated_at DESC LIMIT 1
  `)) as unknown as Array<{ error: string | null; at: Date | string }>;
  return rows[0] ? { error: rows[0].error, at: new Date(rows[0].at) } : null;
}

/**
 * A sent e-mail that bounced (or was reported as spam) afterwards: marked failed in the message
 * log with why. Says whether the key names a message.
 */
export async function markMessageFailedAfterSend(db: DbOrTx, messageKey: string, error: string): Promise<boolean> {
  const rows = (await db.execute(sql`
    UPDATE outbox_messages SET status = 'failed', last_error = ${error.slice(0, 2000)}, updated_at = now()
    WHERE message_key = ${messageKey} AND channel = 'email'
    RETURNING id
  `)) as unknown as Array<{ id: number }>;
  return rows.length > 0;
}
