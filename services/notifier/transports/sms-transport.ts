/**
 * SMS through Twilio's official SDK when TWILIO_* are set, else the local outbox (the message
 * stays in the message log, nothing leaves the machine). TWILIO_API_BASE_URL routes the SDK's
 * requests to another host (tests: a local fake) through our own `httpClient`; edge and region
 * stay unset so the SDK does not rewrite the host. 5xx, 429 and network failures are retryable;
 * any other 4xx (bad number, opted-out recipient, bad credentials) is not.
 */
import twilio from 'twilio';
import type { Config } from '../../shared/config.js';
import { NonRetryableError, RetryableError } from '../../shared/errors.js';

export type OutgoingSms = { messageKey: string; to: string; body: string };

export type SmsTransport = {
  readonly name: 'twilio' | 'outbox';
  send(message: OutgoingSms): Promise<{ providerMessageId: string | null }>;
  close(): Promise<void>;
};

type TwilioRequest = {
  method: string;
  uri: string;
  username?: string;
  password?: string;
  headers?: Record<string, string>;
  params?: Record<string, unknown>;
  data?: Record<string, unknown>;
  timeout?: number;
};

function formEncode(fields: Record<string, unknown> | undefined): URLSearchParams {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(fields ?? {})) {
    if (value === undefined || value === null) continue;
    for (const v of Array.isArray(value) ? value : [value]) form.append(key, String(v));
  }
  return form;
}

/**
 * An SDK http client that sends every request to `baseUrl` instead of Twilio's host (same path
 * and query), with the SDK's own method, auth, headers and form body.
 */
export class RoutedTwilioHttpClient {
  constructor(
    private readonly baseUrl: string,
    private readonly timeoutMs = 15_000,
  ) {}

  async request(opts: TwilioRequest): Promise<{ statusCode: number; body: string; headers: Record<string, string> }> {
    const original = new URL(opts.uri);
    const target = new URL(`${original.pathname}${original.search}`, this.baseUrl);
    for (const [key, value] of formEncode(opts.params)) target.searchParams.append(key, value);
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.username !== undefined) {
      headers.Authorization = `Basic ${Buffer.from(`${opts.username}:${opts.password ?? ''}`).toString('base64')}`;
    }
    const method = opts.method.toUpperCase();
    const response = await fetch(target, {
      method,
      headers,
      body: method === 'GET' || method === 'DELETE' ? undefined : formEncode(opts.data).toString(),
      signal: AbortSignal.timeout(opts.timeout ?? this.timeoutMs),
    });
    return { statusCode: response.status, body: await response.text(), headers: Object.fromEntries(response.headers) };
  }
}

type TwilioError = Error & { status?: number; code?: number; moreInfo?: string };

export function classifyTwilioError(err: TwilioError): Error {
  const status = typeof err.status === 'number' ? err.status : undefined;
  if (status === undefined) return new RetryableError(`Twilio unreachable: ${err.message}`);
  const message = `Twilio answered ${status}${err.code ? ` (error ${err.code})` : ''}: ${err.message}`.slice(0, 1000);
  return status === 429 || status >= 500 ? new RetryableError(message) : new NonRetryableError(message);
}

export function createTwilioTransport(opts: {
  accountSid: string;
  authToken: string;
  from: string;
  baseUrl?: string;
  timeoutMs?: number;
  /** Where Twilio reports the message's fate (delivered, undelivered, failed): our status callback. */
  statusCallback?: string;
}): SmsTransport {
  // Bounded (the SDK's default is 30 s): a send must end well within the claim timeout.
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const client = twilio(opts.accountSid, opts.authToken, {
    ...(opts.baseUrl ? { httpClient: new RoutedTwilioHttpClient(opts.baseUrl, timeoutMs) as never } : {}),
    autoRetry: false,
    timeout: timeoutMs,
  });
  return {
    name: 'twilio',
    async send(message) {
      try {
        const sent = await client.messages.create({
          to: message.to,
          from: opts.from,
          body: message.body,
          ...(opts.statusCallback ? { statusCallback: opts.statusCallback } : {}),
        });
        return { providerMessageId: sent.sid ?? null };
      } catch (err) {
        throw classifyTwilioError(err as TwilioError);
      }
    },
    async close() {},
  };
}

/** No Twilio credentials: the message log (already holding the message) is the delivery. */
export function createSmsOutboxTransport(): SmsTransport {
  return {
    name: 'outbox',
    async send() {
      return { providerMessageId: null };
    },
    async close() {},
  };
}

/** The API route Twilio's status callback posts to (services/api/routes/alert-deliverability.ts). */
export const SMS_STATUS_CALLBACK_PATH = '/api/alerts/sms/status/';

export function createSmsTransport(
  config: Pick<Config, 'TWILIO_ACCOUNT_SID' | 'TWILIO_AUTH_TOKEN' | 'TWILIO_FROM_NUMBER' | 'TWILIO_API_BASE_URL' | 'NOTIFY_SEND_TIMEOUT_MS'> & Partial<Pick<Config, 'APP_URL'>>,
): SmsTransport {
  if (config.TWILIO_ACCOUNT_SID && config.TWILIO_AUTH_TOKEN && config.TWILIO_FROM_NUMBER) {
    return createTwilioTransport({
      accountSid: config.TWILIO_ACCOUNT_SID,
      authToken: config.TWILIO_AUTH_TOKEN,
      from: config.TWILIO_FROM_NUMBER,
      baseUrl: config.TWILIO_API_BASE_URL,
      timeoutMs: config.NOTIFY_SEND_TIMEOUT_MS,
      ...(config.APP_URL ? { statusCallback: `${config.APP_URL}${SMS_STATUS_CALLBACK_PATH}` } : {}),
    });
  }
  return createSmsOutboxTransport();
}
