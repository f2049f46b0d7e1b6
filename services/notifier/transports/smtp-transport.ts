/**
 * Any SMTP server through nodemailer (SMTP_URL, e.g. smtp://user:pass@host:587). Permanent
 * rejections (5xx replies) are not retried; temporary ones (4xx) and connection failures are.
 */
import nodemailer from 'nodemailer';
import { NonRetryableError, RetryableError } from '../../shared/errors.js';
import type { EmailTransport, OutgoingEmail, SendResult } from './email-transport.js';

export function createSmtpTransport(opts: { url: string }): EmailTransport {
  const transporter = nodemailer.createTransport(opts.url);
  return {
    name: 'smtp',
    async send(message: OutgoingEmail): Promise<SendResult> {
      try {
        const info = await transporter.sendMail({
          from: message.from,
          to: message.to,
          subject: message.subject,
          text: message.text,
          ...(message.html ? { html: message.html } : {}),
          headers: { 'X-Deal-Radar-Message-Key': message.messageKey },
        });
        return { providerMessageId: info.messageId ?? null };
      } catch (err) {
        const e = err as Error & { responseCode?: number };
        if (typeof e.responseCode === 'number' && e.responseCode >= 500) {
          return Promise.reject(new NonRetryableError(`SMTP server refused the message (${e.responseCode}): ${e.message}`));
        }
        return Promise.reject(new RetryableError(`SMTP delivery failed: ${e.message}`));
      }
    },
    async close() {
      transporter.close();
    },
  };
}
