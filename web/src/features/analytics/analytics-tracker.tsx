/**
 * Wires analytics to the app: a page view on every route change, the user properties while
 * signed in (cleared at logout), the usage events the product names — auction viewed (a deal
 * page), searched and filtered (the dashboard's URL holds its search and filters), shared (the
 * share links), original listing opened — and client errors. Reads the URL and clicks, so the
 * screens themselves need no analytics code.
 */
import { useEffect, useRef } from 'react';
import { useLocation } from 'react-router-dom';
import { useAuth } from '../../lib/auth.js';
import { useQueryClient } from '@tanstack/react-query';
import type { SubscriptionStatus } from '../../lib/entitlements.js';
import { clearUser, flush, identify, page, track, trackError } from '../../lib/analytics.js';

const FILTER_KEYS = ['category', 'min_price', 'max_price', 'location'] as const;

/** The usage events a dashboard URL change means: a new search, new filters, or neither. */
export function dashboardChanges(previous: URLSearchParams | null, next: URLSearchParams): Array<{ name: string; properties: Record<string, unknown> }> {
  const events: Array<{ name: string; properties: Record<string, unknown> }> = [];
  const before = previous ?? new URLSearchParams();
  const search = next.get('search') ?? '';
  if (search !== (before.get('search') ?? '') && search !== '') events.push({ name: 'Auction Searched', properties: { query: search } });
  const changed = FILTER_KEYS.some((k) => (next.get(k) ?? '') !== (before.get(k) ?? ''));
  const active = Object.fromEntries(FILTER_KEYS.map((k) => [k, next.get(k) ?? '']));
  if (changed && (previous !== null || FILTER_KEYS.some((k) => next.get(k)))) events.push({ name: 'Auction Filtered', properties: active });
  return events;
}

export function AnalyticsTracker() {
  const location = useLocation();
  const { user } = useAuth();
  const queryClient = useQueryClient();
  const lastDashboard = useRef<URLSearchParams | null>(null);

  useEffect(() => {
    page(location.pathname, location.search, location.hash);
    if (location.pathname === '/dashboard') {
      const params = new URLSearchParams(location.search);
      for (const e of dashboardChanges(lastDashboard.current, params)) track(e.name, e.properties);
      lastDashboard.current = params;
    }
    const deal = /^\/deal\/([^/]+)$/.exec(location.pathname);
    if (deal) track('Auction Viewed', { id: decodeURIComponent(deal[1]!) });
  }, [location.pathname, location.search, location.hash]);

  // The plan is read from the cache only when a screen already asked for it: analytics adds no
  // calls of its own. Re-read on every route change so a status loaded later is picked up.
  useEffect(() => {
    if (!user) {
      clearUser();
      return;
    }
    const status = queryClient.getQueryData<SubscriptionStatus>(['subscriptions', 'status', user.id]);
    identify({
      email: user.email,
      first_name: user.first_name ?? '',
      last_name: user.last_name ?? '',
      user_type: status?.is_premium ? 'premium' : 'free',
      date_joined: user.date_joined ?? '',
      original_user_id: user.id,
    });
  }, [user, queryClient, location.pathname]);

  useEffect(() => {
    function onClick(event: MouseEvent) {
      const link = (event.target as Element | null)?.closest?.('a[target="_blank"]');
      if (!(link instanceof HTMLAnchorElement)) return;
      const label = link.getAttribute('aria-label') ?? link.textContent ?? '';
      if (/^share/i.test(label.trim())) track('Auction Shared', { url: link.href, path: window.location.pathname });
      else if (/original auction/i.test(label)) track('Original Auction Opened', { url: link.href, path: window.location.pathname });
    }
    function onError(event: ErrorEvent) {
      trackError('Client Error', { message: event.message, source: event.filename ?? '', line: event.lineno ?? 0 });
    }
    function onRejection(event: PromiseRejectionEvent) {
      const reason = event.reason instanceof Error ? event.reason.message : String(event.reason);
      trackError('Unhandled Rejection', { message: reason });
    }
    function onHide() {
      if (document.visibilityState === 'hidden') void flush({ keepalive: true });
    }
    document.addEventListener('click', onClick, true);
    window.addEventListener('error', onError);
    window.addEventListener('unhandledrejection', onRejection);
    document.addEventListener('visibilitychange', onHide);
    return () => {
      document.removeEventListener('click', onClick, true);
      window.removeEventListener('error', onError);
      window.removeEventListener('unhandledrejection', onRejection);
      document.removeEventListener('visibilitychange', onHide);
    };
  }, []);

  return null;
}
