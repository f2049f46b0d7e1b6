/**
 * The notify job handler. Every message is in the message log before and after each attempt:
 * claimed (so a message already sent is never sent again, however often its job runs), sent
 * through the configured transport, then marked sent, or its error recorded — `queued` again
 * while retries remain, `failed` after the last one or when retrying cannot help.
 */
import type { Job } from 'bullmq';
import type { Db } from '../shared/database/db.js';
import { errorMessage, NonRetryableError, RetryableError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { JobHandler, Payload } from '../shared/queues.js';
import {
  claimMessage,
  findMessageByKey,
  markMessageAttemptFailed,
  markMessageSent,
  recordQueuedMessage,
  type OutboxMessage,
} from '../shared/repositories/outbox-repository.js';
import type { EmailTransport } from './transports/index.js';
import type { SmsTransport } from './transports/sms-transport.js';
import { optedOutPhones, recordAlertDelivery } from '../shared/repositories/alerts-repository.js';
import { suppressedEmails } from '../shared/repositories/suppressions-repository.js';

/**
 * A claim older than this belongs to a sender that is gone (died mid-send, or its job gave up):
 * the message may be claimed again. The default of NOTIFY_CLAIM_TIMEOUT_SECONDS, which the
 * notifier passes in as `claimTimeoutSeconds`.
 */
export const STALE_CLAIM_SECONDS = 10 * 60;

export const SMS_NOT_SUPPORTED = 'SMS delivery is not available yet: the message is recorded, not sent';

export const SMS_OPTED_OUT = 'The recipient replied STOP: no SMS is sent to this number';

export const EMAIL_SUPPRESSED = 'The address bounced or reported spam: no e-mail is sent to it until it is re-enabled';

type Transports = { transport: EmailTransport; sms?: SmsTransport; mailFrom: string };

/** Hands a claimed message to its channel's transport (SMS needs `sms`: callers check first). */
export function sendThroughTransport(deps: Transports, message: OutboxMessage): Promise<{ providerMessageId: string | null }> {
  return message.channel === 'sms'
    ? deps.sms!.send({ messageKey: message.messageKey, to: message.recipient, body: message.textBody })
    : deps.transport.send({
        messageKey: message.messageKey,
        from: deps.mailFrom,
        to: message.recipient,
        subject: message.subject,
        text: message.textBody,
        html: message.htmlBody,
        headers: message.headers,
      });
}

export type DeliveryOutcome = { status: 'sent' | 'already-sent' | 'skipped'; transport: string };

export function createNotifyHandler(deps: {
  db: Db;
  transport: EmailTransport;
  sms?: SmsTransport;
  mailFrom: string;
  logger: Logger;
  /** NOTIFY_CLAIM_TIMEOUT_SECONDS (default STALE_CLAIM_SECONDS). */
  claimTimeoutSeconds?: number;
}): JobHandler<'notify'> {
  const { db, logger } = deps;
  const claimTimeoutSeconds = deps.claimTimeoutSeconds ?? STALE_CLAIM_SECONDS;
  return async (payload: Payload<'notify'>, job: Job): Promise<DeliveryOutcome> => {
    if (payload.channel === 'sms' && !deps.sms) {
      // Recorded so nothing is lost, and failed honestly: SMS arrives with the alerts capability.
      await recordQueuedMessage(db, {
        messageKey: payload.messageKey,
        channel: 'sms',
        kind: payload.kind,
        recipient: payload.to,
        subject: '',
        textBody: payload.body,
      });
      await markMessageAttemptFailed(db, payload.messageKey, SMS_NOT_SUPPORTED, true);
      throw new NonRetryableError(SMS_NOT_SUPPORTED);
    }

    const transport = payload.channel === 'sms' ? deps.sms! : deps.transport;
    await recordQueuedMessage(db, {
      messageKey: payload.messageKey,
      channel: payload.channel,
      kind: payload.kind,
      recipient: payload.to,
      subject: payload.channel === 'email' ? payload.subject : '',
      textBody: payload.channel === 'email' ? payload.text : payload.body,
      htmlBody: payload.channel === 'email' ? (payload.html ?? null) : null,
    });
    // A number that replied STOP gets nothing more, even from jobs queued before the reply.
    if (payload.channel === 'sms' && (await optedOutPhones(db, [payload.to])).has(payload.to)) {
      await markMessageAttemptFailed(db, payload.messageKey, SMS_OPTED_OUT, true);
      await recordAlertDelivery(db, payload.messageKey, { status: 'skipped', error: SMS_OPTED_OUT });
      return { status: 'skipped', transport: transport.name };
    }
    // Alert and watchlist mail to an address that bounced or reported spam is not sent (account
    // mail still is: a password reset must reach a mailbox that was fixed).
    if (payload.channel === 'email' && payload.kind !== undefined && /^(alert|watch)/.test(payload.kind) && (await suppressedEmails(db, [payload.to])).size > 0) {
      await markMessageAttemptFailed(db, payload.messageKey, EMAIL_SUPPRESSED, true);
      await recordAlertDelivery(db, payload.messageKey, { status: 'skipped', error: EMAIL_SUPPRESSED });
      return { status: 'skipped', transport: transport.name };
    }
    const message = await claimMessage(db, payload.messageKey, transport.name, claimTimeoutSeconds);
    if (!message) {
      const current = await findMessageByKey(db, payload.messageKey);
      if (current?.status === 'sent') return { status: 'already-sent', transport: current.transport ?? transport.name };
      if (current?.status === 'failed') throw new NonRetryableError(`message ${payload.messageKey} already failed: ${current.lastError ?? ''}`);
      throw new RetryableError(`message ${payload.messageKey} is being sent by another worker`);
    }

    try {
      const result = await sendThroughTransport(deps, message);
      await markMessageSent(db, message.messageKey, result.providerMessageId);
      await recordAlertDelivery(db, message.messageKey, { status: 'sent' });
      logger.info({ messageKey: message.messageKey, transport: transport.name, kind: message.kind }, 'message sent');
      return { status: 'sent', transport: transport.name };
    } catch (err) {
      const attempts = job.opts.attempts ?? 1;
      const final = err instanceof NonRetryableError || job.attemptsMade + 1 >= attempts;
      // Only while this claim holds: if it went stale and another sender has the message now, its outcome stands.
      const marked = await markMessageAttemptFailed(db, message.messageKey, errorMessage(err), final, message);
      if (final && marked) await recordAlertDelivery(db, message.messageKey, { status: 'failed', error: errorMessage(err) });
      logger.warn({ messageKey: message.messageKey, transport: transport.name, attempt: job.attemptsMade + 1, final, err: errorMessage(err) }, 'message not sent');
      throw err;
    }
  };
}
