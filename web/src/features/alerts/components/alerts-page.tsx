import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Bell, Plus, Trash2 } from 'lucide-react';
import { useState, type ReactNode } from 'react';
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
import { track } from '../../../lib/analytics.js';
import { alertLocationLines, conditionText, dealFilterText, deliveryText, keywordsText } from '../alert-options.js';
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

const ALERT_COLUMNS = ['Equipment Type', 'Price Range', 'Location', 'Condition', 'Delivery', 'Status', 'Actions'];

/** A table cell; on narrow screens it shows its column's name above the value (hidden from AT: the header cell names it). */
function Cell({ label, children }: { label: string; children: ReactNode }) {
  return (
    <td role="cell" className="text-slate-800 md:px-3 md:py-3">
      <span aria-hidden className="block text-xs font-medium text-slate-600 md:hidden">
        {label}
      </span>
      {children}
    </td>
  );
}

/** The state (or 'Any') and, below it, the distance from the alert's ZIP when it has one. */
function LocationCell({ alert }: { alert: Alert }) {
  const { main, detail } = alertLocationLines(alert);
  return (
    <Cell label="Location">
      {main}
      {detail && <span className="mt-1 block text-xs text-slate-700">{detail}</span>}
    </Cell>
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

      {showForm && <AlertForm smsAllowed={isPremium} premium={isPremium} onCreate={create} onCancel={() => setShowForm(false)} />}

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
            // Below the md breakpoint each row becomes a labelled block, so the switch and the
            // delete button stay on screen on a phone instead of behind a horizontal scroll. The
            // explicit roles keep the table's semantics when CSS changes its display.
            <table role="table" className="w-full text-left text-sm">
              <thead role="rowgroup" className="sr-only md:not-sr-only md:table-header-group">
                <tr role="row" className="border-b border-slate-200 text-slate-700">
                  {ALERT_COLUMNS.map((h) => (
                    <th key={h} role="columnheader" scope="col" className="px-3 py-2 font-medium">
                      {h}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody role="rowgroup" className="block space-y-3 md:table-row-group md:space-y-0">
                {items.map((alert) => (
                  <tr
                    key={alert.id}
                    role="row"
                    className="grid grid-cols-2 gap-x-4 gap-y-2 rounded-lg border border-slate-200 p-3 md:table-row md:rounded-none md:border-0 md:border-b md:border-slate-100 md:p-0 md:last:border-0"
                  >
                    <th role="rowheader" scope="row" className="col-span-2 font-medium text-slate-900 md:px-3 md:py-3">
                      {alert.equipment_type}
                    </th>
                    <Cell label="Price Range">{priceRangeText(alert.price_min, alert.price_max)}</Cell>
                    <LocationCell alert={alert} />
                    <Cell label="Condition">{conditionText(alert.condition)}</Cell>
                    <Cell label="Delivery">
                      <Badge tone="outline">{deliveryText(alert.delivery_method)}</Badge>
                      <span className="mt-1 block text-xs text-slate-700">{dealFilterText(alert)}</span>
                      {alert.keywords && <span className="mt-1 block break-words text-xs text-slate-700">{keywordsText(alert.keywords)}</span>}
                    </Cell>
                    <Cell label="Status">
                      <ActiveSwitch alert={alert} busy={toggle.isPending && toggle.variables?.id === alert.id} onToggle={() => toggle.mutate(alert)} />
                    </Cell>
                    <Cell label="Actions">
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
                    </Cell>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </CardContent>
      </Card>

      <NotificationsList />
    </div>
  );
}
