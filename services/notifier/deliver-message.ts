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
} from '../shared/repositories/outbox-repository.js';
import type { EmailTransport } from './transports/index.js';

/** A claim older than this belongs to a worker that died mid-send: the message may be retried. */
const STALE_CLAIM_SECONDS = 10 * 60;

export const SMS_NOT_SUPPORTED = 'SMS delivery is not available yet: the message is recorded, not sent';

export type DeliveryOutcome = { status: 'sent' | 'already-sent'; transport: string };

export function createNotifyHandler(deps: { db: Db; transport: EmailTransport; mailFrom: string; logger: Logger }): JobHandler<'notify'> {
  const { db, transport, logger } = deps;
  return async (payload: Payload<'notify'>, job: Job): Promise<DeliveryOutcome> => {
    if (payload.channel === 'sms') {
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

    await recordQueuedMessage(db, {
      messageKey: payload.messageKey,
      channel: 'email',
      kind: payload.kind,
      recipient: payload.to,
      subject: payload.subject,
      textBody: payload.text,
      htmlBody: payload.html ?? null,
    });
    const message = await claimMessage(db, payload.messageKey, transport.name, STALE_CLAIM_SECONDS);
    if (!message) {
      const current = await findMessageByKey(db, payload.messageKey);
      if (current?.status === 'sent') return { status: 'already-sent', transport: current.transport ?? transport.name };
      if (current?.status === 'failed') throw new NonRetryableError(`message ${payload.messageKey} already failed: ${current.lastError ?? ''}`);
      throw new RetryableError(`message ${payload.messageKey} is being sent by another worker`);
    }

    try {
      const result = await transport.send({
        messageKey: message.messageKey,
        from: deps.mailFrom,
        to: message.recipient,
        subject: message.subject,
        text: message.textBody,
        html: message.htmlBody,
      });
      await markMessageSent(db, message.messageKey, result.providerMessageId);
      logger.info({ messageKey: message.messageKey, transport: transport.name, kind: message.kind }, 'message sent');
      return { status: 'sent', transport: transport.name };
    } catch (err) {
      const attempts = job.opts.attempts ?? 1;
      const final = err instanceof NonRetryableError || job.attemptsMade + 1 >= attempts;
      await markMessageAttemptFailed(db, message.messageKey, errorMessage(err), final);
      logger.warn({ messageKey: message.messageKey, transport: transport.name, attempt: job.attemptsMade + 1, final, err: errorMessage(err) }, 'message not sent');
      throw err;
    }
  };
}
