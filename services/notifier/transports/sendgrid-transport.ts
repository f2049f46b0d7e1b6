/**
 * SendGrid through its official SDK. `baseUrl` (SENDGRID_BASE_URL) points the SDK elsewhere, for
 * tests against a local fake. 5xx, 429 and network failures are retryable; any other 4xx means
 * the request itself is wrong (bad key, bad address) and retrying cannot help.
 */
import { Client } from '@sendgrid/client';
import { MailService } from '@sendgrid/mail';
import { NonRetryableError, RetryableError } from '../../shared/errors.js';
import { parseMailbox, type EmailTransport, type OutgoingEmail, type SendResult } from './email-transport.js';

type SendGridError = Error & { code?: number; response?: { body?: unknown; headers?: Record<string, string> } };

export function createSendGridTransport(opts: { apiKey: string; baseUrl?: string; timeoutMs?: number }): EmailTransport {
  const client = new Client();
  client.setApiKey(opts.apiKey); // sets the default host: override after it
  if (opts.baseUrl) client.setDefaultRequest('baseUrl', opts.baseUrl.endsWith('/') ? opts.baseUrl : `${opts.baseUrl}/`);
  const mail = new MailService();
  mail.setClient(client);
  mail.setTimeout(opts.timeoutMs ?? 15_000);

  return {
    name: 'sendgrid',
    async send(message: OutgoingEmail): Promise<SendResult> {
      try {
        const [response] = await mail.send({
          from: parseMailbox(message.from),
          to: message.to,
          subject: message.subject,
          text: message.text,
          ...(message.html ? { html: message.html } : {}),
          ...(message.headers ? { headers: message.headers } : {}),
          // Lets SendGrid events be traced back to our message log.
          customArgs: { message_key: message.messageKey },
        });
        const id = response.headers['x-message-id'];
        return { providerMessageId: typeof id === 'string' ? id : null };
      } catch (err) {
        throw classifySendGridError(err as SendGridError);
      }
    },
    async close() {},
  };
}

export function classifySendGridError(err: SendGridError): Error {
  const status = typeof err.code === 'number' ? err.code : undefined;
  if (status === undefined) return new RetryableError(`SendGrid unreachable: ${err.message}`);
  const detail = describeBody(err.response?.body);
  const message = `SendGrid answered ${status}${detail ? `: ${detail}` : ''}`;
  if (status === 429 || status >= 500) {
    const retryAfter = Number(err.response?.headers?.['retry-after']);
    return new RetryableError(message, Number.isFinite(retryAfter) ? retryAfter * 1000 : undefined);
  }
  return new NonRetryableError(message);
}

function describeBody(body: unknown): string {
  const errors = (body as { errors?: Array<{ message?: string; field?: string | null }> } | undefined)?.errors;
  if (Array.isArray(errors)) return errors.map((e) => (e.field ? `${e.field}: ${e.message}` : String(e.message))).join('; ').slice(0, 500);
  return typeof body === 'string' ? body.slice(0, 500) : '';
}
