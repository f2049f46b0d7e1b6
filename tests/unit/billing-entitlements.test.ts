import { describe, expect, it } from 'vitest';
import { currentSubscription, entitlementsFor, FREE_ALERT_LIMIT, FREE_WATCH_LIMIT, isPremium, type SubscriptionSnapshot } from '../../services/billing/entitlements.js';
import { PURCHASABLE_PLANS, findPlan } from '../../services/billing/plans.js';

const NOW = new Date('2026-11-21T12:00:00Z');
const days = (n: number) => new Date(NOW.getTime() + n * 86_400_000);
const sub = (patch: Partial<SubscriptionSnapshot>): SubscriptionSnapshot => ({
  status: 'active',
  productName: 'Deal Radar Pro',
  cancelAtPeriodEnd: false,
  cancelAt: null,
  currentPeriodEnd: days(20),
  trialEnd: null,
  ...patch,
});

describe('entitlements', () => {
  it('gives the free plan without a subscription', () => {
    expect(entitlementsFor(null, NOW)).toEqual({
      plan: 'free', isPremium: false, maxAlerts: FREE_ALERT_LIMIT, sms: false, advancedFilters: false, priceHistory: false, maxWatchedLots: FREE_WATCH_LIMIT, priceRiseNotices: false, premiumUntil: null,
    });
  });

  it('gives premium while active or trialing, with unlimited alerts, SMS, filters and charts', () => {
    for (const status of ['active', 'trialing', 'past_due']) {
      const e = entitlementsFor(sub({ status, trialEnd: status === 'trialing' ? days(14) : null }), NOW);
      expect(e).toMatchObject({ plan: 'pro', isPremium: true, maxAlerts: null, sms: true, advancedFilters: true, priceHistory: true, maxWatchedLots: null, priceRiseNotices: true });
    }
    expect(entitlementsFor(sub({ status: 'trialing', trialEnd: days(14), currentPeriodEnd: days(14) }), NOW).premiumUntil).toEqual(days(14));
  });

  it('keeps premium after a cancellation until the period ends, then drops it', () => {
    const cancelled = sub({ cancelAtPeriodEnd: true, cancelAt: days(3), currentPeriodEnd: days(3) });
    expect(isPremium(cancelled, NOW)).toBe(true);
    expect(entitlementsFor(cancelled, NOW).premiumUntil).toEqual(days(3));
    expect(isPremium(cancelled, days(3))).toBe(false);
    expect(isPremium(cancelled, days(4))).toBe(false);
  });

  it('is free when Stripe says the subscription is over', () => {
    for (const status of ['canceled', 'unpaid', 'incomplete', 'incomplete_expired', 'paused']) {
      expect(isPremium(sub({ status }), NOW)).toBe(false);
    }
  });

  it('decides by the most favourable of several subscriptions', () => {
    const old = sub({ status: 'canceled', currentPeriodEnd: days(-30) });
    const live = sub({ status: 'active', currentPeriodEnd: days(10) });
    expect(currentSubscription([old, live], NOW)).toBe(live);
    expect(currentSubscription([old], NOW)).toBe(old);
    expect(currentSubscription([], NOW)).toBeNull();
  });
});

describe('plans', () => {
  it('lists the purchasable plans, pro first, with whole-dollar prices and the spec features', () => {
    expect(PURCHASABLE_PLANS[0]).toMatchObject({ id: 'pro-monthly', billing_cycle: 'month' });
    for (const p of PURCHASABLE_PLANS) {
      expect(Number.isInteger(p.price)).toBe(true);
      expect(p.features).toContain('Unlimited alerts');
      expect(p.features).toContain('Price history charts');
    }
    expect(findPlan('basic')).toBeUndefined();
    expect(findPlan('enterprise')).toBeUndefined();
  });
});
