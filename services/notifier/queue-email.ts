/**
 * The e-mail capability's producer side, for every feature that sends mail (accounts now, alerts
 * later): records the message as queued in the message log, then adds the `notify` job. The
 * `messageKey` makes it idempotent: queueing the same message twice sends it once.
 */
import type { AppContext } from '../shared/context.js';
import { recordQueuedMessage } from '../shared/repositories/outbox-repository.js';

export type EmailMessage = {
  /** Unique per message, e.g. `password-reset:42:<token digest>`. */
  messageKey: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** What the message is about (`password_reset`, `alert`…), for the outbox listing. */
  kind: string;
};

export async function queueEmail(ctx: Pick<AppContext, 'database' | 'queues'>, message: EmailMessage): Promise<void> {
  await recordQueuedMessage(ctx.database.db, {
    messageKey: message.messageKey,
    channel: 'email',
    kind: message.kind,
    recipient: message.to,
    subject: message.subject,
    textBody: message.text,
    htmlBody: message.html ?? null,
  });
  await ctx.queues.enqueue('notify', {
    channel: 'email',
    messageKey: message.messageKey,
    to: message.to,
    subject: message.subject,
    text: message.text,
    ...(message.html ? { html: message.html } : {}),
    kind: message.kind,
  });
}
