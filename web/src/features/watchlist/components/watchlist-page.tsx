import { Eye, Trash2 } from 'lucide-react';
import { Link } from 'react-router-dom';
import { toast } from 'sonner';
import { Button } from '../../../components/ui/button.js';
import { Card, CardContent, CardHeader, CardTitle } from '../../../components/ui/card.js';
import { Spinner } from '../../../components/ui/spinner.js';
import { formatCardPrice, formatMoney } from '../../../lib/format-price.js';
import { AuctionEndBadge } from '../../../components/auction-end-badge.js';
import { DealScoreBadge } from '../../../components/deal-score-badge.js';
import { REMIND_OPTIONS, useWatchlist, useWatchMutations, type WatchItem } from '../../../lib/watchlist-api.js';

function dealLink(item: WatchItem) {
  return `/deal/${encodeURIComponent(item.slug || String(item.listing_id))}`;
}

const sentText = (at: string | null) => (at ? new Date(at).toLocaleString() : null);

function OpenLot({ item }: { item: WatchItem }) {
  const { update, unwatch } = useWatchMutations();
  const reminderSent = sentText(item.notices.reminder_sent_at);
  return (
    <li className="flex flex-col gap-3 rounded-lg border border-slate-200 p-4 sm:flex-row sm:items-center" data-testid="watched-open">
      <div className="min-w-0 flex-1 space-y-1">
        <div className="flex flex-wrap items-center gap-2">
          <DealScoreBadge dealScore={item.deal_score} />
          <AuctionEndBadge endDate={item.auction_end_date} />
        </div>
        <Link to={dealLink(item)} className="block truncate font-semibold text-slate-900 hover:underline">
          {item.make_model}
        </Link>
        <p className="text-sm text-slate-700">
          Now <strong className="text-slate-900">{formatCardPrice(item.price, item.currency)}</strong>
          {item.fair_value !== null && <> · fair value {formatMoney(item.fair_value, 'USD')}</>}
          {item.auction_site?.name && <> · {item.auction_site.name}</>}
        </p>
        <label className="flex items-center gap-2 text-sm text-slate-800" data-testid="watch-good-price">
          <input
            type="checkbox"
            className="h-4 w-4"
            checked={item.max_price_follows_good}
            disabled={update.isPending}
            onChange={(e) =>
              update.mutate(
                { listingId: item.listing_id, body: { follow_good_limit: e.target.checked } },
                { onError: (err) => toast.error(err instanceof Error ? err.message : 'Could not update the price notice') },
              )
            }
          />
          <span>
            Remind me while the bid is under my Good price
            {item.max_price_follows_good && (item.max_price !== null ? `: ${formatMoney(item.max_price, 'USD')}` : ' (none yet: too long before the close)')}
          </span>
        </label>
        {!item.max_price_follows_good && item.max_price !== null && <p className="text-xs text-slate-600">Your maximum: {formatMoney(item.max_price, 'USD')}</p>}
        {reminderSent && <p className="text-xs text-slate-600">Reminder sent {reminderSent}</p>}
        {item.notices.last_error && <p className="text-xs text-red-700">{item.notices.last_error}</p>}
        {!item.notify && <p className="text-xs text-slate-600">Messages are off for this lot.</p>}
      </div>
      <div className="flex items-center gap-2">
        <label className="text-sm text-slate-700" htmlFor={`remind-${item.listing_id}`}>
          Remind me
        </label>
        <select
          id={`remind-${item.listing_id}`}
          className="h-10 rounded-md border border-slate-300 bg-white px-2 text-sm text-slate-900"
          value={item.remind_before_minutes}
          disabled={update.isPending}
          onChange={(e) =>
            update.mutate(
              { listingId: item.listing_id, body: { remind_before_minutes: Number(e.target.value) } },
              { onSuccess: () => toast.success('Reminder updated'), onError: (err) => toast.error(err instanceof Error ? err.message : 'Could not update the reminder') },
            )
          }
        >
          {REMIND_OPTIONS.map((o) => (
            <option key={o.minutes} value={o.minutes}>
              {o.label}
            </option>
          ))}
        </select>
        <Button type="button" variant="ghost" size="icon" aria-label={`Stop watching ${item.make_model}`} disabled={unwatch.isPending} onClick={() => unwatch.mutate(item.listing_id)}>
          <Trash2 className="h-4 w-4" aria-hidden />
        </Button>
      </div>
    </li>
  );
}

function ClosedLot({ item }: { item: WatchItem }) {
  const { unwatch } = useWatchMutations();
  return (
    <li className="flex flex-col gap-2 rounded-lg border border-slate-200 p-4 sm:flex-row sm:items-center" data-testid="watched-closed">
      <div className="min-w-0 flex-1 space-y-1">
        <Link to={dealLink(item)} className="block truncate font-semibold text-slate-900 hover:underline">
          {item.make_model}
        </Link>
        <p className="text-sm text-slate-800">{item.outcome}</p>
        <dl className="flex flex-wrap gap-x-6 text-sm text-slate-700">
          <div>
            <dt className="inline">Final price: </dt>
            <dd className="inline font-semibold text-slate-900">{item.final_price !== null ? formatMoney(item.final_price, 'USD') : 'not sold'}</dd>
          </div>
          <div>
            <dt className="inline">Our fair value: </dt>
            <dd className="inline font-semibold text-slate-900">{item.fair_value !== null ? formatMoney(item.fair_value, 'USD') : 'not estimated'}</dd>
          </div>
        </dl>
      </div>
      <Button type="button" variant="ghost" size="icon" aria-label={`Remove ${item.make_model} from the watchlist`} disabled={unwatch.isPending} onClick={() => unwatch.mutate(item.listing_id)}>
        <Trash2 className="h-4 w-4" aria-hidden />
      </Button>
    </li>
  );
}

/** Open lots by time left with their reminder; closed ones with the final price beside our fair value. */
export function WatchlistPage() {
  const { data, isLoading, isError, error } = useWatchlist();
  const open = (data ?? []).filter((i) => i.listing_status === 'open');
  const closed = (data ?? []).filter((i) => i.listing_status !== 'open');
  return (
    <div className="mx-auto max-w-5xl space-y-6 px-4 py-8">
      <div>
        <h1 className="text-2xl font-bold text-slate-900">Watchlist</h1>
        <p className="text-sm text-slate-700">Lots you follow to their close: a reminder before each closes, and how it ended.</p>
      </div>
      {isLoading && <Spinner label="Loading your watchlist..." />}
      {isError && <p role="alert" className="text-red-700">{error instanceof Error ? error.message : 'Could not load your watchlist.'}</p>}
      {data && data.length === 0 && (
        <Card>
          <CardContent className="flex flex-col items-center gap-3 py-10 text-center">
            <Eye className="h-8 w-8 text-slate-500" aria-hidden />
            <p className="text-slate-800">You are not watching any lot yet. Press “Watch” on a deal to follow it to its close.</p>
            <Button asChild>
              <Link to="/dashboard">Browse deals</Link>
            </Button>
          </CardContent>
        </Card>
      )}
      {open.length > 0 && (
        <Card>
          <CardHeader>
            <CardTitle>Open ({open.length})</CardTitle>
          </CardHeader>
          <CardContent>
            <ul className="space-y-3">
              {open.map((item) => (
                <OpenLot key={item.watch_id} item={item} />
              ))}
            </ul>
          </CardContent>
        </Card>
      )}
      {closed.length > 0 && (
        <Card>
          <CardHeader>
            <CardTitle>Closed ({closed.length})</CardTitle>
          </CardHeader>
          <CardContent>
            <ul className="space-y-3">
              {closed.map((item) => (
                <ClosedLot key={item.watch_id} item={item} />
              ))}
            </ul>
          </CardContent>
        </Card>
      )}
    </div>
  );
}
