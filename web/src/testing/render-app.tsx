/**
 * Renders the real route tree in memory for component tests. The network is the one thing
 * replaced: `api` answers each request the app makes, and every call is recorded.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, configure, render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { toast } from 'sonner';
import { afterEach, beforeEach } from 'vitest';
import { routes } from '../app/router.js';
import { configureApiClient } from '../lib/api-client.js';
import { tokenStorage, type StoredUser } from '../lib/token-storage.js';

export type FakeRequest = { method: string; path: string; query: URLSearchParams; body: unknown; headers: Record<string, string> };
export type FakeResponse = { status?: number; statusText?: string; body?: unknown; delayMs?: number } | 'pending';
export type FakeApi = (req: FakeRequest) => FakeResponse | Promise<FakeResponse>;

export const TEST_USER: StoredUser = { id: 7, email: 'dana@example.com', first_name: 'Dana', last_name: 'Reyes', date_joined: '2026-11-01T10:00:00Z', phone: '', city: '', address: '' };

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 201: 'Created', 400: 'Bad Request', 401: 'Unauthorized', 404: 'Not Found', 500: 'Internal Server Error', 503: 'Service Unavailable' };

export function installFakeApi(api: FakeApi): FakeRequest[] {
  const calls: FakeRequest[] = [];
  configureApiClient({
    baseUrl: 'http://127.0.0.1',
    fetch: async (input, init) => {
      const url = new URL(String(input));
      const headers = Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
      const req: FakeRequest = {
        method: init?.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        body: typeof init?.body === 'string' ? (JSON.parse(init.body) as unknown) : null,
        headers,
      };
      calls.push(req);
      const res = await api(req);
      if (res === 'pending') return new Promise<Response>(() => {});
      if (res.delayMs) await new Promise((r) => setTimeout(r, res.delayMs));
      const status = res.status ?? 200;
      return new Response(res.body === undefined ? null : JSON.stringify(res.body), {
        status,
        statusText: res.statusText ?? STATUS_TEXT[status] ?? '',
        headers: { 'Content-Type': 'application/json' },
      });
    },
  });
  return calls;
}

export function signIn(user: StoredUser = TEST_USER, access = 'access-1', refresh = 'refresh-1') {
  tokenStorage.setTokens(access, refresh);
  tokenStorage.setUser(user);
}

export function renderApp(path: string, state?: unknown) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, gcTime: 0 }, mutations: { retry: false } } });
  const router = createMemoryRouter(routes, { initialEntries: [state === undefined ? path : { pathname: path.split('?')[0]!, search: path.includes('?') ? `?${path.split('?')[1]}` : '', state }] });
  const utils = render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { ...utils, router, queryClient };
}

/** jsdom lacks a few browser APIs the UI libraries touch; a fresh storage and DOM per test. */
export function setupDom() {
  // The first render of a lazy route transforms its modules on demand, which can take seconds.
  configure({ asyncUtilTimeout: 5000 });
  beforeEach(() => {
    window.localStorage.clear();
    window.scrollTo = () => {};
    if (!window.matchMedia) {
      window.matchMedia = (query: string) =>
        ({ matches: false, media: query, onchange: null, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {}, dispatchEvent: () => false }) as MediaQueryList;
    }
    globalThis.ResizeObserver ??= class {
      observe() {}
      unobserve() {}
      disconnect() {}
    } as unknown as typeof ResizeObserver;
  });
  afterEach(() => {
    cleanup();
    // Toasts live in a module-level store: none may leak into the next test.
    toast.dismiss();
  });
}

/** Listing fixtures in the API's card and detail shapes. */
export function card(overrides: Record<string, unknown> = {}) {
  return {
    id: 1,
    slug: 'caterpillar-320-excavator-1',
    make_model: 'Caterpillar 320 Excavator',
    year: 2016,
    price: 84500,
    current_price: 84500,
    deal_score: 870,
    currency: 'USD',
    location: 'Dallas, TX',
    auction_end_date: new Date(Date.now() + 3 * 86_400_000 + 5 * 3_600_000 + 60_000).toISOString(),
    first_image: 'http://127.0.0.1/img/1.jpg',
    image_count: 3,
    category: { id: 1, name: 'Excavators' },
    auction_site: { id: 2, name: 'GSA Auctions' },
    original_url: 'http://127.0.0.1/lot/1',
    ...overrides,
  };
}

export function listResponse(items: unknown[], pagination: Partial<Record<string, number | boolean>> = {}) {
  return {
    data: {
      items,
      pagination: { current_page: 1, total_pages: items.length ? 1 : 0, total_count: items.length, has_next: false, has_previous: false, ...pagination },
    },
  };
}

export const CATEGORIES = { data: { categories: [{ id: 1, name: 'Excavators' }, { id: 2, name: 'Bulldozers' }, { id: 11, name: 'Other' }] } };
