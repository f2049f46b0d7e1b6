import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Check } from 'lucide-react';
import { useEffect, useState } from 'react';
import { toast } from 'sonner';
import { Badge } from '../../../components/ui/badge.js';
import { Button } from '../../../components/ui/button.js';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card.js';
import { apiRequest } from '../../../lib/api-client.js';
import { useAuth } from '../../../lib/auth.js';
import type { SubscriptionStatus } from '../../../lib/entitlements.js';
import { accountApi, planPriceText } from '../api/account-api.js';

/** After checkout=success the status is polled this often until the webhook made the user premium… */
export const CHECKOUT_POLL_MS = 2000;
/** …or this long has passed; then the page says the payment is being confirmed. */
export const CHECKOUT_POLL_LIMIT_MS = 60_000;

const PRO_FEATURES = ['Unlimited alerts', 'Email and SMS notifications', 'Price history charts', 'Priority support', 'Advanced filters', 'Unlimited "What is it worth" estimates'];

const dateFormat = new Intl.DateTimeFormat('en-US', { year: 'numeric', month: 'long', day: 'numeric' });
function formatDate(value: string | null | undefined): string | null {
  if (!value) return null;
  const t = Date.parse(value);
  return Number.isFinite(t) ? dateFormat.format(new Date(t)) : null;
}

/** The date line of the Current Subscription card (spec §2). */
export function subscriptionDateLine(status: SubscriptionStatus | undefined): string {
  if (status?.cancel_at_period_end) {
    const date = formatDate(status.cancel_at ?? status.current_period_end ?? status.premium_until);
    if (date) return `Cancels at ${date}`;
  }
  if (status?.is_premium) {
    const date = formatDate(status.current_period_end ?? status.premium_until);
    if (date) return `Renews ${date}`;
  }
  return 'No active plan';
}

export function BillingTab({ checkout }: { checkout: 'success' | 'cancelled' | null }) {
  const { user } = useAuth();
  const queryClient = useQueryClient();
  const [pollStartedAt] = useState(() => Date.now());
  const [pollExpired, setPollExpired] = useState(false);
  const waitingForWebhook = checkout === 'success';

  const status = useQuery({
    queryKey: ['subscriptions', 'status', user?.id ?? null],
    queryFn: () => apiRequest<SubscriptionStatus>('/api/subscriptions/status/'),
    enabled: user !== null,
    retry: false,
    refetchInterval: (query) =>
      waitingForWebhook && query.state.data?.is_premium !== true && Date.now() - pollStartedAt < CHECKOUT_POLL_LIMIT_MS ? CHECKOUT_POLL_MS : false,
  });
  const plans = useQuery({ queryKey: ['subscriptions', 'plans'], queryFn: accountApi.plans, retry: false, staleTime: 5 * 60_000 });

  // Plans or status load failures are only logged (spec §8).
  useEffect(() => {
    if (status.error) console.error('Subscription status failed to load', status.error);
  }, [status.error]);
  useEffect(() => {
    if (plans.error) console.error('Plans failed to load', plans.error);
  }, [plans.error]);

  useEffect(() => {
    if (!waitingForWebhook) return;
    const timer = setTimeout(() => setPollExpired(true), CHECKOUT_POLL_LIMIT_MS);
    return () => clearTimeout(timer);
  }, [waitingForWebhook]);

  const [redirecting, setRedirecting] = useState(false);
  const [cancelling, setCancelling] = useState(false);

  const data = status.data;
  const isPremium = data?.is_premium === true;
  const cancelPending = data?.cancel_at_period_end === true;
  const firstPlan = plans.data?.plans?.[0];

  async function upgrade() {
    if (!firstPlan) return;
    setRedirecting(true);
    try {
      const { url } = await accountApi.createCheckout(firstPlan.id, window.location.origin);
      window.location.assign(url);
    } catch (error) {
      toast.error('Checkout Failed', { description: (error instanceof Error && error.message) || 'Unable to initiate checkout' });
      setRedirecting(false);
    }
  }

  async function cancel() {
    setCancelling(true);
    try {
      const answer = await accountApi.cancelSubscription();
      toast.success('Cancellation Scheduled', { description: answer?.detail || 'Your subscription will cancel at period end.' });
      await queryClient.invalidateQueries({ queryKey: ['subscriptions', 'status'] });
    } catch (error) {
      toast.error('Cancel Failed', { description: (error instanceof Error && error.message) || 'Unable to cancel subscription' });
    } finally {
      setCancelling(false);
    }
  }

  const features = firstPlan?.features?.length ? firstPlan.features : PRO_FEATURES;

  return (
    <div className="space-y-6">
      {waitingForWebhook && (
        <div role="status" className="rounded-lg border border-brand-100 bg-brand-50 p-4 text-sm text-brand-800">
          {isPremium
            ? 'Thank you! Your Premium subscription is active.'
            : pollExpired
              ? 'Your payment is being confirmed. Your plan will update shortly; you can refresh this page in a few minutes.'
              : 'Thank you! Confirming your payment...'}
        </div>
      )}
      {checkout === 'cancelled' && (
        <div role="status" className="rounded-lg border border-slate-200 bg-slate-100 p-4 text-sm text-slate-800">
          Checkout was cancelled. You have not been charged.
        </div>
      )}
      <Card>
        <CardHeader>
          <CardTitle>Current Subscription</CardTitle>
        </CardHeader>
        <CardContent>
          <div className="flex flex-wrap items-start justify-between gap-4">
            <div className="space-y-2">
              <Badge tone={isPremium ? 'success' : 'neutral'}>{data?.product_name || (isPremium ? 'Premium' : 'Free')}</Badge>
              <p className="text-sm text-slate-700">{status.isPending ? 'Loading subscription...' : subscriptionDateLine(data)}</p>
            </div>
            <div className="text-right">
              <p className="font-semibold text-slate-900">{isPremium ? 'Active' : 'Free'}</p>
              <p className="text-sm text-slate-700">{isPremium ? 'Premium' : 'no subscription'}</p>
            </div>
          </div>
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle>Premium Features</CardTitle>
        </CardHeader>
        <CardContent className="space-y-4">
          <ul className="grid gap-2 sm:grid-cols-2">
            {features.map((f) => (
              <li key={f} className="flex items-center gap-2 text-sm text-slate-800">
                <Check className="h-4 w-4 text-green-700" aria-hidden />
                {f}
              </li>
            ))}
          </ul>
          <div className="flex flex-wrap gap-2">
            {!isPremium && !cancelPending && firstPlan && (
              <Button onClick={() => void upgrade()} disabled={redirecting}>
                {redirecting ? 'Redirecting...' : `Upgrade to Premium - ${planPriceText(firstPlan)}`}
              </Button>
            )}
            <Button variant="destructive" onClick={() => void cancel()} disabled={cancelPending || !isPremium || cancelling}>
              {cancelPending ? 'Cancellation Scheduled' : 'Cancel Subscription'}
            </Button>
          </div>
        </CardContent>
      </Card>
    </div>
  );
}
