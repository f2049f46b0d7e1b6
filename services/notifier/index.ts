import type { ServiceStarter } from '../shared/service.js';
import { createNotifyBatchHandler } from './deliver-batch.js';
import { createNotifyHandler } from './deliver-message.js';
import { requeueStrandedMessages } from './requeue-stranded.js';
import { createEmailTransport } from './transports/index.js';
import { createSmsTransport } from './transports/sms-transport.js';

/**
 * The notifier stage: consumes the `notify` queue (one message a job) and the `notify-batch`
 * queue (instant alert messages, a batch a job) and delivers e-mail through the configured
 * transport (SendGrid, SMTP or the local outbox) and SMS through Twilio (or the outbox without
 * Twilio credentials), recording every message.
 */
export const startNotifier: ServiceStarter = async (ctx) => {
  const transport = createEmailTransport(ctx.config);
  const sms = createSmsTransport(ctx.config);
  const logger = ctx.logger.child({ service: 'notifier' });
  const concurrency = ctx.config.NOTIFY_CONCURRENCY;
  const claimTimeoutSeconds = ctx.config.NOTIFY_CLAIM_TIMEOUT_SECONDS;
  const worker = ctx.queues.worker('notify', createNotifyHandler({ db: ctx.database.db, transport, sms, mailFrom: ctx.config.MAIL_FROM, logger, claimTimeoutSeconds }), {
    concurrency,
  });
  // Instant alert messages come in batches (one job per batch of a listing's matches).
  const batchWorker = ctx.queues.worker(
    'notifyBatch',
    createNotifyBatchHandler({ db: ctx.database.db, transport, sms, mailFrom: ctx.config.MAIL_FROM, logger, parallelism: ctx.config.NOTIFY_SEND_PARALLELISM, claimTimeoutSeconds, sendTimeoutMs: ctx.config.NOTIFY_SEND_TIMEOUT_MS }),
    { concurrency },
  );
  ctx.logger.info({ service: 'notifier', transport: transport.name, sms: sms.name }, 'notify worker started');
  // Messages recorded while the queue store was down, and messages whose sender died or gave up
  // while holding their claim (stale after NOTIFY_CLAIM_TIMEOUT_SECONDS), get a job (at start,
  // then every NOTIFY_SWEEP_INTERVAL_MS: no message waits longer than NOTIFY_STRANDED_AFTER_SECONDS
  // queued, or the claim timeout held, plus one interval); job ids are fixed per message and
  // claim, so replicas doing this at once add nothing twice, and a job still has to claim its
  // message to send it.
  const sweep = () =>
    requeueStrandedMessages(ctx, ctx.config.NOTIFY_STRANDED_AFTER_SECONDS)
      .then((count) => count && ctx.logger.warn({ service: 'notifier', count }, 'stranded messages put back on the notify queue'))
      .catch((err: unknown) => ctx.logger.warn({ service: 'notifier', err }, 'requeueing stranded messages failed'));
  void sweep();
  const sweeper = setInterval(() => void sweep(), ctx.config.NOTIFY_SWEEP_INTERVAL_MS);
  sweeper.unref();
  return {
    name: 'notifier',
    stop: async () => {
      clearInterval(sweeper);
      await Promise.all([worker.close(), batchWorker.close()]);
      await transport.close();
      await sms.close();
    },
  };
};
