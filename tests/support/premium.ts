/**
 * Makes a user premium the way production does: checkout through the API with the real stripe
 * SDK against the local fake, the "customer" completes it, and the signed webhook is delivered.
 * The app must be built with `premiumEnv(stripe)` in its env.
 */
import type { ApiApp } from '../../services/api/app.js';
import { bearer } from './accounts.js';
import type { FakeStripe } from './fake-stripe.js';

export function premiumEnv(stripe: FakeStripe): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
    STRIPE_PRICE_PRO_MONTHLY: 'price_pro_monthly',
    STRIPE_API_BASE_URL: stripe.url,
  };
}

export async function makePremium(app: ApiApp, stripe: FakeStripe, accessToken: string): Promise<void> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/subscriptions/create-checkout/',
    headers: bearer(accessToken),
    payload: { plan_id: 'pro-monthly', success_url: 'http://localhost:8080/account?checkout=success', cancel_url: 'http://localhost:8080/account?checkout=cancelled' },
  });
  if (res.statusCode !== 200) throw new Error(`checkout failed: ${res.statusCode} ${res.body}`);
  const sessionId = (res.json().url as string).split('/').pop()!;
  stripe.completeCheckout(sessionId);
  const event = stripe.signedEvent('checkout.session.completed', stripe.sessions.get(sessionId)!);
  const hook = await app.inject({
    method: 'POST',
    url: '/api/subscriptions/webhook/',
    payload: event.payload,
    headers: { 'content-type': 'application/json', 'stripe-signature': event.signature },
  });
  if (hook.statusCode !== 200) throw new Error(`webhook failed: ${hook.statusCode} ${hook.body}`);
  const status = await app.inject({ method: 'GET', url: '/api/subscriptions/status/', headers: bearer(accessToken) });
  if (status.json().is_premium !== true) throw new Error('user did not become premium');
}
