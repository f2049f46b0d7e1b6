// @vitest-environment jsdom
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TEST_USER, installFakeApi, listResponse, CATEGORIES, renderApp, setupDom, signIn, type FakeRequest } from '../../testing/render-app.js';
import { configureAnalytics, DEVICE_ID_KEY, deviceId, flush, pageViewName, resetAnalytics, sanitizeName, sanitizeProperties } from '../../lib/analytics.js';
import { dashboardChanges } from './analytics-tracker.js';

setupDom();

type EventsBody = { device_id: string; user_properties: Record<string, unknown> | null; events: Array<{ name: string; type: string; properties: Record<string, unknown> }> };

function appApi(): FakeRequest[] {
  return installFakeApi((req) => {
    if (req.path === '/api/events/') return { status: 202, body: { accepted: 1 } };
    if (req.path === '/api/auth/profile/') return { body: TEST_USER };
    if (req.path === '/api/auth/logout/') return { body: { detail: 'Successfully logged out.' } };
    if (req.path === '/api/subscriptions/status/') return { body: { is_premium: false } };
    if (req.path === '/api/auctions/categories/') return { body: CATEGORIES };
    if (req.path === '/api/auctions/list/') return { body: listResponse([]) };
    return { status: 404, body: { detail: 'Not found.' } };
  });
}

const sentEvents = (calls: FakeRequest[]) => calls.filter((c) => c.path === '/api/events/').flatMap((c) => (c.body as EventsBody).events.map((e) => ({ ...e, body: c.body as EventsBody, auth: c.headers.authorization })));

describe('analytics rules (§2, §5, §9)', () => {
  it('names page views, sanitises names and properties', () => {
    expect(pageViewName('/')).toBe('Home');
    expect(pageViewName('/deal/cat-320')).toBe('deal/cat-320');
    expect(sanitizeName('x'.repeat(150))).toHaveLength(100);
    const clean = sanitizeProperties({ s: 'y'.repeat(1200), a: Array.from({ length: 120 }, (_, i) => i), n: Number.NaN, inf: -Infinity, z: null, u: undefined });
    expect((clean.s as string).length).toBe(1000);
    expect((clean.a as number[]).length).toBe(100);
    expect(clean).toMatchObject({ n: 0, inf: 0, z: '' });
    expect('u' in clean).toBe(false);
  });

  it('keeps a prefixed device id of at least 5 characters, generated when missing', () => {
    const id = deviceId();
    expect(id).toMatch(/^dr_[A-Za-z0-9_-]{2,}$/);
    expect(id.length).toBeGreaterThanOrEqual(5);
    expect(window.localStorage.getItem(DEVICE_ID_KEY)).toBe(id);
    expect(deviceId()).toBe(id);
    window.localStorage.setItem(DEVICE_ID_KEY, 'bad');
    expect(deviceId()).not.toBe('bad');
  });

  it('dashboard URL changes become searched / filtered events', () => {
    expect(dashboardChanges(null, new URLSearchParams(''))).toEqual([]);
    expect(dashboardChanges(new URLSearchParams(''), new URLSearchParams('search=cat'))).toEqual([{ name: 'Auction Searched', properties: { query: 'cat' } }]);
    expect(dashboardChanges(new URLSearchParams('search=cat'), new URLSearchParams('search=cat&category=2')).map((e) => e.name)).toEqual(['Auction Filtered']);
    expect(dashboardChanges(new URLSearchParams('category=2'), new URLSearchParams('category=2&page=2'))).toEqual([]);
  });
});

describe('analytics in the app', () => {
  beforeEach(() => {
    resetAnalytics();
    configureAnalytics({ enabled: true, flushDelayMs: 10 });
  });
  afterEach(() => configureAnalytics({ enabled: false }));

  it('sends a page view per route change with path, search and hash, and the user properties while signed in', async () => {
    signIn();
    const calls = appApi();
    const { router } = renderApp('/dashboard?search=dozer#top');
    await screen.findByRole('heading', { name: 'Equipment Deals' });
    await waitFor(() => expect(sentEvents(calls).some((e) => e.name === 'dashboard')).toBe(true));
    const view = sentEvents(calls).find((e) => e.name === 'dashboard')!;
    expect(view.type).toBe('page');
    expect(view.properties).toEqual({ path: '/dashboard', search: '?search=dozer', hash: '#top' });
    expect(view.body.device_id).toMatch(/^dr_/);
    expect(sentEvents(calls).some((e) => e.name === 'Auction Searched' && e.properties.query === 'dozer')).toBe(true);
    await waitFor(() => expect(sentEvents(calls).at(-1)!.body.user_properties).toMatchObject({ email: TEST_USER.email, first_name: 'Dana', last_name: 'Reyes', user_type: 'free', original_user_id: TEST_USER.id }));

    await router.navigate('/deal/cat-320');
    await waitFor(() => expect(sentEvents(calls).some((e) => e.name === 'Auction Viewed' && e.properties.id === 'cat-320')).toBe(true));
    expect(sentEvents(calls).some((e) => e.name === 'deal/cat-320' && e.type === 'page')).toBe(true);
  });

  it('clears the user properties at logout; the 404 is sent as an error event', async () => {
    signIn();
    const calls = appApi();
    const errorLog = vi.spyOn(console, 'error').mockImplementation(() => {});
    renderApp('/dashboard');
    fireEvent.pointerDown(await screen.findByRole('button', { name: /Account menu/ }), { button: 0, ctrlKey: false });
    fireEvent.click(await screen.findByRole('menuitem', { name: 'Logout' }));
    await screen.findByText('Successfully logged out');
    const { router } = renderApp('/no/such/page');
    expect(await screen.findAllByText('Oops! Page not found')).toBeTruthy();
    await router.navigate('/again-missing');
    await waitFor(() => expect(sentEvents(calls).some((e) => e.name === 'Page Not Found' && e.properties.path === '/again-missing')).toBe(true));
    const notFound = sentEvents(calls).find((e) => e.name === 'Page Not Found')!;
    expect(notFound.type).toBe('error');
    expect(notFound.body.user_properties).toBeNull();
    expect(errorLog).toHaveBeenCalledWith(expect.stringContaining('404'), '/no/such/page');
    await flush();
    errorLog.mockRestore();
  });
});
