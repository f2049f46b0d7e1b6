import { Eye, EyeOff } from 'lucide-react';
import { useLocation, useNavigate } from 'react-router-dom';
import { toast } from 'sonner';
import { Button } from './ui/button.js';
import { useAuth } from '../lib/auth.js';
import { useWatchlist, useWatchMutations } from '../lib/watchlist-api.js';

/**
 * Watch / Watching on a card or the deal page (issue 31). Signed out, a click goes to sign in
 * and comes back here. The plan's limit and other refusals are shown as the API words them.
 */
export function WatchButton({ listingId, title, size = 'md', className }: { listingId: number; title: string; size?: 'md' | 'lg' | 'sm'; className?: string }) {
  const { user } = useAuth();
  const navigate = useNavigate();
  const location = useLocation();
  const { data: items } = useWatchlist();
  const { watch, unwatch } = useWatchMutations();
  const watching = Boolean(items?.some((i) => i.listing_id === listingId));
  const busy = watch.isPending || unwatch.isPending;

  const onClick = () => {
    if (!user) {
      navigate('/login', { state: { from: { pathname: location.pathname, search: location.search, hash: location.hash } } });
      return;
    }
    const action = watching ? unwatch : watch;
    action.mutate(listingId, {
      onSuccess: () => toast.success(watching ? 'Removed from your watchlist' : 'Added to your watchlist: we will remind you before it closes'),
      onError: (err) => toast.error(err instanceof Error ? err.message : 'Could not update your watchlist'),
    });
  };

  return (
    <Button
      type="button"
      variant="secondary"
      size={size}
      className={className}
      disabled={busy}
      aria-pressed={watching}
      aria-label={`${watching ? 'Stop watching' : 'Watch'}: ${title}`}
      onClick={onClick}
    >
      {watching ? <EyeOff className="h-4 w-4" aria-hidden /> : <Eye className="h-4 w-4" aria-hidden />}
      {watching ? 'Watching' : 'Watch'}
    </Button>
  );
}
