import type { Config } from '../../shared/config.js';
import type { EmailTransport } from './email-transport.js';
import { createOutboxTransport } from './outbox-transport.js';
import { createSendGridTransport } from './sendgrid-transport.js';
import { createSmtpTransport } from './smtp-transport.js';

/** SendGrid when its key is set, else SMTP when its URL is set, else the local outbox. */
export function createEmailTransport(config: Pick<Config, 'SENDGRID_API_KEY' | 'SENDGRID_BASE_URL' | 'SMTP_URL' | 'NOTIFY_SEND_TIMEOUT_MS'>): EmailTransport {
  const timeoutMs = config.NOTIFY_SEND_TIMEOUT_MS;
  if (config.SENDGRID_API_KEY) return createSendGridTransport({ apiKey: config.SENDGRID_API_KEY, baseUrl: config.SENDGRID_BASE_URL, timeoutMs });
  if (config.SMTP_URL) return createSmtpTransport({ url: config.SMTP_URL, timeoutMs });
  return createOutboxTransport();
}

export type { EmailTransport, OutgoingEmail } from './email-transport.js';
