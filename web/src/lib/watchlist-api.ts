/** The watchlist API (`/api/watchlist/*`, issue 31): fetchers, the query key and hooks. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiRequest } from './api-client.js';
import { useAuth } from './auth.js';
import type { AuctionCard } from './listing-types.js';

export const REMIND_OPTIONS = [
  { minutes: 15, label: '15 minutes before' },
  { minutes: 60, label: '1 hour before' },
  { minutes: 180, label: '3 hours before' },
  { minutes: 1440, label: '24 hours before' },
] as const;

export type WatchItem = AuctionCard & {
  watch_id: number;
  listing_id: number;
  listing_status: 'open' | 'closed' | 'sold' | 'withdrawn';
  remind_before_minutes: number;
  max_price: number | null;
  /** The maximum is the lot's Good limit and follows it on a rescore (issue 38). */
  max_price_follows_good: boolean;
  delivery_method: 'email' | 'sms';
  notify: boolean;
  watched_at: string;
  fair_value: number | null;
  final_price: number | null;
  outcome: string | null;
  next_notice_at: string | null;
  notices: {
    reminder_sent_at: string | null;
    price_notice_sent_at: string | null;
    closed_notice_sent_at: string | null;
    gone_notice_sent_at: string | null;
    last_error: string | null;
  };
};

export const WATCHLIST_KEY = ['watchlist'] as const;

export const watchlistApi = {
  list: () => apiRequest<{ data: { items: WatchItem[] } }>('/api/watchlist/').then((r) => r.data.items),
  watch: (listingId: number) => apiRequest<{ data: WatchItem }>('/api/watchlist/', { method: 'POST', body: { listing_id: listingId } }).then((r) => r.data),
  update: (listingId: number, body: { remind_before_minutes?: number; max_price?: number | null; follow_good_limit?: boolean }) =>
    apiRequest<{ data: WatchItem }>(`/api/watchlist/${listingId}/`, { method: 'PATCH', body }).then((r) => r.data),
  unwatch: (listingId: number) => apiRequest<null>(`/api/watchlist/${listingId}/`, { method: 'DELETE' }),
};

/** The signed-in user's watched lots (one request, shared by every Watch button on a page). */
export function useWatchlist() {
  const { user } = useAuth();
  return useQuery({ queryKey: WATCHLIST_KEY, queryFn: watchlistApi.list, enabled: Boolean(user), staleTime: 30_000 });
}

export function useWatchMutations() {
  const queryClient = useQueryClient();
  const invalidate = () => queryClient.invalidateQueries({ queryKey: WATCHLIST_KEY });
  return {
    watch: useMutation({ mutationFn: watchlistApi.watch, onSuccess: invalidate }),
    unwatch: useMutation({ mutationFn: watchlistApi.unwatch, onSuccess: invalidate }),
    update: useMutation({ mutationFn: (v: { listingId: number; body: Parameters<typeof watchlistApi.update>[1] }) => watchlistApi.update(v.listingId, v.body), onSuccess: invalidate }),
  };
}
