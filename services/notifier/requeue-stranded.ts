/**
 * Messages recorded as queued whose job never made it onto the queue (the queue store was down
 * when `queueEmail` ran, the process died in between) are put back. Safe to run anywhere, any
 * time: the job id is the message key, so a message whose job exists is not added twice, and
 * the worker never re-sends a message already sent.
 */
import type { AppContext } from '../shared/context.js';
import { listStrandedMessages } from '../shared/repositories/outbox-repository.js';

export async function requeueStrandedMessages(ctx: Pick<AppContext, 'database' | 'queues'>, olderThanSeconds = 60): Promise<number> {
  const stranded = await listStrandedMessages(ctx.database.db, olderThanSeconds, 500);
  for (const m of stranded) {
    if (m.channel === 'sms') {
      await ctx.queues.enqueue('notify', { channel: 'sms', messageKey: m.messageKey, to: m.recipient, body: m.textBody, kind: m.kind });
    } else {
      await ctx.queues.enqueue('notify', {
        channel: 'email',
        messageKey: m.messageKey,
        to: m.recipient,
        subject: m.subject,
        text: m.textBody,
        ...(m.htmlBody ? { html: m.htmlBody } : {}),
        kind: m.kind,
      });
    }
  }
  return stranded.length;
}
