/**
 * A local stand-in for SendGrid's v3 API (POST /v3/mail/send) on 127.0.0.1, for the real
 * @sendgrid/mail SDK pointed at it with SENDGRID_BASE_URL. It records every request and answers
 * from a script of statuses (default 202 Accepted with an X-Message-Id).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type RecordedMail = { method: string; path: string; headers: IncomingHttpHeaders; body: Record<string, unknown> };

export type FakeSendGrid = {
  baseUrl: string;
  requests: RecordedMail[];
  /** The next answers, in order (then 202 again): e.g. `[500, 503]` fails twice then accepts. */
  script(statuses: number[]): void;
  /** The next answers to mail for this recipient, in order (before the shared script): for batches sent in parallel. */
  scriptFor(recipient: string, statuses: number[]): void;
  close(): Promise<void>;
};

export async function startFakeSendGrid(): Promise<FakeSendGrid> {
  const requests: RecordedMail[] = [];
  let queue: number[] = [];
  const byRecipient = new Map<string, number[]>();
  let counter = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {} });
      if (req.method !== 'POST' || req.url !== '/v3/mail/send') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: 'not found' }] }));
        return;
      }
      if (req.headers.authorization !== 'Bearer SG.test-key') {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: 'The provided authorization grant is invalid, expired, or revoked', field: null }] }));
        return;
      }
      const body = requests[requests.length - 1]!.body as { personalizations?: Array<{ to?: Array<{ email?: string }> }> };
      const recipient = body.personalizations?.[0]?.to?.[0]?.email ?? '';
      const status = byRecipient.get(recipient)?.shift() ?? queue.shift() ?? 202;
      if (status === 202) {
        res.writeHead(202, { 'x-message-id': `fake-${++counter}` }).end();
      } else if (status >= 400 && status < 500) {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: 'Does not contain a valid address.', field: 'personalizations.0.to' }] }));
      } else {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ errors: [{ message: 'Internal server error', field: null }] }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/`,
    requests,
    script(statuses) {
      queue = [...statuses];
    },
    scriptFor(recipient, statuses) {
      byRecipient.set(recipient, [...statuses]);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
