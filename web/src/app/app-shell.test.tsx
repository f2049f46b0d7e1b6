// @vitest-environment jsdom
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { apiRequest } from '../lib/api-client.js';
import { tokenStorage } from '../lib/token-storage.js';
import { CATEGORIES, TEST_USER, installFakeApi, listResponse, renderApp, setupDom, signIn } from '../testing/render-app.js';

setupDom();

describe('protected routes', () => {
  it.each(['/dashboard', '/deal/cat-320', '/alerts', '/account'])('%s sends a signed-out visitor to /login, remembering the page', async (path) => {
    installFakeApi(() => ({ body: {} }));
    const { router } = renderApp(path);
    expect(await screen.findByRole('heading', { name: 'Sign In' })).toBeTruthy();
    expect(router.state.location.pathname).toBe('/login');
    expect((router.state.location.state as { from: { pathname: string } }).from.pathname).toBe(path);
  });

  it('shows a spinner while the session loads, then the page', async () => {
    signIn();
    let release!: () => void;
    const profileGate = new Promise<void>((r) => (release = r));
    installFakeApi(async (req) => {
      if (req.path === '/api/auth/profile/') {
        await profileGate;
        return { body: TEST_USER };
      }
      if (req.path === '/api/auctions/categories/') return { body: CATEGORIES };
      return { body: listResponse([]) };
    });
    renderApp('/dashboard');
    expect(await screen.findByRole('status', { name: /loading your session/i })).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Equipment Deals' })).toBeNull();
    release();
    expect(await screen.findByRole('heading', { name: 'Equipment Deals' })).toBeTruthy();
  });

  it('signs out when the profile check fails at start', async () => {
    signIn();
    installFakeApi((req) => (req.path === '/api/auth/token/refresh/' ? { status: 401, body: { detail: 'Token is invalid or expired' } } : { status: 401, body: { detail: 'expired' } }));
    const { router } = renderApp('/dashboard');
    await screen.findByRole('heading', { name: 'Sign In' });
    expect(router.state.location.pathname).toBe('/login');
    expect(tokenStorage.getAccess()).toBeNull();
    expect(tokenStorage.getUser()).toBeNull();
  });
});

describe('lost session', () => {
  it("a 401 whose refresh fails clears the session, says 'Authentication failed' and goes to /login remembering the page", async () => {
    signIn();
    installFakeApi((req) => {
      if (req.path === '/api/auth/profile/') return { body: TEST_USER };
      if (req.path === '/api/auctions/categories/') return { body: CATEGORIES };
      if (req.path === '/api/auctions/list/') return { body: listResponse([]) };
      if (req.path === '/api/auth/token/refresh/') return { status: 401, body: { detail: 'Token is invalid or expired' } };
      return { status: 401, body: { detail: 'Given token not valid for any token type' } };
    });
    const { router } = renderApp('/dashboard?page=2');
    await screen.findByRole('heading', { name: 'Equipment Deals' });
    await expect(apiRequest('/api/alerts/')).rejects.toThrow('Authentication failed');
    expect(await screen.findByText('Authentication failed')).toBeTruthy();
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect((router.state.location.state as { from: { pathname: string; search: string } }).from).toMatchObject({ pathname: '/dashboard', search: '?page=2' });
    expect(tokenStorage.getAccess()).toBeNull();
    expect(await screen.findByRole('heading', { name: 'Sign In' })).toBeTruthy();
  });
});

describe('top navigation', () => {
  function signedInApi() {
    return installFakeApi((req) => {
      if (req.path === '/api/auth/profile/') return { body: TEST_USER };
      if (req.path === '/api/auth/logout/') return { status: 500, body: { detail: 'boom' } };
      if (req.path === '/api/auctions/categories/') return { body: CATEGORIES };
      return { body: listResponse([]) };
    });
  }

  it('has the logo, the five items (Watchlist added by issue 31, What is it worth by issue 38) and a collapsible mobile menu', async () => {
    signIn();
    signedInApi();
    renderApp('/dashboard');
    await screen.findByRole('heading', { name: 'Equipment Deals' });
    const main = screen.getAllByRole('navigation', { name: 'Main' })[0]!;
    expect(within(main).getAllByRole('link').map((a) => a.textContent)).toEqual(['Dashboard', 'Alerts', 'Watchlist', 'What is it worth', 'Account']);
    expect(screen.getByRole('link', { name: /Deal Radar/ }).getAttribute('href')).toBe('/dashboard');
    const toggle = screen.getByRole('button', { name: 'Open menu' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle);
    expect(screen.getByRole('button', { name: 'Close menu' }).getAttribute('aria-expanded')).toBe('true');
    expect(document.getElementById('mobile-menu')).toBeTruthy();
  });

  it('avatar menu shows initials, name, email, Profile, Billing; Logout clears the session even when the call fails', async () => {
    signIn();
    const calls = signedInApi();
    const { router } = renderApp('/dashboard');
    await screen.findByRole('heading', { name: 'Equipment Deals' });
    const trigger = screen.getByRole('button', { name: 'DR, Account menu for Dana Reyes' });
    expect(trigger.textContent).toBe('DR');
    fireEvent.pointerDown(trigger, { button: 0, ctrlKey: false, pointerType: 'mouse' });
    const menu = await screen.findByRole('menu');
    expect(within(menu).getByText('Dana Reyes')).toBeTruthy();
    expect(within(menu).getByText('dana@example.com')).toBeTruthy();
    expect(within(menu).getByRole('menuitem', { name: 'Profile' }).getAttribute('href')).toBe('/account');
    expect(within(menu).getByRole('menuitem', { name: 'Billing' }).getAttribute('href')).toBe('/account?tab=billing');
    fireEvent.click(within(menu).getByRole('menuitem', { name: 'Logout' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(await screen.findByText('Successfully logged out')).toBeTruthy();
    expect(await screen.findByRole('link', { name: 'Get Started' })).toBeTruthy();
    expect(tokenStorage.getAccess()).toBeNull();
    expect(calls.find((c) => c.path === '/api/auth/logout/')?.body).toEqual({ refresh_token: 'refresh-1' });
  });
});

describe('not found', () => {
  it("shows 'Oops! Page not found' and 'Return to Home'", async () => {
    installFakeApi(() => ({ body: {} }));
    const original = console.error;
    const logged: unknown[][] = [];
    console.error = (...args: unknown[]) => logged.push(args);
    try {
      renderApp('/no/such/page');
      expect(await screen.findByText('Oops! Page not found')).toBeTruthy();
      expect(screen.getByRole('link', { name: 'Return to Home' }).getAttribute('href')).toBe('/');
      expect(logged.some((args) => args.includes('/no/such/page'))).toBe(true);
    } finally {
      console.error = original;
    }
  });
});
