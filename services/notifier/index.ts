import type { ServiceStarter } from '../shared/service.js';
import { createNotifyHandler } from './deliver-message.js';
import { createEmailTransport } from './transports/index.js';

/**
 * The notifier stage: consumes the `notify` queue and delivers e-mail through the configured
 * transport (SendGrid, SMTP or the local outbox), recording every message. SMS jobs are
 * recorded and failed as not supported until the SMS capability (alerts) adds its transport.
 */
export const startNotifier: ServiceStarter = async (ctx) => {
  const transport = createEmailTransport(ctx.config);
  const worker = ctx.queues.worker(
    'notify',
    createNotifyHandler({ db: ctx.database.db, transport, mailFrom: ctx.config.MAIL_FROM, logger: ctx.logger.child({ service: 'notifier' }) }),
    { concurrency: 4 },
  );
  ctx.logger.info({ service: 'notifier', transport: transport.name }, 'notify worker started');
  return {
    name: 'notifier',
    stop: async () => {
      await worker.close();
      await transport.close();
    },
  };
};
