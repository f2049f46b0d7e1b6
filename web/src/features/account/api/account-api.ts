/** The account page's calls (spec §7): profile, password change, plans, checkout, cancel. */
import { apiRequest } from '../../../lib/api-client.js';
import type { User } from '../../../lib/auth.js';

export type ProfileInput = { first_name: string; last_name: string; email: string; phone: string; city: string; address: string; zip: string };

export type Plan = { id: string; name?: string; price: number; billing_cycle: string; features?: string[] };

export const accountApi = {
  updateProfile: (input: ProfileInput) => apiRequest<User>('/api/auth/profile/', { method: 'PUT', body: input }),
  changePassword: (input: { oldPassword: string; newPassword: string; confirmPassword: string }) =>
    apiRequest<{ detail?: string }>('/api/auth/password/change/', {
      method: 'POST',
      body: { old_password: input.oldPassword, new_password1: input.newPassword, new_password2: input.confirmPassword },
    }),
  plans: () => apiRequest<{ plans: Plan[] }>('/api/subscriptions/plans/', { auth: false }),
  createCheckout: (planId: string, origin: string) =>
    apiRequest<{ url: string }>('/api/subscriptions/create-checkout/', {
      method: 'POST',
      body: { plan_id: planId, success_url: `${origin}/account?checkout=success`, cancel_url: `${origin}/account?checkout=cancelled` },
    }),
  cancelSubscription: () => apiRequest<{ detail?: string }>('/api/subscriptions/cancel/', { method: 'POST' }),
};

/** '$49/month' for a plan (whole US dollars). */
export function planPriceText(plan: Pick<Plan, 'price' | 'billing_cycle'>): string {
  const amount = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 }).format(plan.price);
  return `${amount}/${plan.billing_cycle}`;
}
