/**
 * Billing over the real API and database, with the real `stripe` SDK pointed at a local fake
 * Stripe and webhooks signed by the SDK's test helper.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiApp } from '../../services/api/app.js';
import { bearer, registerUser } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import { startFakeStripe, type FakeStripe } from '../support/fake-stripe.js';

const SUCCESS = 'http://localhost:8080/account?checkout=success';
const CANCEL = 'http://localhost:8080/account?checkout=cancelled';

describe('billing with Stripe configured', () => {
  let app: ApiApp;
  let close: () => Promise<void>;
  let stripe: FakeStripe;

  beforeAll(async () => {
    stripe = await startFakeStripe();
    ({ app, close } = await createTestApp({
      env: {
        STRIPE_SECRET_KEY: stripe.secretKey,
        STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
        STRIPE_PRICE_PRO_MONTHLY: 'price_pro_monthly',
        STRIPE_API_BASE_URL: stripe.url,
      },
    }));
  });
  afterAll(async () => {
    await close();
    await stripe.close();
  });

  const status = async (token: string) => (await app.inject({ method: 'GET', url: '/api/subscriptions/status/', headers: bearer(token) })).json();
  const deliver = (d: { payload: string; signature: string }) =>
    app.inject({ method: 'POST', url: '/api/subscriptions/webhook/', payload: d.payload, headers: { 'content-type': 'application/json', 'stripe-signature': d.signature } });

  async function checkout(token: string): Promise<string> {
    const res = await app.inject({ method: 'POST', url: '/api/subscriptions/create-checkout/', headers: bearer(token), payload: { plan_id: 'pro-monthly', success_url: SUCCESS, cancel_url: CANCEL } });
    expect(res.statusCode).toBe(200);
    const url = res.json().url as string;
    expect(url.startsWith(`${stripe.url}/checkout/`)).toBe(true);
    return url.split('/').pop()!;
  }

  it('runs the whole cycle: free → checkout → webhook → premium → cancel → scheduled → period end → free', async () => {
    const user = await registerUser(app);
    expect(await status(user.access_token)).toEqual({
      is_premium: false, product_name: null, cancel_at_period_end: false, cancel_at: null, current_period_end: null, premium_until: null,
    });

    const sessionId = await checkout(user.access_token);
    const session = stripe.sessions.get(sessionId)!;
    // One Stripe customer for the user, a 14-day trial with no card required, our own return URLs.
    const customer = stripe.customers.get(session.customer as string)!;
    expect(customer.email).toBe(user.user.email);
    expect((session.subscription_data as Record<string, unknown>).trial_period_days).toBe('14');
    expect(session.payment_method_collection).toBe('if_required');
    expect(session).toMatchObject({ success_url: SUCCESS, cancel_url: CANCEL, client_reference_id: String(user.user.id) });
    // Not premium until the webhook says so.
    expect((await status(user.access_token)).is_premium).toBe(false);

    stripe.completeCheckout(sessionId);
    const completed = stripe.signedEvent('checkout.session.completed', stripe.sessions.get(sessionId)!);
    expect((await deliver(completed)).statusCode).toBe(200);
    const premium = await status(user.access_token);
    expect(premium).toMatchObject({ is_premium: true, product_name: 'Deal Radar Pro', cancel_at_period_end: false, cancel_at: null });
    const trialEnd = Date.parse(premium.premium_until);
    expect(trialEnd - Date.now()).toBeGreaterThan(13.9 * 86_400_000);
    expect(trialEnd - Date.now()).toBeLessThan(14.1 * 86_400_000);

    // A second checkout while premium is refused.
    const again = await app.inject({ method: 'POST', url: '/api/subscriptions/create-checkout/', headers: bearer(user.access_token), payload: { plan_id: 'pro-monthly', success_url: SUCCESS, cancel_url: CANCEL } });
    expect(again.statusCode).toBe(400);

    const cancel = await app.inject({ method: 'POST', url: '/api/subscriptions/cancel/', headers: bearer(user.access_token) });
    expect(cancel.statusCode).toBe(200);
    expect(cancel.json()).toEqual({ detail: 'Your subscription will cancel at period end.' });
    const subId = session.subscription as string;
    expect(stripe.subscriptions.get(subId)!.cancel_at_period_end).toBe(true);
    const scheduled = await status(user.access_token);
    expect(scheduled).toMatchObject({ is_premium: true, cancel_at_period_end: true });
    expect(scheduled.cancel_at).toBe(scheduled.current_period_end);

    // The period ends: Stripe cancels the subscription and says so.
    const ended = stripe.patchSubscription(subId, { status: 'canceled', ended_at: Math.floor(Date.now() / 1000) });
    expect((await deliver(stripe.signedEvent('customer.subscription.deleted', ended))).statusCode).toBe(200);
    expect(await status(user.access_token)).toMatchObject({ is_premium: false, product_name: null, premium_until: null });
  });

  it('processes a replayed webhook once', async () => {
    const user = await registerUser(app);
    const sessionId = await checkout(user.access_token);
    stripe.completeCheckout(sessionId);
    const event = stripe.signedEvent('checkout.session.completed', stripe.sessions.get(sessionId)!);
    expect((await deliver(event)).json()).toEqual({ received: true, duplicate: false });
    const before = await status(user.access_token);
    const reads = stripe.requests.filter((r) => r.method === 'GET').length;

    // Stripe changes the subscription meanwhile; a replay of the old delivery must not re-apply anything.
    stripe.patchSubscription(stripe.sessions.get(sessionId)!.subscription as string, { status: 'canceled' });
    const replay = await deliver(event);
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toEqual({ received: true, duplicate: true });
    expect(stripe.requests.filter((r) => r.method === 'GET').length).toBe(reads);
    expect(await status(user.access_token)).toEqual(before);
  });

  it('refuses a bad signature with 400 and changes nothing', async () => {
    const user = await registerUser(app);
    const sessionId = await checkout(user.access_token);
    stripe.completeCheckout(sessionId);
    const event = stripe.signedEvent('checkout.session.completed', stripe.sessions.get(sessionId)!);
    const forged = await deliver({ payload: event.payload, signature: event.signature.replace(/v1=[0-9a-f]{6}/, 'v1=000000') });
    expect(forged.statusCode).toBe(400);
    expect(forged.json().detail).toMatch(/signature/i);
    const unsigned = await app.inject({ method: 'POST', url: '/api/subscriptions/webhook/', payload: event.payload, headers: { 'content-type': 'application/json' } });
    expect(unsigned.statusCode).toBe(400);
    expect((await status(user.access_token)).is_premium).toBe(false);
  });

  it('ends in the right state when events arrive out of order', async () => {
    const user = await registerUser(app);
    const sessionId = await checkout(user.access_token);
    stripe.completeCheckout(sessionId);
    const subId = stripe.sessions.get(sessionId)!.subscription as string;
    const createdEvent = stripe.signedEvent('customer.subscription.created', stripe.subscriptions.get(subId)!, { created: Math.floor(Date.now() / 1000) - 5 });
    const cancelled = stripe.patchSubscription(subId, { cancel_at_period_end: true, cancel_at: (stripe.subscriptions.get(subId)!.items as { data: { current_period_end: number }[] }).data[0]!.current_period_end });
    const updatedEvent = stripe.signedEvent('customer.subscription.updated', cancelled);
    // The newer event first, then the older one.
    expect((await deliver(updatedEvent)).statusCode).toBe(200);
    expect((await deliver(createdEvent)).statusCode).toBe(200);
    expect(await status(user.access_token)).toMatchObject({ is_premium: true, cancel_at_period_end: true });
  });

  it('records a failed invoice payment and follows Stripe on the subscription state', async () => {
    const user = await registerUser(app);
    const sessionId = await checkout(user.access_token);
    stripe.completeCheckout(sessionId);
    const subId = stripe.sessions.get(sessionId)!.subscription as string;
    await deliver(stripe.signedEvent('checkout.session.completed', stripe.sessions.get(sessionId)!));
    stripe.patchSubscription(subId, { status: 'unpaid' });
    const invoice = { id: 'in_1', object: 'invoice', parent: { type: 'subscription_details', subscription_details: { subscription: subId } } };
    expect((await deliver(stripe.signedEvent('invoice.payment_failed', invoice))).statusCode).toBe(200);
    expect((await status(user.access_token)).is_premium).toBe(false);
  });

  it('only redirects back to our own app', async () => {
    const user = await registerUser(app);
    const res = await app.inject({
      method: 'POST',
      url: '/api/subscriptions/create-checkout/',
      headers: bearer(user.access_token),
      payload: { plan_id: 'pro-monthly', success_url: 'https://evil.example/phish', cancel_url: CANCEL },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().success_url).toHaveLength(1);
    const unknown = await app.inject({ method: 'POST', url: '/api/subscriptions/create-checkout/', headers: bearer(user.access_token), payload: { plan_id: 'enterprise', success_url: SUCCESS, cancel_url: CANCEL } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().plan_id).toHaveLength(1);
  });

  it('requires sign-in for checkout, status and cancel', async () => {
    for (const [method, url] of [['POST', '/api/subscriptions/create-checkout/'], ['GET', '/api/subscriptions/status/'], ['POST', '/api/subscriptions/cancel/']] as const) {
      expect((await app.inject({ method, url, payload: method === 'POST' ? {} : undefined })).statusCode).toBe(401);
    }
  });
});

describe('billing without Stripe keys', () => {
  let app: ApiApp;
  let close: () => Promise<void>;
  beforeAll(async () => {
    ({ app, close } = await createTestApp());
  });
  afterAll(async () => close());

  it('lists the plans, pro first', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/subscriptions/plans/' });
    expect(res.statusCode).toBe(200);
    const { plans } = res.json();
    expect(plans[0]).toMatchObject({ id: 'pro-monthly', price: 49, billing_cycle: 'month' });
    expect(plans.map((p: { id: string }) => p.id)).not.toContain('basic');
  });

  it('answers checkout and cancel with 503 "Billing is not configured."', async () => {
    const user = await registerUser(app);
    const checkout = await app.inject({ method: 'POST', url: '/api/subscriptions/create-checkout/', headers: bearer(user.access_token), payload: { plan_id: 'pro-monthly', success_url: SUCCESS, cancel_url: CANCEL } });
    expect(checkout.statusCode).toBe(503);
    expect(checkout.json()).toEqual({ detail: 'Billing is not configured.' });
    const cancel = await app.inject({ method: 'POST', url: '/api/subscriptions/cancel/', headers: bearer(user.access_token) });
    expect(cancel.statusCode).toBe(503);
    const status = await app.inject({ method: 'GET', url: '/api/subscriptions/status/', headers: bearer(user.access_token) });
    expect(status.json().is_premium).toBe(false);
  });
});
