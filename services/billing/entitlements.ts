/**
 * What a user may do, as one function of their subscription mirror. Used by alerts (limits, SMS,
 * advanced filters), the watchlist (limit, SMS, price-rise notices), the deal detail (price
 * history charts) and the status route.
 */

export type SubscriptionSnapshot = {
  status: string;
  productName: string | null;
  cancelAtPeriodEnd: boolean;
  cancelAt: Date | null;
  currentPeriodEnd: Date | null;
  trialEnd: Date | null;
};

export type Entitlements = {
  plan: 'free' | 'pro';
  isPremium: boolean;
  /** null = unlimited. */
  maxAlerts: number | null;
  sms: boolean;
  advancedFilters: boolean;
  priceHistory: boolean;
  /** Watched lots (issue 31); null = unlimited. */
  maxWatchedLots: number | null;
  /** A watchlist notice when a lot's price passes the buyer's maximum. */
  priceRiseNotices: boolean;
  /** When premium access ends if nothing renews it. */
  premiumUntil: Date | null;
};

export const FREE_ALERT_LIMIT = 5;
export const FREE_WATCH_LIMIT = 20;

/**
 * Statuses in which Stripe still considers the subscription alive. past_due keeps access while
 * Stripe retries the payment (its dunning window); unpaid, canceled and incomplete do not.
 */
const LIVE_STATUSES = new Set(['trialing', 'active', 'past_due']);

export function isPremium(sub: SubscriptionSnapshot | null | undefined, now: Date = new Date()): boolean {
  if (!sub || !LIVE_STATUSES.has(sub.status)) return false;
  // A cancellation scheduled at period end keeps premium until that moment, even if the
  // `deleted` webhook is late.
  const end = sub.cancelAt ?? (sub.cancelAtPeriodEnd ? sub.currentPeriodEnd : null);
  if (end && end.getTime() <= now.getTime()) return false;
  return true;
}

export function entitlementsFor(sub: SubscriptionSnapshot | null | undefined, now: Date = new Date()): Entitlements {
  const premium = isPremium(sub, now);
  if (!premium || !sub) {
    return { plan: 'free', isPremium: false, maxAlerts: FREE_ALERT_LIMIT, sms: false, advancedFilters: false, priceHistory: false, maxWatchedLots: FREE_WATCH_LIMIT, priceRiseNotices: false, premiumUntil: null };
  }
  const periodEnd = sub.status === 'trialing' ? (sub.trialEnd ?? sub.currentPeriodEnd) : sub.currentPeriodEnd;
  return {
    plan: 'pro',
    isPremium: true,
    maxAlerts: null,
    sms: true,
    advancedFilters: true,
    priceHistory: true,
    maxWatchedLots: null,
    priceRiseNotices: true,
    premiumUntil: sub.cancelAt ?? periodEnd,
  };
}

/** Of a user's subscriptions, the one that decides their entitlements (the most favourable). */
export function currentSubscription<T extends SubscriptionSnapshot>(subs: T[], now: Date = new Date()): T | null {
  const live = subs.filter((s) => isPremium(s, now));
  const pool = live.length > 0 ? live : subs;
  return pool.reduce<T | null>((best, s) => {
    if (!best) return s;
    return (s.currentPeriodEnd?.getTime() ?? 0) > (best.currentPeriodEnd?.getTime() ?? 0) ? s : best;
  }, null);
}
