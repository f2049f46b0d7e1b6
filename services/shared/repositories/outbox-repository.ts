/**
 * SQL for the message log (`outbox_messages`): every e-mail or SMS the product sends, whatever
 * the transport, with its status, attempts and last error.
 */
import { and, desc, eq, inArray, or, sql } from 'drizzle-orm';
import { outboxMessages } from '../../../db/schema/index.js';
import type { DbOrTx } from '../database/db.js';

export type OutboxMessage = typeof outboxMessages.$inferSelect;
export type NewOutboxMessage = {
  messageKey: string;
  channel: 'email' | 'sms';
  kind: string;
  recipient: string;
  subject: string;
  textBody: string;
  htmlBody?: string | null;
  headers?: Record<string, string> | null;
};

/** Records a message as queued; a second call with the same key changes nothing. */
export async function recordQueuedMessage(db: DbOrTx, message: NewOutboxMessage): Promise<void> {
  await db.insert(outboxMessages).values({ ...message, status: 'queued' }).onConflictDoNothing({ target: outboxMessages.messageKey });
}

export async function findMessageByKey(db: DbOrTx, messageKey: string): Promise<OutboxMessage | undefined> {
  const [row] = await db.select().from(outboxMessages).where(eq(outboxMessages.messageKey, messageKey));
  return row;
}

/**
 * Claims a message for one delivery attempt: only a queued message (or one whose sender died
 * mid-attempt, claimed longer ago than `staleAfterSeconds`) can be claimed, so a message that was
 * sent is never sent again, however many times its job runs.
 */
export async function claimMessage(db: DbOrTx, messageKey: string, transport: string, staleAfterSeconds: number): Promise<OutboxMessage | undefined> {
  const [row] = await db
    .update(outboxMessages)
    .set({ status: 'sending', transport, attempts: sql`${outboxMessages.attempts} + 1`, claimedAt: sql`now()`, updatedAt: sql`now()` })
    .where(
      and(
        eq(outboxMessages.messageKey, messageKey),
        sql`(${outboxMessages.status} = 'queued' OR (${outboxMessages.status} = 'sending' AND ${outboxMessages.claimedAt} < now() - make_interval(secs => ${staleAfterSeconds})))`,
      ),
    )
    .returning();
  return row;
}

export async function markMessageSent(db: DbOrTx, messageKey: string, providerMessageId: string | null): Promise<void> {
  await db
    .update(outboxMessages)
    .set({ status: 'sent', providerMessageId, lastError: null, sentAt: sql`now()`, claimedAt: null, updatedAt: sql`now()` })
    .where(eq(outboxMessages.messageKey, messageKey));
}

/**
 * Records a failed attempt: back to `queued` for the next retry, or `failed` for good. With
 * `claim` (the message as its claim returned it), only while that claim still holds — status
 * `sending` and no claim since (each claim counts an attempt): a sender slower than the claim
 * timeout, whose message was claimed again and perhaps sent, must not put it back to `queued`
 * (sent again) or fail it. Says whether the mark was made.
 */
export async function markMessageAttemptFailed(db: DbOrTx, messageKey: string, error: string, final: boolean, claim?: Pick<OutboxMessage, 'attempts'>): Promise<boolean> {
  const rows = await db
    .update(outboxMessages)
    .set({ status: final ? 'failed' : 'queued', lastError: error.slice(0, 2000), claimedAt: null, updatedAt: sql`now()` })
    .where(
      and(
        eq(outboxMessages.messageKey, messageKey),
        claim ? and(eq(outboxMessages.status, 'sending'), eq(outboxMessages.attempts, claim.attempts)) : undefined,
      ),
    )
    .returning({ id: outboxMessages.id });
  return rows.length > 0;
}

export async function listMessages(db: DbOrTx, opts: { to?: string; limit?: number; kind?: string } = {}): Promise<OutboxMessage[]> {
  return db
    .select()
    .from(outboxMessages)
    .where(
      and(
        opts.to ? sql`lower(${outboxMessages.recipient}) = lower(${opts.to})` : undefined,
        opts.kind ? eq(outboxMessages.kind, opts.kind) : undefined,
      ),
    )
    .orderBy(desc(outboxMessages.createdAt), desc(outboxMessages.id))
    .limit(Math.min(Math.max(opts.limit ?? 20, 1), 1000));
}

/**
 * Candidates for a new job: messages still `queued` after `olderThanSeconds`, and messages whose
 * claim is stale (`sending`, claimed longer ago than `claimTimeoutSeconds`: the claimer died, or
 * its job ended without finishing them) — the same rule by which `claimMessage` lets them be claimed.
 */
export async function listStrandedMessages(db: DbOrTx, olderThanSeconds: number, limit: number, claimTimeoutSeconds: number): Promise<OutboxMessage[]> {
  return db
    .select()
    .from(outboxMessages)
    .where(
      or(
        and(eq(outboxMessages.status, 'queued'), sql`${outboxMessages.updatedAt} < now() - make_interval(secs => ${olderThanSeconds})`),
        and(eq(outboxMessages.status, 'sending'), sql`${outboxMessages.claimedAt} < now() - make_interval(secs => ${claimTimeoutSeconds})`),
      ),
    )
    .orderBy(outboxMessages.id)
    .limit(limit);
}

// ---- batches (the notify-batch worker and the matcher's dispatch) ------------------------

/** Records many messages as queued in one statement per 500; keys already recorded are left as they are. */
export async function recordQueuedMessages(db: DbOrTx, messages: NewOutboxMessage[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 500) {
    const chunk = messages.slice(i, i + 500).map((m) => ({ ...m, status: 'queued' }));
    await db.insert(outboxMessages).values(chunk).onConflictDoNothing({ target: outboxMessages.messageKey });
  }
}

/**
 * `claimMessage` for many keys in one statement: each queued (or stale-claimed) message among
 * them is claimed for one attempt by the transport of its channel and returned; the others (sent,
 * failed, being sent by a live worker, unknown) are not.
 */
export async function claimMessages(
  db: DbOrTx,
  messageKeys: string[],
  transports: { email: string; sms: string },
  staleAfterSeconds: number,
): Promise<OutboxMessage[]> {
  if (messageKeys.length === 0) return [];
  return db
    .update(outboxMessages)
    .set({
      status: 'sending',
      transport: sql`CASE WHEN ${outboxMessages.channel} = 'sms' THEN ${transports.sms} ELSE ${transports.email} END`,
      attempts: sql`${outboxMessages.attempts} + 1`,
      claimedAt: sql`now()`,
      updatedAt: sql`now()`,
    })
    .where(
      and(
        inArray(outboxMessages.messageKey, messageKeys),
        sql`(${outboxMessages.status} = 'queued' OR (${outboxMessages.status} = 'sending' AND ${outboxMessages.claimedAt} < now() - make_interval(secs => ${staleAfterSeconds})))`,
      ),
    )
    .returning();
}

/** The status (and claim time) of each of these messages (absent keys are not in the log). */
export async function messageStatuses(db: DbOrTx, messageKeys: string[]): Promise<Map<string, { status: string; claimedAt: Date | null }>> {
  if (messageKeys.length === 0) return new Map();
  const rows = await db
    .select({ messageKey: outboxMessages.messageKey, status: outboxMessages.status, claimedAt: outboxMessages.claimedAt })
    .from(outboxMessages)
    .where(inArray(outboxMessages.messageKey, messageKeys));
  return new Map(rows.map((r) => [r.messageKey, { status: r.status, claimedAt: r.claimedAt }]));
}
