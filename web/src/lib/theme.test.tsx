// @vitest-environment jsdom
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { TEST_USER, installFakeApi, listResponse, CATEGORIES, renderApp, setupDom, signIn } from '../testing/render-app.js';
import { resolveTheme, storedTheme, THEME_STORAGE_KEY } from './theme.js';

setupDom();

function setSystemDark(dark: boolean) {
  window.matchMedia = (query: string) =>
    ({ matches: dark && query.includes('dark'), media: query, onchange: null, addEventListener() {}, removeEventListener() {}, addListener() {}, removeListener() {}, dispatchEvent: () => false }) as MediaQueryList;
}

describe('theme', () => {
  it('system follows the system setting, light when it states no preference', () => {
    expect(resolveTheme('system', true)).toBe('dark');
    expect(resolveTheme('system', false)).toBe('light');
    expect(resolveTheme('light', true)).toBe('light');
    expect(resolveTheme('dark', false)).toBe('dark');
    expect(storedTheme()).toBe('system');
    window.localStorage.setItem(THEME_STORAGE_KEY, 'nonsense');
    expect(storedTheme()).toBe('system');
  });

  it("is switched from the top navigation and stored under 'theme'", async () => {
    setSystemDark(true);
    signIn();
    installFakeApi((req) => {
      if (req.path === '/api/auth/profile/') return { body: TEST_USER };
      if (req.path === '/api/auctions/categories/') return { body: CATEGORIES };
      if (req.path === '/api/auctions/list/') return { body: listResponse([]) };
      return { body: { is_premium: false } };
    });
    renderApp('/dashboard');
    const trigger = await screen.findByRole('button', { name: 'Theme: System. Change theme' });
    await waitFor(() => expect(document.documentElement.classList.contains('dark')).toBe(true));
    fireEvent.pointerDown(trigger, { button: 0, ctrlKey: false });
    fireEvent.click(await screen.findByRole('menuitemradio', { name: 'Light' }));
    await waitFor(() => expect(document.documentElement.classList.contains('dark')).toBe(false));
    expect(window.localStorage.getItem('theme')).toBe('light');
    fireEvent.pointerDown(screen.getByRole('button', { name: 'Theme: Light. Change theme' }), { button: 0, ctrlKey: false });
    fireEvent.click(await screen.findByRole('menuitemradio', { name: 'Dark' }));
    await waitFor(() => expect(document.documentElement.classList.contains('dark')).toBe(true));
    expect(window.localStorage.getItem('theme')).toBe('dark');
    setSystemDark(false);
  });
});
