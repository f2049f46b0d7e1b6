/**
 * What the user's plan allows. Premium comes from the subscription status (spec §6 is_premium);
 * until the billing API answers, everyone is on the free plan.
 */
import { useQuery } from '@tanstack/react-query';
import { apiRequest } from './api-client.js';
import { useAuth } from './auth.js';

export type SubscriptionStatus = {
  is_premium: boolean;
  product_name?: string | null;
  cancel_at_period_end?: boolean;
  cancel_at?: string | null;
  current_period_end?: string | null;
  premium_until?: string | null;
};

export function useSubscriptionStatus() {
  const { user } = useAuth();
  return useQuery({
    queryKey: ['subscriptions', 'status', user?.id ?? null],
    queryFn: () => apiRequest<SubscriptionStatus>('/api/subscriptions/status/', { redirectOnAuthFailure: false }),
    enabled: user !== null,
    retry: false,
    staleTime: 60_000,
  });
}

/** Premium features (price history charts) need is_premium; a missing or failing status means free. */
export function useIsPremium(): boolean {
  const { data } = useSubscriptionStatus();
  return data?.is_premium === true;
}
