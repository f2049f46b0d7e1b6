/**
 * Plans, Stripe Checkout, cancellation and webhooks. The database mirrors each subscription so
 * status and entitlements are answered without calling Stripe; webhooks are verified on the raw
 * body, processed exactly once (event ids stored in the same transaction), and always re-read
 * the subscription from Stripe, so events arriving out of order still end in Stripe's state.
 */
import type Stripe from 'stripe';
import type { AppContext } from '../shared/context.js';
import { HttpError, ValidationError, serviceUnavailable } from '../shared/errors.js';
import {
  findCustomerByUser,
  findUserByCustomer,
  hasEverSubscribed,
  listUserSubscriptions,
  markPaymentFailed,
  recordStripeEvent,
  saveCustomer,
  upsertSubscription,
  type SubscriptionRow,
} from '../shared/repositories/subscriptions-repository.js';
import type { DbOrTx } from '../shared/database/db.js';
import { currentSubscription, entitlementsFor, type Entitlements } from './entitlements.js';
import { findPlan, planForStripePrice, PURCHASABLE_PLANS, stripePriceFor, TRIAL_DAYS } from './plans.js';

export const BILLING_NOT_CONFIGURED = 'Billing is not configured.';

export type SubscriptionStatus = {
  is_premium: boolean;
  product_name: string | null;
  cancel_at_period_end: boolean;
  cancel_at: string | null;
  current_period_end: string | null;
  premium_until: string | null;
};

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);
const fromUnix = (s: number | null | undefined) => (typeof s === 'number' ? new Date(s * 1000) : null);

/** The user's entitlements: one function of their mirrored subscriptions. */
export async function entitlementsOf(db: DbOrTx, userId: number, now = new Date()): Promise<Entitlements> {
  return entitlementsFor(currentSubscription(await listUserSubscriptions(db, userId), now), now);
}

export class BillingService {
  constructor(
    private readonly ctx: AppContext,
    private readonly stripe: Stripe | null,
  ) {}

  plans() {
    return PURCHASABLE_PLANS;
  }

  async status(userId: number, now = new Date()): Promise<SubscriptionStatus> {
    const sub = currentSubscription(await listUserSubscriptions(this.ctx.database.db, userId), now);
    const ent = entitlementsFor(sub, now);
    return {
      is_premium: ent.isPremium,
      product_name: ent.isPremium ? (sub?.productName ?? 'Premium') : null,
      cancel_at_period_end: ent.isPremium ? Boolean(sub?.cancelAtPeriodEnd || sub?.cancelAt) : false,
      cancel_at: ent.isPremium ? iso(sub?.cancelAt ?? (sub?.cancelAtPeriodEnd ? sub.currentPeriodEnd : null)) : null,
      current_period_end: ent.isPremium ? iso(sub?.currentPeriodEnd) : null,
      premium_until: iso(ent.premiumUntil),
    };
  }

  private requireStripe(): Stripe {
    if (!this.stripe) throw serviceUnavailable(BILLING_NOT_CONFIGURED);
    return this.stripe;
  }

  /** success_url and cancel_url must point at our own app: no open redirect. */
  private assertOwnUrl(field: string, value: string): void {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw ValidationError.field(field, 'Enter a valid URL.');
    }
    if (url.origin !== new URL(this.ctx.config.APP_URL).origin) {
      throw ValidationError.field(field, 'The URL must point at this application.');
    }
  }

  async createCheckout(
    user: { id: number; email: string },
    input: { plan_id: string; success_url: string; cancel_url: string },
  ): Promise<{ url: string }> {
    const plan = findPlan(input.plan_id);
    if (!plan) throw ValidationError.field('plan_id', 'Unknown plan.');
    this.assertOwnUrl('success_url', input.success_url);
    this.assertOwnUrl('cancel_url', input.cancel_url);
    const stripe = this.requireStripe();
    const price = stripePriceFor(this.ctx.config, plan.id);
    if (!price) throw serviceUnavailable(BILLING_NOT_CONFIGURED);

    const db = this.ctx.database.db;
    if ((await entitlementsOf(db, user.id)).isPremium) {
      throw ValidationError.nonField('You already have an active subscription.');
    }
    let customer = await findCustomerByUser(db, user.id);
    if (!customer) {
      const created = await stripe.customers.create(
        { email: user.email, metadata: { user_id: String(user.id) } },
        { idempotencyKey: `deal-radar-customer-${user.id}` },
      );
      customer = await saveCustomer(db, user.id, created.id);
    }
    // The landing page promises a 14-day trial with no card: the first subscription gets it.
    const trial = !(await hasEverSubscribed(db, user.id));
    const session = await stripe.checkout.sessions.create({
      mode: 'subscription',
      customer,
      client_reference_id: String(user.id),
      line_items: [{ price, quantity: 1 }],
      success_url: input.success_url,
      cancel_url: input.cancel_url,
      payment_method_collection: trial ? 'if_required' : 'always',
      metadata: { user_id: String(user.id), plan_id: plan.id },
      subscription_data: {
        metadata: { user_id: String(user.id), plan_id: plan.id },
        ...(trial
          ? { trial_period_days: TRIAL_DAYS, trial_settings: { end_behavior: { missing_payment_method: 'cancel' } } }
          : {}),
      },
    });
    if (!session.url) throw new HttpError(502, 'The payment provider returned no checkout URL.');
    return { url: session.url };
  }

  async cancel(userId: number): Promise<{ detail: string }> {
    const stripe = this.requireStripe();
    const db = this.ctx.database.db;
    const sub = currentSubscription(await listUserSubscriptions(db, userId));
    if (!sub || !entitlementsFor(sub).isPremium) throw ValidationError.nonField('You have no active subscription to cancel.');
    const updated = await stripe.subscriptions.update(sub.stripeSubscriptionId, {
      cancel_at_period_end: true,
      expand: ['items.data.price.product'],
    });
    await this.mirror(db, updated, userId);
    return { detail: 'Your subscription will cancel at period end.' };
  }

  /** Verifies, de-duplicates and applies one webhook delivery. */
  async handleWebhook(rawBody: Buffer, signature: string | undefined): Promise<{ received: true; duplicate: boolean }> {
    const stripe = this.requireStripe();
    const secret = this.ctx.config.STRIPE_WEBHOOK_SECRET;
    if (!secret) throw serviceUnavailable(BILLING_NOT_CONFIGURED);
    let event: Stripe.Event;
    try {
      event = stripe.webhooks.constructEvent(rawBody, signature ?? '', secret);
    } catch {
      throw ValidationError.nonField('Invalid webhook signature.');
    }
    let duplicate = false;
    await this.ctx.database.db.transaction(async (tx) => {
      if (!(await recordStripeEvent(tx, event.id, event.type))) {
        duplicate = true;
        return;
      }
      await this.apply(tx, stripe, event);
    });
    this.ctx.logger.info({ eventId: event.id, type: event.type, duplicate }, 'stripe webhook');
    return { received: true, duplicate };
  }

  private async apply(tx: DbOrTx, stripe: Stripe, event: Stripe.Event): Promise<void> {
    switch (event.type) {
      case 'checkout.session.completed': {
        const session = event.data.object;
        const customerId = typeof session.customer === 'string' ? session.customer : session.customer?.id;
        const userId = Number(session.client_reference_id ?? session.metadata?.user_id);
        if (customerId && Number.isInteger(userId) && userId > 0) await saveCustomer(tx, userId, customerId);
        const subId = typeof session.subscription === 'string' ? session.subscription : session.subscription?.id;
        if (subId) await this.refresh(tx, stripe, subId);
        return;
      }
      case 'customer.subscription.created':
      case 'customer.subscription.updated':
      case 'customer.subscription.deleted':
      case 'customer.subscription.paused':
      case 'customer.subscription.resumed':
        await this.refresh(tx, stripe, event.data.object.id);
        return;
      case 'invoice.payment_failed': {
        const invoice = event.data.object as Stripe.Invoice & { subscription?: string | { id: string } | null };
        const fromParent = invoice.parent?.subscription_details?.subscription;
        const legacy = invoice.subscription;
        const subId = typeof fromParent === 'string' ? fromParent : (fromParent?.id ?? (typeof legacy === 'string' ? legacy : legacy?.id));
        if (!subId) return;
        await this.refresh(tx, stripe, subId);
        await markPaymentFailed(tx, subId, new Date(event.created * 1000));
        return;
      }
      default:
        return; // acknowledged, nothing to mirror
    }
  }

  /** Events are notifications: the subscription's current state is read from Stripe. */
  private async refresh(tx: DbOrTx, stripe: Stripe, subscriptionId: string): Promise<void> {
    const sub = await stripe.subscriptions.retrieve(subscriptionId, { expand: ['items.data.price.product'] });
    await this.mirror(tx, sub);
  }

  private async mirror(db: DbOrTx, sub: Stripe.Subscription, knownUserId?: number): Promise<void> {
    const customerId = typeof sub.customer === 'string' ? sub.customer : sub.customer.id;
    const metaUser = Number(sub.metadata?.user_id);
    const userId = knownUserId ?? (await findUserByCustomer(db, customerId)) ?? (Number.isInteger(metaUser) && metaUser > 0 ? metaUser : undefined);
    if (!userId) {
      this.ctx.logger.warn({ subscription: sub.id, customer: customerId }, 'subscription of an unknown customer ignored');
      return;
    }
    const item = sub.items?.data?.[0];
    const price = item?.price;
    const product = price && typeof price.product === 'object' && price.product && 'name' in price.product ? price.product.name : null;
    const plan = planForStripePrice(this.ctx.config, price?.id) ?? findPlan(String(sub.metadata?.plan_id ?? ''));
    const legacyPeriodEnd = (sub as unknown as { current_period_end?: number }).current_period_end;
    await upsertSubscription(db, {
      userId,
      stripeSubscriptionId: sub.id,
      stripeCustomerId: customerId,
      status: sub.status,
      planId: plan?.id ?? null,
      priceId: price?.id ?? null,
      productName: product ?? plan?.name ?? null,
      cancelAtPeriodEnd: sub.cancel_at_period_end,
      cancelAt: fromUnix(sub.cancel_at),
      canceledAt: fromUnix(sub.canceled_at),
      currentPeriodEnd: fromUnix(item?.current_period_end ?? legacyPeriodEnd),
      trialEnd: fromUnix(sub.trial_end),
    });
  }
}

export type { SubscriptionRow };
