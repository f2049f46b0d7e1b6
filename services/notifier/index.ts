import type { ServiceStarter } from '../shared/service.js';
import { createNotifyHandler } from './deliver-message.js';
import { createEmailTransport } from './transports/index.js';
import { createSmsTransport } from './transports/sms-transport.js';

/**
 * The notifier stage: consumes the `notify` queue and delivers e-mail through the configured
 * transport (SendGrid, SMTP or the local outbox) and SMS through Twilio (or the outbox without
 * Twilio credentials), recording every message.
 */
export const startNotifier: ServiceStarter = async (ctx) => {
  const transport = createEmailTransport(ctx.config);
  const sms = createSmsTransport(ctx.config);
  const worker = ctx.queues.worker(
    'notify',
    createNotifyHandler({ db: ctx.database.db, transport, sms, mailFrom: ctx.config.MAIL_FROM, logger: ctx.logger.child({ service: 'notifier' }) }),
    { concurrency: 4 },
  );
  ctx.logger.info({ service: 'notifier', transport: transport.name, sms: sms.name }, 'notify worker started');
  return {
    name: 'notifier',
    stop: async () => {
      await worker.close();
      await transport.close();
      await sms.close();
    },
  };
};
