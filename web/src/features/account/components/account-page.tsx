import { useSearchParams } from 'react-router-dom';
import { Spinner } from '../../../components/ui/spinner.js';
import { useAuth } from '../../../lib/auth.js';
import { AccountTabs } from './account-tabs.js';
import { BillingTab } from './billing-tab.js';
import { DeliveryCard } from './delivery-card.js';
import { ProfileTab } from './profile-tab.js';
import { SecurityTab } from './security-tab.js';

const TAB_IDS = ['profile', 'security', 'billing'] as const;
type TabId = (typeof TAB_IDS)[number];

/** Account Settings (spec §2): Profile, Security, Billing & Subscription; `tab` and `checkout` read from the URL. */
export function AccountPage() {
  const { user, isLoading } = useAuth();
  const [params, setParams] = useSearchParams();
  const checkoutParam = params.get('checkout');
  const checkout = checkoutParam === 'success' || checkoutParam === 'cancelled' ? checkoutParam : null;
  const requested = params.get('tab');
  // Coming back from Stripe lands on billing whatever the tab says.
  const tab: TabId = checkout ? 'billing' : TAB_IDS.includes(requested as TabId) ? (requested as TabId) : 'profile';

  if (isLoading) {
    return (
      <div className="flex justify-center py-16">
        <Spinner />
      </div>
    );
  }
  if (!user) {
    return (
      <div className="py-16 text-center">
        <h1 className="text-2xl font-bold text-slate-900">User Not Found</h1>
        <p className="mt-2 text-slate-700">Please log in to view your account.</p>
      </div>
    );
  }

  return (
    <div className="space-y-6">
      <title>Account Settings — Deal Radar</title>
      <div>
        <h1 className="text-2xl font-bold text-slate-900 sm:text-3xl">Account Settings</h1>
        <p className="mt-1 text-slate-700">Manage your profile and subscription</p>
      </div>
      <AccountTabs
        value={tab}
        onChange={(id) => setParams(id === 'profile' ? {} : { tab: id }, { replace: true })}
        tabs={[
          {
            id: 'profile',
            label: 'Profile',
            content: (
              <div className="space-y-6">
                <ProfileTab user={user} />
                <DeliveryCard />
              </div>
            ),
          },
          { id: 'security', label: 'Security', content: <SecurityTab /> },
          { id: 'billing', label: 'Billing & Subscription', content: <BillingTab checkout={checkout} /> },
        ]}
      />
    </div>
  );
}
