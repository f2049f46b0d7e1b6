/**
 * The notifier's sweep: messages that would otherwise never be sent get a `notify` job.
 *   - Recorded as queued but their job never made it onto the queue (the queue store was down
 *     when `queueEmail` or the matcher ran, the process died in between). The job id is the
 *     message key's, so a message whose job exists is not added twice.
 *   - Claimed by a sender that never finished (its worker died mid-send, or its notify-batch job
 *     ran out of attempts or stalled out while holding the claim): once the claim is older than
 *     the claim timeout. Its old job may still be kept (failed or completed) under the message's
 *     job id, so the new one is named after the claim it replaces (the attempt count, which every
 *     claim increases): sweeping again adds nothing while that job waits, and a later stale claim
 *     gets a job of its own.
 * Safe to run anywhere, any time: the job still has to claim the message (a message sent, failed
 * for good, or claimed again by a live sender is left alone), and the claim timeout outlasts any
 * send in flight, so a slow sender's message is not sent twice.
 */
import type { AppContext } from '../shared/context.js';
import { digest } from '../shared/queues.js';
import { listStrandedMessages, type OutboxMessage } from '../shared/repositories/outbox-repository.js';

export async function requeueStrandedMessages(ctx: Pick<AppContext, 'database' | 'queues' | 'config'>, olderThanSeconds = 60): Promise<number> {
  const stranded = await listStrandedMessages(ctx.database.db, olderThanSeconds, 500, ctx.config.NOTIFY_CLAIM_TIMEOUT_SECONDS);
  for (const m of stranded) {
    const opts = m.status === 'sending' ? { jobId: staleClaimJobId(m) } : {};
    if (m.channel === 'sms') {
      await ctx.queues.enqueue('notify', { channel: 'sms', messageKey: m.messageKey, to: m.recipient, body: m.textBody, kind: m.kind }, opts);
    } else {
      await ctx.queues.enqueue(
        'notify',
        {
          channel: 'email',
          messageKey: m.messageKey,
          to: m.recipient,
          subject: m.subject,
          text: m.textBody,
          ...(m.htmlBody ? { html: m.htmlBody } : {}),
          kind: m.kind,
        },
        opts,
      );
    }
  }
  return stranded.length;
}

/** The job that takes over a stale claim: one per claim (attempt), never the message's first job id. */
export function staleClaimJobId(message: Pick<OutboxMessage, 'messageKey' | 'attempts'>): string {
  return `notify-${digest(message.messageKey)}-reclaim-${message.attempts}`;
}
