import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { Badge } from '../../../components/ui/badge.js';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card.js';
import { Spinner } from '../../../components/ui/spinner.js';
import { formatMoney } from '../../../lib/format-price.js';
import { timeLeft } from '../../../lib/time-left.js';
import { deliveryText, notificationPriceText } from '../alert-options.js';
import { alertsApi, type AlertNotification } from '../api/alerts-api.js';

const dateTime = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', hour: 'numeric', minute: '2-digit' });

function statusTone(status: string) {
  if (status === 'sent') return 'success' as const;
  if (status === 'failed' || status === 'skipped') return 'danger' as const;
  return 'neutral' as const;
}

const EVENT_TEXT: Record<AlertNotification['event'], string> = { match: 'New match', price_drop: 'Price drop', level_up: 'Better deal' };

/** The same reasons the message gave: deal level, fair value and range, time left, criteria. */
function reasons(n: AlertNotification): string {
  const parts = [n.deal_level ?? 'Not rated yet'];
  if (n.fair_value !== null) {
    const range = n.value_low !== null && n.value_high !== null ? ` (range ${formatMoney(n.value_low)} - ${formatMoney(n.value_high)})` : '';
    parts.push(`fair value ${formatMoney(n.fair_value)}${range}`);
  }
  const left = timeLeft(n.auction_end_at);
  if (left.text) parts.push(left.state === 'ended' ? 'ended' : `${left.text} left`);
  return parts.join(' · ');
}

function NotificationRow({ n }: { n: AlertNotification }) {
  return (
    <li className="flex flex-wrap items-center justify-between gap-2 py-3">
      <div className="min-w-0">
        <Link to={`/deal/${encodeURIComponent(n.listing.slug)}`} className="font-medium break-words text-brand-700 underline-offset-2 hover:underline">
          {n.listing.title}
        </Link>
        <p className="text-sm text-slate-700">
          {EVENT_TEXT[n.event] ?? 'New match'} for your {n.equipment_type} alert · {notificationPriceText(n.price)} ·{' '}
          <time dateTime={n.created_at}>{dateTime.format(new Date(n.created_at))}</time>
        </p>
        <p className="text-sm text-slate-700">{reasons(n)}</p>
        <p className="text-xs text-slate-600">Why: {n.criteria}</p>
        {n.rolled_into_digest && <p className="text-xs text-slate-600">Daily limit of instant messages reached: in the next daily digest.</p>}
      </div>
      <div className="flex gap-2">
        <Badge tone="outline">{n.frequency === 'daily' ? `${deliveryText(n.channel)} digest` : deliveryText(n.channel)}</Badge>
        <Badge tone={statusTone(n.status)}>{n.status}</Badge>
      </div>
    </li>
  );
}

/** What was matched and sent for the user's alerts, newest first. */
export function NotificationsList() {
  const notifications = useQuery({ queryKey: ['alerts', 'notifications'], queryFn: alertsApi.notifications });
  const items = notifications.data?.items ?? [];
  return (
    <Card>
      <CardHeader>
        <CardTitle>Recent Notifications</CardTitle>
        <p className="text-sm text-slate-700">Deals your alerts found and what was sent</p>
      </CardHeader>
      <CardContent>
        {notifications.isPending ? (
          <Spinner label="Loading notifications..." showLabel />
        ) : notifications.isError ? (
          <p role="alert" className="text-sm text-slate-800">
            Notifications could not be loaded: {notifications.error.message}
          </p>
        ) : items.length === 0 ? (
          <p className="text-sm text-slate-700">No notifications sent yet.</p>
        ) : (
          <ul className="divide-y divide-slate-100">
            {items.map((n) => (
              <NotificationRow key={n.id} n={n} />
            ))}
          </ul>
        )}
      </CardContent>
    </Card>
  );
}
