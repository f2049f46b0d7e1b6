/**
 * The notify-batch job handler: sends a batch of instant alert messages the matcher recorded in
 * the message log. The same rules as the one-message handler (deliver-message.ts), per message:
 *   - one statement per wave (2 × `parallelism` messages) claims the messages that are still
 *     queued (or whose sender died mid-attempt: a stale claim), so a message already sent, failed
 *     for good, or in another sender's hands is not touched — a batch run twice sends nothing twice;
 *   - the claimed ones go to the transport, `parallelism` at a time; each one sent is marked sent
 *     (with its notification) as soon as the writer is free, together with those sent meanwhile
 *     (group commit), so a worker dying mid-batch leaves only its wave in flight to the
 *     stale-claim rule: the job's rerun sends the rest at once, and waits (delayed, no attempt
 *     spent) until the held claims are stale to send those (a claim young enough for its holder
 *     to be alive is looked at again once that holder's send must have ended: `lookAgainAt`);
 *   - a 4xx (NonRetryableError) fails that message for good and records why on its notification;
 *     a 5xx/429/network error puts it back to queued and the job ends with a RetryableError, so
 *     BullMQ runs it again with backoff — and the rerun only claims what is still queued; after
 *     the last attempt the message fails for good;
 *   - SMS to a number that replied STOP is skipped.
 */
import { DelayedError, type Job } from 'bullmq';
import type { Db } from '../shared/database/db.js';
import { errorMessage, NonRetryableError, RetryableError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { JobHandler, Payload } from '../shared/queues.js';
import { markAlertMessagesSent, optedOutPhones, recordAlertDelivery } from '../shared/repositories/alerts-repository.js';
import {
  claimMessages,
  markMessageAttemptFailed,
  messageStatuses,
  type OutboxMessage,
} from '../shared/repositories/outbox-repository.js';
import { suppressedEmails } from '../shared/repositories/suppressions-repository.js';
import { createGroupWriter, forEachLimit } from './batch-helpers.js';
import { faultPoint } from '../shared/fault-points.js';
import { EMAIL_SUPPRESSED, sendThroughTransport, SMS_NOT_SUPPORTED, SMS_OPTED_OUT, STALE_CLAIM_SECONDS } from './deliver-message.js';
import type { EmailTransport } from './transports/index.js';
import type { SmsTransport } from './transports/sms-transport.js';

export type BatchOutcome = { sent: number; failed: number; skipped: number; retrying: number; notMine: number };

/**
 * When a batch that found some of its messages in another sender's hands looks again (epoch ms).
 * A live sender is done with a claim within two sends (a lane sends two of its wave's claims in
 * turn), so a claim younger than that is looked at again once it must have ended — sent, or back
 * to queued — rather than after the whole claim timeout (a reclaim job racing this one, a
 * replica); an older claim's holder is gone, and the batch waits until the claim is stale.
 */
export function lookAgainAt(claimedAt: number[], now: number, sendTimeoutMs: number, claimTimeoutSeconds: number): number {
  const times = claimedAt.map((at) => {
    const liveDone = at + 2 * sendTimeoutMs + 1000;
    return liveDone > now ? liveDone : at + claimTimeoutSeconds * 1000 + 1000;
  });
  return Math.max(now + 1000, Math.min(...times));
}

export function createNotifyBatchHandler(deps: {
  db: Db;
  transport: EmailTransport;
  sms?: SmsTransport;
  mailFrom: string;
  logger: Logger;
  parallelism: number;
  /** NOTIFY_CLAIM_TIMEOUT_SECONDS (default STALE_CLAIM_SECONDS). */
  claimTimeoutSeconds?: number;
  /** NOTIFY_SEND_TIMEOUT_MS (default 15 s): how long a live sender can hold a claim per send. */
  sendTimeoutMs?: number;
}): JobHandler<'notifyBatch'> {
  const { db, logger } = deps;
  const claimTimeoutSeconds = deps.claimTimeoutSeconds ?? STALE_CLAIM_SECONDS;
  const sendTimeoutMs = deps.sendTimeoutMs ?? 15_000;
  return async (payload: Payload<'notifyBatch'>, job: Job, token?: string): Promise<BatchOutcome> => {
    const keys = [...new Set(payload.messageKeys)];
    const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    const outcome: BatchOutcome = { sent: 0, failed: 0, skipped: 0, retrying: 0, notMine: 0 };
    let retryReason: string | undefined;
    let stopped = new Set<string>();
    let bounced = new Set<string>();

    const writes: Array<Promise<void>> = [];
    let databaseError: unknown;
    const keepFirstError = (err: unknown) => void (databaseError ??= err);
    const recordSent = createGroupWriter((sent: Array<{ messageKey: string; providerMessageId: string | null }>) => markAlertMessagesSent(db, sent));

    // Failure marks hold only while this job's claim does (see markMessageAttemptFailed): a
    // claim that went stale may have been taken over, and the new sender's outcome stands.
    const failPermanently = async (message: OutboxMessage, error: string, status: 'failed' | 'skipped') => {
      if (!(await markMessageAttemptFailed(db, message.messageKey, error, true, message))) return;
      await recordAlertDelivery(db, message.messageKey, { status, error });
      outcome[status]++;
    };

    const deliver = async (message: OutboxMessage) => {
      if (message.channel === 'sms' && !deps.sms) return failPermanently(message, SMS_NOT_SUPPORTED, 'failed');
      if (message.channel === 'sms' && stopped.has(message.recipient)) return failPermanently(message, SMS_OPTED_OUT, 'skipped');
      if (message.channel === 'email' && bounced.has(message.recipient.toLowerCase())) return failPermanently(message, EMAIL_SUPPRESSED, 'skipped');
      let providerMessageId: string | null;
      try {
        faultPoint('notify-claimed');
        ({ providerMessageId } = await sendThroughTransport(deps, message));
        faultPoint('notify-sent');
      } catch (err) {
        const final = err instanceof NonRetryableError || lastAttempt;
        logger.warn({ messageKey: message.messageKey, attempt: job.attemptsMade + 1, final, err: errorMessage(err) }, 'message not sent');
        if (final) return failPermanently(message, errorMessage(err), 'failed');
        if (!(await markMessageAttemptFailed(db, message.messageKey, errorMessage(err), false, message))) return;
        outcome.retrying++;
        retryReason ??= errorMessage(err);
        return;
      }
      // Not awaited: the next send goes out while this one's mark joins the next group write.
      writes.push(recordSent.add({ messageKey: message.messageKey, providerMessageId }).then(() => void outcome.sent++, keepFirstError));
    };

    // Claimed a wave at a time, not all at once: a worker dying mid-batch holds only the wave in
    // flight (those wait for the stale-claim time); its rerun claims and sends the rest at once.
    const claimedKeys = new Set<string>();
    const waveSize = deps.parallelism * 2;
    for (let i = 0; i < keys.length && databaseError === undefined; i += waveSize) {
      const wave = keys.slice(i, i + waveSize);
      // In the order they were matched (the claim's RETURNING has none).
      const claimed = (await claimMessages(db, wave, { email: deps.transport.name, sms: deps.sms?.name ?? 'none' }, claimTimeoutSeconds)).sort((a, b) => a.id - b.id);
      for (const m of claimed) claimedKeys.add(m.messageKey);
      // A number that replied STOP gets nothing more, even from batches queued before the reply.
      stopped = await optedOutPhones(db, claimed.filter((m) => m.channel === 'sms').map((m) => m.recipient));
      // An address that bounced or reported spam meanwhile gets nothing more either.
      bounced = await suppressedEmails(db, claimed.filter((m) => m.channel === 'email').map((m) => m.recipient));
      await forEachLimit(claimed, deps.parallelism, async (message) => {
        // The lane waits for the send (that is what bounds the parallelism), not for its mark.
        await deliver(message).catch(keepFirstError);
      });
    }
    await Promise.all(writes);
    // A database error while recording: the message stays claimed (the stale-claim rule covers
    // it); the job fails and is retried.
    if (databaseError !== undefined) throw databaseError;

    // Messages not claimed: sent or failed already (nothing to do), or in another sender's hands
    // — a live one, or this job's own run that died mid-send.
    const others = keys.filter((k) => !claimedKeys.has(k));
    const statuses = await messageStatuses(db, others);
    const busy = others.filter((k) => ['sending', 'queued'].includes(statuses.get(k)?.status ?? ''));
    outcome.notMine = busy.length;
    if (retryReason === undefined && busy.length > 0 && token) {
      // Only claims held elsewhere are left: look again, without spending an attempt, when a live
      // holder must be done, or (the holder is gone) when the claim is stale and this job may send.
      const at = lookAgainAt(
        busy.map((k) => statuses.get(k)!.claimedAt?.getTime() ?? Date.now()),
        Date.now(),
        sendTimeoutMs,
        claimTimeoutSeconds,
      );
      logger.info({ listingId: payload.listingId, ...outcome, until: new Date(at).toISOString() }, 'notify batch waits for messages held by another sender');
      await job.moveToDelayed(at, token);
      throw new DelayedError();
    }
    if (busy.length > 0) retryReason ??= `${busy.length} message(s) of the batch are being sent by another worker`;
    logger.info({ listingId: payload.listingId, ...outcome }, 'notify batch');
    if (retryReason !== undefined) throw new RetryableError(`notify batch: ${outcome.retrying + outcome.notMine} message(s) to retry: ${retryReason}`);
    return outcome;
  };
}
