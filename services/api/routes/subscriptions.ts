/**
 * `/api/subscriptions/*` (spec §7): plans, Stripe Checkout, status from our mirror, cancel at
 * period end, and the Stripe webhook (verified on the raw body). Without Stripe keys, plans are
 * still listed and checkout/cancel answer 503 "Billing is not configured."
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { BillingService } from '../../billing/billing-service.js';
import { createStripe } from '../../billing/stripe-client.js';
import type { AppContext } from '../../shared/context.js';
import { requireUser, signedInUser } from '../plugins/auth.js';

const plan = z.object({
  id: z.string(),
  name: z.string(),
  price: z.number().int(),
  billing_cycle: z.enum(['month', 'year']),
  features: z.array(z.string()),
});

const status = z.object({
  is_premium: z.boolean(),
  product_name: z.string().nullable(),
  cancel_at_period_end: z.boolean(),
  cancel_at: z.string().nullable(),
  current_period_end: z.string().nullable(),
  premium_until: z.string().nullable(),
});

const detail = z.object({ detail: z.string() });
const urlField = z.string().trim().min(1, 'This field is required.').max(2048);

export function subscriptionRoutes(ctx: AppContext): FastifyPluginAsyncZod {
  const billing = new BillingService(ctx, createStripe(ctx.config));
  const auth = requireUser(ctx);
  const security = [{ bearer: [] }];

  return async (app) => {
    app.get(
      '/api/subscriptions/plans/',
      { schema: { tags: ['subscriptions'], summary: 'Purchasable plans, pro first', response: { 200: z.object({ plans: z.array(plan) }) } } },
      async () => ({ plans: [...billing.plans()] }),
    );

    app.post(
      '/api/subscriptions/create-checkout/',
      {
        preValidation: auth,
        schema: {
          tags: ['subscriptions'],
          summary: 'Start a Stripe Checkout session (14-day trial on the first subscription)',
          security,
          body: z.object({ plan_id: z.string().trim().min(1, 'This field is required.').max(64), success_url: urlField, cancel_url: urlField }),
          response: { 200: z.object({ url: z.string() }), 503: detail },
        },
      },
      async (request) => billing.createCheckout(signedInUser(request), request.body),
    );

    app.get(
      '/api/subscriptions/status/',
      { preValidation: auth, schema: { tags: ['subscriptions'], summary: 'Subscription status (from our mirror)', security, response: { 200: status } } },
      async (request) => billing.status(signedInUser(request).id),
    );

    app.post(
      '/api/subscriptions/cancel/',
      { preValidation: auth, schema: { tags: ['subscriptions'], summary: 'Cancel at period end', security, response: { 200: detail, 503: detail } } },
      async (request) => billing.cancel(signedInUser(request).id),
    );

    // The webhook needs the exact bytes Stripe signed: a raw-body parser scoped to this route.
    await app.register(async (scoped) => {
      scoped.removeAllContentTypeParsers();
      scoped.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_req, body, done) => done(null, body));
      scoped.post(
        '/api/subscriptions/webhook/',
        { schema: { tags: ['subscriptions'], summary: 'Stripe webhook (signature verified)', hide: false } },
        async (request) => billing.handleWebhook(request.body as Buffer, request.headers['stripe-signature'] as string | undefined),
      );
    });
  };
}
