import { WatchlistPage } from '../../features/watchlist/components/watchlist-page.js';

export default function WatchlistRoute() {
  return <WatchlistPage />;
}
