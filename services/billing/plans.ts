/**
 * The plan catalogue (spec §6). Basic is the free tier, not something to buy; Enterprise is sold
 * by contact. The purchasable plans are Pro, monthly first; each maps to a Stripe price id
 * configured in the environment.
 */
import type { Config } from '../shared/config.js';

export const PLAN_FEATURES = {
  basic: ['Up to 5 alerts', 'Basic email notifications', 'Standard support', '10 "What is it worth" estimates a day'],
  pro: ['Unlimited alerts', 'Email and SMS notifications', 'Price history charts', 'Priority support', 'Advanced filters', 'Unlimited "What is it worth" estimates'],
  enterprise: ['Everything in Pro', 'API access', 'Custom integrations', 'Dedicated account manager', 'SLA guarantee'],
} as const;

export type Plan = {
  id: string;
  name: string;
  price: number;
  billing_cycle: 'month' | 'year';
  features: string[];
};

export const PURCHASABLE_PLANS: readonly Plan[] = [
  { id: 'pro-monthly', name: 'Pro', price: 49, billing_cycle: 'month', features: [...PLAN_FEATURES.pro] },
  { id: 'pro-yearly', name: 'Pro (yearly)', price: 490, billing_cycle: 'year', features: [...PLAN_FEATURES.pro] },
];

export const TRIAL_DAYS = 14;

export function findPlan(planId: string): Plan | undefined {
  return PURCHASABLE_PLANS.find((p) => p.id === planId);
}

/** The Stripe price configured for a plan, or undefined when it is not configured. */
export function stripePriceFor(config: Config, planId: string): string | undefined {
  if (planId === 'pro-monthly') return config.STRIPE_PRICE_PRO_MONTHLY;
  if (planId === 'pro-yearly') return config.STRIPE_PRICE_PRO_YEARLY;
  return undefined;
}

export function planForStripePrice(config: Config, priceId: string | null | undefined): Plan | undefined {
  if (!priceId) return undefined;
  return PURCHASABLE_PLANS.find((p) => stripePriceFor(config, p.id) === priceId);
}
