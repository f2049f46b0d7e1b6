import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Bell, Plus, Trash2 } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { toast } from 'sonner';
import { Badge } from '../../../components/ui/badge.js';
import { Button } from '../../../components/ui/button.js';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card.js';
import { Spinner } from '../../../components/ui/spinner.js';
import { BILLING_PATH } from '../../../config/constants.js';
import { useSubscriptionStatus } from '../../../lib/entitlements.js';
import { priceRangeText } from '../../../lib/format-price.js';
import { cn } from '../../../lib/cn.js';
import { track } from '../../analytics/analytics.js';
import { conditionText, deliveryText, locationText } from '../alert-options.js';
import { alertsApi, type Alert, type AlertInput } from '../api/alerts-api.js';
import { AlertForm } from './alert-form.js';
import { NotificationsList } from './notifications-list.js';

/** The free plan's alert limit (PRODUCT.md / spec §6 basic: up to 5 alerts). */
export const FREE_ALERT_LIMIT = 5;

const ALERTS_KEY = ['alerts'] as const;

function ActiveSwitch({ alert, onToggle, busy }: { alert: Alert; onToggle: () => void; busy: boolean }) {
  return (
    <div className="flex items-center gap-2">
      <button
        type="button"
        role="switch"
        aria-checked={alert.is_active}
        aria-label={`Alert for ${alert.equipment_type} active`}
        disabled={busy}
        onClick={onToggle}
        className={cn('relative inline-flex h-6 w-11 shrink-0 items-center rounded-full border-2 border-transparent transition-colors disabled:opacity-60', alert.is_active ? 'bg-brand-600' : 'bg-slate-400')}
      >
        <span className={cn('inline-block h-5 w-5 rounded-full bg-[#fff] shadow transition-transform', alert.is_active ? 'translate-x-5' : 'translate-x-0')} aria-hidden />
      </button>
      <span className="text-sm text-slate-800">{alert.is_active ? 'Active' : 'Inactive'}</span>
    </div>
  );
}

export function AlertsPage() {
  const queryClient = useQueryClient();
  const [showForm, setShowForm] = useState(false);
  const alerts = useQuery({ queryKey: ALERTS_KEY, queryFn: alertsApi.list });
  const status = useSubscriptionStatus();
  const isPremium = status.data?.is_premium === true;

  const refresh = () => queryClient.invalidateQueries({ queryKey: ['alerts'] });

  const toggle = useMutation({
    mutationFn: (alert: Alert) => alertsApi.setActive(alert.id, !alert.is_active),
    onSuccess: (updated) => {
      queryClient.setQueryData<Alert[]>(ALERTS_KEY, (list) => list?.map((a) => (a.id === updated.id ? updated : a)));
      const word = updated.is_active ? 'enabled' : 'disabled';
      toast.success(updated.is_active ? 'Alert Enabled' : 'Alert Disabled', { description: `Your alert for ${updated.equipment_type} has been ${word}.` });
      track('Alert Toggled', { equipment_type: updated.equipment_type, is_active: updated.is_active });
    },
    onError: (error) => toast.error('Error', { description: error.message || 'Failed to update alert' }),
  });

  const remove = useMutation({
    mutationFn: async (alert: Alert) => {
      await alertsApi.remove(alert.id);
      return alert;
    },
    onSuccess: (removed) => {
      queryClient.setQueryData<Alert[]>(ALERTS_KEY, (list) => list?.filter((a) => a.id !== removed.id));
      toast.success('Alert Deleted', { description: `Your alert for ${removed.equipment_type} has been deleted.` });
      track('Alert Deleted', { equipment_type: removed.equipment_type });
      void refresh();
    },
    onError: (error) => toast.error('Error', { description: error.message || 'Failed to delete alert' }),
  });

  async function create(input: AlertInput): Promise<boolean> {
    try {
      const created = await alertsApi.create(input);
      queryClient.setQueryData<Alert[]>(ALERTS_KEY, (list) => [created, ...(list ?? [])]);
      toast.success('Alert Created', { description: "You'll be notified when equipment matching your criteria becomes available." });
      track('Alert Created', { equipment_type: created.equipment_type, delivery_method: created.delivery_method });
      setShowForm(false);
      return true;
    } catch (error) {
      // Plan limits come back as 403 {detail} and are shown as they are.
      toast.error('Error', { description: (error instanceof Error && error.message) || 'Failed to create alert' });
      return false;
    }
  }

  const items = alerts.data ?? [];

  return (
    <div className="space-y-6">
      <title>Price Alerts — Deal Radar</title>
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold text-slate-900 sm:text-3xl">Price Alerts</h1>
          <p className="mt-1 text-slate-700">Get notified when equipment matching your criteria becomes available</p>
        </div>
        <Button onClick={() => setShowForm((s) => !s)} aria-expanded={showForm}>
          <Plus className="h-4 w-4" aria-hidden />
          Add Alert
        </Button>
      </div>

      <p className="rounded-lg border border-slate-200 bg-white p-3 text-sm text-slate-800" data-testid="plan-limit">
        {isPremium ? (
          <>Premium plan: unlimited alerts, delivered by email or SMS.</>
        ) : (
          <>
            Free plan: up to {FREE_ALERT_LIMIT} alerts ({Math.min(items.length, FREE_ALERT_LIMIT)} of {FREE_ALERT_LIMIT} used), by email. SMS alerts are a Premium feature.{' '}
            <Link to={BILLING_PATH} className="font-medium text-brand-700 underline underline-offset-2">
              Upgrade to Premium
            </Link>
          </>
        )}
      </p>

      {showForm && <AlertForm smsAllowed={isPremium} onCreate={create} onCancel={() => setShowForm(false)} />}

      <Card>
        <CardHeader>
          <CardTitle>Your Alerts ({items.length})</CardTitle>
        </CardHeader>
        <CardContent>
          {alerts.isPending ? (
            <Spinner label="Loading alerts..." showLabel />
          ) : alerts.isError ? (
            <div role="alert" className="space-y-3 text-center">
              <p className="font-medium text-slate-900">Error loading alerts</p>
              <p className="text-sm text-slate-700">{alerts.error.message}</p>
              <Button variant="secondary" onClick={() => void alerts.refetch()}>
                Try Again
              </Button>
            </div>
          ) : items.length === 0 ? (
            <div className="py-8 text-center">
              <Bell className="mx-auto h-10 w-10 text-slate-500" aria-hidden />
              <p className="mt-3 font-medium text-slate-900">No alerts yet</p>
              <p className="mt-1 text-sm text-slate-700">Create your first alert to get notified about great deals</p>
            </div>
          ) : (
            <div className="overflow-x-auto">
              <table className="w-full min-w-[720px] text-left text-sm">
                <thead>
                  <tr className="border-b border-slate-200 text-slate-700">
                    {['Equipment Type', 'Price Range', 'Location', 'Condition', 'Delivery', 'Status', 'Actions'].map((h) => (
                      <th key={h} scope="col" className="px-3 py-2 font-medium">
                        {h}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {items.map((alert) => (
                    <tr key={alert.id} className="border-b border-slate-100 last:border-0">
                      <th scope="row" className="px-3 py-3 font-medium text-slate-900">
                        {alert.equipment_type}
                      </th>
                      <td className="px-3 py-3 text-slate-800">{priceRangeText(alert.price_min, alert.price_max)}</td>
                      <td className="px-3 py-3 text-slate-800">{locationText(alert.state)}</td>
                      <td className="px-3 py-3 text-slate-800">{conditionText(alert.condition)}</td>
                      <td className="px-3 py-3">
                        <Badge tone="outline">{deliveryText(alert.delivery_method)}</Badge>
                      </td>
                      <td className="px-3 py-3">
                        <ActiveSwitch alert={alert} busy={toggle.isPending && toggle.variables?.id === alert.id} onToggle={() => toggle.mutate(alert)} />
                      </td>
                      <td className="px-3 py-3">
                        <Button
                          variant="ghost"
                          size="icon"
                          aria-label={`Delete alert for ${alert.equipment_type}`}
                          disabled={remove.isPending && remove.variables?.id === alert.id}
                          onClick={() => remove.mutate(alert)}
                          className="text-red-700 hover:bg-red-50"
                        >
                          <Trash2 className="h-4 w-4" aria-hidden />
                        </Button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </CardContent>
      </Card>

      <NotificationsList />
    </div>
  );
}
