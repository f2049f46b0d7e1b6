import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router-dom';
import { Badge } from '../../../components/ui/badge.js';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card.js';
import { Spinner } from '../../../components/ui/spinner.js';
import { deliveryText, notificationPriceText } from '../alert-options.js';
import { alertsApi, type AlertNotification } from '../api/alerts-api.js';

const dateTime = new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', year: 'numeric', hour: 'numeric', minute: '2-digit' });

function statusTone(status: string) {
  if (status === 'sent') return 'success' as const;
  if (status === 'failed' || status === 'skipped') return 'danger' as const;
  return 'neutral' as const;
}

function NotificationRow({ n }: { n: AlertNotification }) {
  return (
    <li className="flex flex-wrap items-center justify-between gap-2 py-3">
      <div className="min-w-0">
        <Link to={`/deal/${encodeURIComponent(n.listing.slug)}`} className="font-medium break-words text-brand-700 underline-offset-2 hover:underline">
          {n.listing.title}
        </Link>
        <p className="text-sm text-slate-700">
          {n.event === 'price_drop' ? 'Price drop' : 'New match'} for your {n.equipment_type} alert · {notificationPriceText(n.price)} ·{' '}
          <time dateTime={n.created_at}>{dateTime.format(new Date(n.created_at))}</time>
        </p>
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
