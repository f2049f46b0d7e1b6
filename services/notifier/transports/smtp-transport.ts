/**
 * Any SMTP server through nodemailer (SMTP_URL, e.g. smtp://user:pass@host:587). Permanent
 * rejections (5xx replies) are not retried; temporary ones (4xx) and connection failures are.
 */
import nodemailer from 'nodemailer';
import { NonRetryableError, RetryableError } from '../../shared/errors.js';
import type { EmailTransport, OutgoingEmail, SendResult } from './email-transport.js';

export function createSmtpTransport(opts: { url: string; timeoutMs?: number }): EmailTransport {
  // nodemailer waits up to 2 min to connect and 10 min on a silent socket by default: bounded
  // here (each phase, and the whole send), because a send must end well within the claim
  // timeout (NOTIFY_CLAIM_TIMEOUT_SECONDS) or a slow one could be claimed and sent again.
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const transporter = nodemailer.createTransport({ url: opts.url, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs });
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
          headers: { ...(message.headers ?? {}), 'X-Deal-Radar-Message-Key': message.messageKey },
          // The whole exchange, not one phase: the connection is closed when it runs out.
          signal: AbortSignal.timeout(timeoutMs),
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
