/**
 * A local stand-in for Twilio's Messages API on 127.0.0.1, for the real `twilio` SDK whose
 * requests our httpClient routes here (TWILIO_API_BASE_URL). It checks basic auth, records
 * every request with its form fields, and answers from a script of statuses (default 201).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const FAKE_TWILIO_SID = 'AC11111111111111111111111111111111';
export const FAKE_TWILIO_TOKEN = 'fake-twilio-auth-token';
export const FAKE_TWILIO_FROM = '+15005550006';

export type RecordedSms = { method: string; path: string; headers: IncomingHttpHeaders; form: Record<string, string> };

export type FakeTwilio = {
  baseUrl: string;
  requests: RecordedSms[];
  /** The next answers, in order (then 201 again): e.g. `[500, 503]` fails twice then accepts. */
  script(statuses: number[]): void;
  env(): Record<string, string>;
  close(): Promise<void>;
};

export async function startFakeTwilio(): Promise<FakeTwilio> {
  const requests: RecordedSms[] = [];
  let queue: number[] = [];
  let counter = 0;
  const expectedAuth = `Basic ${Buffer.from(`${FAKE_TWILIO_SID}:${FAKE_TWILIO_TOKEN}`).toString('base64')}`;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, form });
      const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method !== 'POST' || req.url !== `/2010-04-01/Accounts/${FAKE_TWILIO_SID}/Messages.json`) {
        json(404, { code: 20404, message: 'The requested resource was not found', more_info: 'https://www.twilio.com/docs/errors/20404', status: 404 });
        return;
      }
      if (req.headers.authorization !== expectedAuth) {
        json(401, { code: 20003, message: 'Authenticate', more_info: 'https://www.twilio.com/docs/errors/20003', status: 401 });
        return;
      }
      const status = queue.shift() ?? 201;
      if (status === 201) {
        const sid = `SM${String(++counter).padStart(32, '0')}`;
        json(201, { sid, account_sid: FAKE_TWILIO_SID, to: form.To, from: form.From, body: form.Body, status: 'queued', num_segments: '1', date_created: new Date().toUTCString() });
      } else if (status >= 400 && status < 500) {
        json(status, { code: 21211, message: `The 'To' number ${form.To} is not a valid phone number.`, more_info: 'https://www.twilio.com/docs/errors/21211', status });
      } else {
        json(status, { code: 20500, message: 'Internal Server Error', more_info: 'https://www.twilio.com/docs/errors/20500', status });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}/`;
  return {
    baseUrl,
    requests,
    script(statuses) {
      queue = [...statuses];
    },
    env: () => ({ TWILIO_ACCOUNT_SID: FAKE_TWILIO_SID, TWILIO_AUTH_TOKEN: FAKE_TWILIO_TOKEN, TWILIO_FROM_NUMBER: FAKE_TWILIO_FROM, TWILIO_API_BASE_URL: baseUrl }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
