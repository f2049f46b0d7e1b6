/**
 * A local stand-in for Stripe's API, enough for the real `stripe` SDK to create customers and
 * Checkout sessions, retrieve and update subscriptions. Tests drive the "Stripe side" (a customer
 * completing checkout, a period ending) and sign webhook events with the SDK's own test helper.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

type Obj = Record<string, unknown>;

/** Stripe's form encoding (`a[b][0][c]=v`) into nested objects. */
export function parseStripeForm(body: string): Obj {
  const out: Obj = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const parts = rawKey.replace(/\]/g, '').split('[');
    let node: Obj = out;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = value;
      else node = (node[part] ??= {}) as Obj;
    });
  }
  return out;
}

const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);

export type FakeStripe = {
  url: string;
  secretKey: string;
  webhookSecret: string;
  requests: { method: string; path: string; body: Obj }[];
  customers: Map<string, Obj>;
  sessions: Map<string, Obj>;
  subscriptions: Map<string, Obj>;
  /** The customer pays (or starts the trial): creates the subscription behind a session. */
  completeCheckout(sessionId: string, opts?: { trialDays?: number; periodDays?: number }): Obj;
  /** Changes a subscription as Stripe would (renewal, period end, payment failure). */
  patchSubscription(subscriptionId: string, patch: Obj): Obj;
  /** A signed webhook delivery for an event about `object`. */
  signedEvent(type: string, object: Obj, opts?: { created?: number }): { payload: string; signature: string; event: Obj };
  close(): Promise<void>;
};

export async function startFakeStripe(): Promise<FakeStripe> {
  const secretKey = 'sk_test_fake';
  const webhookSecret = `whsec_${randomBytes(12).toString('hex')}`;
  const requests: FakeStripe['requests'] = [];
  const customers = new Map<string, Obj>();
  const sessions = new Map<string, Obj>();
  const subscriptions = new Map<string, Obj>();
  const signer = new Stripe(secretKey);
  let baseUrl = '';

  const send = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
    res.end(JSON.stringify(body));
  };
  const notFound = (res: http.ServerResponse, what: string) =>
    send(res, 404, { error: { type: 'invalid_request_error', message: `No such ${what}`, code: 'resource_missing' } });

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const body = req.method === 'GET' ? parseStripeForm(url.search.slice(1)) : parseStripeForm(raw);
      requests.push({ method: req.method ?? '', path: url.pathname, body });
      if (req.headers.authorization !== `Bearer ${secretKey}`) {
        return send(res, 401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
      }
      const path = url.pathname;
      if (req.method === 'POST' && path === '/v1/customers') {
        const customer = { id: id('cus'), object: 'customer', email: body.email ?? null, metadata: body.metadata ?? {} };
        customers.set(customer.id, customer);
        return send(res, 200, customer);
      }
      if (req.method === 'POST' && path === '/v1/checkout/sessions') {
        const sessionId = id('cs_test');
        const session = {
          id: sessionId,
          object: 'checkout.session',
          mode: body.mode,
          customer: body.customer,
          client_reference_id: body.client_reference_id ?? null,
          metadata: body.metadata ?? {},
          subscription: null,
          status: 'open',
          url: `${baseUrl}/checkout/${sessionId}`,
          success_url: body.success_url,
          cancel_url: body.cancel_url,
          line_items: body.line_items,
          subscription_data: body.subscription_data ?? {},
          payment_method_collection: body.payment_method_collection ?? null,
        };
        sessions.set(sessionId, session);
        return send(res, 200, session);
      }
      const subMatch = /^\/v1\/subscriptions\/([^/]+)$/.exec(path);
      if (subMatch) {
        const sub = subscriptions.get(subMatch[1]!);
        if (!sub) return notFound(res, `subscription: '${subMatch[1]}'`);
        if (req.method === 'POST') {
          if (body.cancel_at_period_end !== undefined) {
            sub.cancel_at_period_end = body.cancel_at_period_end === 'true';
            const item = (sub.items as { data: Obj[] }).data[0]!;
            sub.cancel_at = sub.cancel_at_period_end ? item.current_period_end : null;
            sub.canceled_at = sub.cancel_at_period_end ? now() : null;
          }
        }
        return send(res, 200, sub);
      }
      return notFound(res, `route ${req.method} ${path}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: baseUrl,
    secretKey,
    webhookSecret,
    requests,
    customers,
    sessions,
    subscriptions,
    completeCheckout(sessionId, opts = {}) {
      const session = sessions.get(sessionId);
      if (!session) throw new Error(`no session ${sessionId}`);
      const trialDays = opts.trialDays ?? Number((session.subscription_data as Obj).trial_period_days ?? 0);
      const periodEnd = now() + (trialDays || opts.periodDays || 30) * 86400;
      const price = ((session.line_items as Obj)['0'] as Obj).price as string;
      const sub: Obj = {
        id: id('sub'),
        object: 'subscription',
        customer: session.customer,
        status: trialDays ? 'trialing' : 'active',
        cancel_at_period_end: false,
        cancel_at: null,
        canceled_at: null,
        trial_end: trialDays ? periodEnd : null,
        metadata: (session.subscription_data as Obj).metadata ?? {},
        items: {
          object: 'list',
          data: [{ id: id('si'), object: 'subscription_item', current_period_end: periodEnd, price: { id: price, object: 'price', product: { id: 'prod_pro', object: 'product', name: 'Deal Radar Pro' } } }],
        },
      };
      subscriptions.set(sub.id as string, sub);
      session.subscription = sub.id;
      session.status = 'complete';
      return session;
    },
    patchSubscription(subscriptionId, patch) {
      const sub = subscriptions.get(subscriptionId);
      if (!sub) throw new Error(`no subscription ${subscriptionId}`);
      Object.assign(sub, patch);
      return sub;
    },
    signedEvent(type, object, opts = {}) {
      const event = { id: id('evt'), object: 'event', type, created: opts.created ?? now(), livemode: false, api_version: '2026-10-28.endive', data: { object: structuredClone(object) } };
      const payload = JSON.stringify(event);
      const signature = signer.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
      return { payload, signature, event };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
