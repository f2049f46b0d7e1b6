/**
 * The web app in the system Chromium against the real built app, API and database:
 * sign up → the dashboard shows the seeded listings → filter by category and price → sort →
 * page → open a deal → back; a signed-out visitor is sent to /login and returned to the page
 * they asked for; an expired access token is refreshed silently, on reload and mid-session. Screenshots of every screen
 * at desktop and mobile widths go to test-results/screenshots/. With UPDATE_SCREENSHOTS=1 the run also
 * rewrites the README's two pictures, docs/images/dashboard.png and docs/images/deal-page.png.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillListingPlaces } from '../../services/crawler/place-backfill.js';
import { insertListings, insertPriceObservations, insertSource, type ListingFixture } from '../support/listing-fixtures.js';
import { insertModelVersion } from '../../services/shared/repositories/model-versions-repository.js';
import { launchChromium, screenshotPath, startImageHost, startWebStack, type WebStack } from '../support/web-stack.js';

const ACCESS_TTL_SECONDS = 30;
const PASSWORD = 'Bulldozer-Sunset-42';
const DESKTOP = { width: 1366, height: 900 };
const MOBILE = { width: 390, height: 844 };
const STATES = ['TX', 'IA', 'CO', 'GA', 'OH'] as const;
const CITIES: Record<(typeof STATES)[number], string> = { TX: 'Dallas', IA: 'Des Moines', CO: 'Denver', GA: 'Atlanta', OH: 'Columbus' };

let stack: WebStack;
let images: { url: string; close(): Promise<void> };
let browser: Browser;
const contexts: BrowserContext[] = [];
const email = `journey-${Date.now()}@example.com`;
let featuredSlug = '';
let signedUpAt = 0;

async function newPage(viewport = DESKTOP): Promise<Page> {
  const context = await browser.newContext({ viewport, baseURL: stack.url });
  contexts.push(context);
  const page = await context.newPage();
  // Only loopback: any other host is a bug in the app or the test.
  await context.route(/^(?!http:\/\/127\.0\.0\.1[:/])/, (route) => route.abort());
  return page;
}

async function shoot(page: Page, name: string, fullPage = true): Promise<void> {
  await page.waitForLoadState('networkidle').catch(() => {});
  await page.screenshot({ path: screenshotPath(`web-${name}`), fullPage });
}

// The README's pictures are refreshed on request only, so an ordinary test run never dirties the checkout.
const UPDATE_DOCS_SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1';
const DOCS_IMAGES = fileURLToPath(new URL('../../docs/images/', import.meta.url));
// Small enough to keep in git and to read on the repository's home page: the first screen only.
const DOCS_VIEWPORT = { width: 1200, height: 800 };

/** The README's picture of this screen (docs/images/<name>.png), when UPDATE_SCREENSHOTS=1. */
async function shootForDocs(page: Page, name: string, height = DOCS_VIEWPORT.height): Promise<void> {
  if (!UPDATE_DOCS_SCREENSHOTS) return;
  const original = page.viewportSize() ?? DESKTOP;
  await page.setViewportSize({ ...DOCS_VIEWPORT, height });
  await page.waitForLoadState('networkidle').catch(() => {});
  mkdirSync(DOCS_IMAGES, { recursive: true });
  await page.screenshot({ path: `${DOCS_IMAGES}${name}.png`, fullPage: false });
  await page.setViewportSize(original);
}

/** The screen at desktop and mobile width. */
async function shootBoth(page: Page, name: string): Promise<void> {
  const original = page.viewportSize() ?? DESKTOP;
  await page.setViewportSize(DESKTOP);
  await shoot(page, `${name}-desktop`);
  await page.setViewportSize(MOBILE);
  await shoot(page, `${name}-mobile`);
  await page.setViewportSize(original);
}

function waitForList(page: Page, check: (q: URLSearchParams) => boolean = () => true): Promise<Response> {
  return page.waitForResponse((r) => r.url().includes('/api/auctions/list/') && check(new URL(r.url()).searchParams) && r.status() === 200);
}

async function cardPrices(page: Page): Promise<number[]> {
  const texts = await page.getByTestId('deal-card').locator('p.text-xl').allTextContents();
  return texts.map((t) => Number(t.replace(/[^0-9]/g, '')));
}

beforeAll(async () => {
  [stack, images] = await Promise.all([
    startWebStack({ env: { ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TTL_SECONDS) } }),
    startImageHost(),
  ]);
  const db = stack.ctx.database.db;
  const source = await insertSource(db, 'demo-auctions', 'Demo Auctions');
  const day = 24 * 3600 * 1000;
  // 40 excavators priced 20,000 … 215,000 (5,000 apart), 6 bulldozers, 4 wheel loaders.
  const excavators: ListingFixture[] = Array.from({ length: 40 }, (_, i) => {
    const state = STATES[i % STATES.length]!;
    const endsIn = (i % 7) * day + (i % 5 === 0 ? 5 * 3600 * 1000 : 2 * day);
    return {
      title: `Caterpillar 3${String(i).padStart(2, '0')} Excavator`,
      make: 'Caterpillar',
      model: `3${String(i).padStart(2, '0')}`,
      year: 2010 + (i % 12),
      hours: 2000 + i * 150,
      condition: 'Good',
      categoryId: 1,
      city: CITIES[state],
      state,
      askingPrice: 20_000 + i * 5_000,
      // As the scorer would: a low bid scores above fair only near the close (docs/deal-score.md).
      dealScore: endsIn > day ? Math.min((i * 137) % 1000, 560) : (i * 137) % 1000,
      auctionEndAt: new Date(Date.now() + endsIn),
      description: `Well maintained excavator number ${i}. Cab with A/C, new undercarriage.`,
      images: i % 4 === 3 ? [] : [`${images.url}/img/Excavator-${i}-a`, `${images.url}/img/Excavator-${i}-b`, `${images.url}/img/Excavator-${i}-c`],
    };
  });
  const bulldozers: ListingFixture[] = Array.from({ length: 6 }, (_, i) => ({
    title: `Komatsu D6${i} Dozer`,
    make: 'Komatsu',
    model: `D6${i}`,
    categoryId: 2,
    city: 'Denver',
    state: 'CO',
    askingPrice: i === 0 ? null : 60_000 + i * 9_000,
    // Three days from the close (the fixtures' default end): at most fair.
    dealScore: i === 1 ? null : 380 + i * 30,
    images: [`${images.url}/img/Dozer-${i}`],
  }));
  const loaders: ListingFixture[] = Array.from({ length: 4 }, (_, i) => ({
    title: `Volvo L${60 + i * 10} Wheel Loader`,
    make: 'Volvo',
    model: `L${60 + i * 10}`,
    categoryId: 3,
    city: 'Atlanta',
    state: 'GA',
    askingPrice: 45_000 + i * 11_000,
    dealScore: 300 + i * 80,
    images: [],
    imageCount: 2,
    firstImageUrl: null,
  }));
  await insertListings(db, source, [...excavators, ...bulldozers, ...loaders]);
  // the model that valued the featured deal: its market level rests on sales up to May 2023
  const model = await insertModelVersion(db, { model: {}, trainingRows: 1, trainingOrigins: {}, trainingSeconds: 1, metrics: { marketAsOf: '2023-05' }, params: {} });
  const [featured] = await insertListings(db, source, [
    {
      title: '2018 Caterpillar 320 GC Excavator',
      make: 'Caterpillar',
      model: '320 GC',
      year: 2018,
      hours: 4210,
      condition: 'Like New',
      categoryId: 1,
      city: 'Houston',
      state: 'TX',
      askingPrice: 96_000,
      currentBid: 84_500,
      bidCount: 6,
      // What the scorer gives $84,500 against $103,000 (92–114k, confidence 0.74) 5.5 h before the close.
      dealScore: 900,
      fairValue: 103_000,
      valueLow: 92_000,
      valueHigh: 114_000,
      valuationConfidence: 0.74,
      modelVersion: model.version,
      comparables: [
        { title: '2017 Caterpillar 320', price: 99_000, sold_at: '2026-09-14', source: 'Fast Iron', url: 'http://127.0.0.1/sold/1' },
        { title: '2019 Caterpillar 320 GC', price: 108_500, sold_at: '2026-08-02', source: 'Fast Iron', url: null },
      ],
      auctionEndAt: new Date(Date.now() + 5.5 * 3600 * 1000),
      description: 'One owner. Full service history.\nAuxiliary hydraulics, quick coupler.',
      images: [`${images.url}/img/Cat-320-front`, `${images.url}/img/Cat-320-side`, `${images.url}/img/Cat-320-cab`],
    },
  ]);
  featuredSlug = featured!.slug;
  // Placed on the map as the crawler would place them (by city and state).
  await backfillListingPlaces(db);
  await insertPriceObservations(db, featured!.id, [
    { observedAt: new Date(Date.now() - 9 * day), price: 70_000, currentBid: 70_000, bidCount: 1 },
    { observedAt: new Date(Date.now() - 6 * day), price: 76_000, currentBid: 76_000, bidCount: 3 },
    { observedAt: new Date(Date.now() - 2 * day), price: 84_500, currentBid: 84_500, bidCount: 6 },
  ]);
  browser = await launchChromium();
}, 180_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => {});
  await browser?.close();
  await images?.close();
  await stack?.close();
});

describe('web app in Chromium against the real API and database', () => {
  it('landing, sign-in screens and the 404 page render (desktop and mobile)', async () => {
    const page = await newPage();
    await page.goto('/');
    await page.getByRole('link', { name: 'Start Finding Deals' }).waitFor();
    await page.getByText('1,200+').waitFor();
    await shootBoth(page, 'landing-signed-out');
    await page.goto('/login');
    await page.getByRole('heading', { name: 'Sign In' }).waitFor();
    await shootBoth(page, 'login');
    await page.goto('/signup');
    await page.getByRole('heading', { name: 'Create Account' }).waitFor();
    await shootBoth(page, 'signup');
    await page.goto('/forgot-password');
    await page.getByRole('button', { name: 'Send Reset Link' }).waitFor();
    await shootBoth(page, 'forgot-password');
    await page.goto('/reset/MQ/not-a-real-token');
    await page.getByRole('button', { name: 'Reset Password' }).waitFor();
    await shootBoth(page, 'reset-password');
    await page.goto('/reset/MQ');
    await page.waitForURL('**/forgot-password');
    await page.getByText('Invalid Reset Link').waitFor();
    await page.goto('/no/such/page');
    await page.getByText('Oops! Page not found').waitFor();
    await shootBoth(page, 'not-found');
    // Six pages at two sizes each: ~10 s on a quiet machine, three times that on a loaded one.
  }, 120_000);

  it('sign up → dashboard → filter by category and price → sort → page → open a deal → back', async () => {
    const page = await newPage();
    await page.goto('/signup');
    await page.getByLabel('First Name').fill('Dana');
    await page.getByLabel('Last Name').fill('Miller');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Confirm Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel(/^City/).fill('Austin');
    await page.getByRole('checkbox').click();
    const firstList = waitForList(page);
    await page.getByRole('button', { name: 'Create Account' }).click();
    await page.waitForURL('**/dashboard');
    signedUpAt = Date.now();
    await page.getByText('Account Created').waitFor();
    await firstList;

    // Every open listing the database holds (51), 15 to a page, best deal first.
    await page.getByText('51 deals found').waitFor();
    await expect(page.getByTestId('deal-card').count()).resolves.toBe(15);
    await page.getByText('Page 1 of 4').waitFor();
    await expect(page.getByTestId('deal-card').first().getByRole('heading').textContent()).resolves.toBe('Caterpillar 320 GC');
    await page.getByTestId('deal-card').first().getByText('90 • Excellent Deal').waitFor();
    await shootBoth(page, 'dashboard');

    // Category applies at once.
    let listed = waitForList(page, (q) => q.get('category') === '1');
    await page.getByLabel('Category').selectOption({ label: 'Excavators' });
    await listed;
    await page.getByText('41 deals found').waitFor();

    // Price range (whole dollars) with Apply Filters.
    await page.getByLabel('Min Price').fill('50000');
    await page.getByLabel('Max Price').fill('150000');
    listed = waitForList(page, (q) => q.get('min_price') === '50000' && q.get('max_price') === '150000' && q.get('category') === '1');
    await page.getByRole('button', { name: 'Apply Filters' }).click();
    await listed;
    // 50,000 … 150,000 in 5,000 steps is 21 excavators, plus the featured one at 84,500.
    await page.getByText('22 deals found').waitFor();
    for (const price of await cardPrices(page)) {
      expect(price).toBeGreaterThanOrEqual(50_000);
      expect(price).toBeLessThanOrEqual(150_000);
    }

    // Sort by price, low to high.
    listed = waitForList(page, (q) => q.get('sort_by') === 'price_low');
    await page.getByLabel('Sort by').selectOption('price_low');
    await listed;
    await page.getByText('Page 1 of 2').waitFor();
    const page1 = await cardPrices(page);
    expect(page1).toHaveLength(15);
    expect(page1).toEqual([...page1].sort((a, b) => a - b));
    expect(page1[0]).toBe(50_000);
    await shoot(page, 'dashboard-filtered-desktop');

    // Next page continues the order.
    listed = waitForList(page, (q) => q.get('page') === '2');
    await page.getByRole('button', { name: 'Next' }).click();
    await listed;
    await page.getByText('Page 2 of 2').waitFor();
    const page2 = await cardPrices(page);
    expect(page2).toHaveLength(7);
    expect(page2[0]!).toBeGreaterThanOrEqual(page1.at(-1)!);
    expect(page2.at(-1)).toBe(150_000);
    const dashboardUrl = page.url();
    expect(new URL(dashboardUrl).search).toBe('?category=1&min_price=50000&max_price=150000&sort_by=price_low&page=2');

    // Open a deal.
    const firstCard = page.getByTestId('deal-card').first();
    const title = (await firstCard.getByRole('heading').textContent())!;
    await firstCard.getByRole('link', { name: /View details/ }).click();
    await page.waitForURL('**/deal/**');
    await page.getByRole('heading', { level: 1, name: title }).waitFor();
    await page.getByText('Equipment Details').waitFor();

    // Back to Dashboard keeps filters, sort and page.
    await page.getByRole('link', { name: 'Back to Dashboard' }).click();
    await page.waitForURL(dashboardUrl);
    await page.getByText('Page 2 of 2').waitFor();
    await expect(cardPrices(page)).resolves.toEqual(page2);

    // And so does the browser's back button.
    await page.getByTestId('deal-card').nth(1).getByRole('link', { name: /View details/ }).click();
    await page.waitForURL('**/deal/**');
    await page.goBack();
    await page.waitForURL(dashboardUrl);
    await page.getByText('Page 2 of 2').waitFor();
    await expect(page.getByLabel('Min Price').inputValue()).resolves.toBe('50000');

    // The featured deal: valuation, comparables, the locked (free plan) price history.
    await page.goto(`/deal/${featuredSlug}`);
    await page.getByRole('heading', { level: 1, name: 'Caterpillar 320 GC' }).waitFor();
    await page.getByText('2018 • 4,210 hours • Like New').waitFor();
    await page.getByText('90 • Excellent Deal').waitFor();
    await expect(page.getByTestId('deal-price').textContent()).resolves.toBe('$84,500');
    await page.getByText('5h left').or(page.getByText('4h left')).first().waitFor();
    await page.getByText('3 images available').waitFor();
    await page.getByRole('button', { name: 'Next image' }).click();
    await page.getByRole('img', { name: /image 2 of 3/ }).waitFor();
    await page.getByText('$103,000').waitFor();
    await page.getByText('18% below fair value').waitFor();
    await expect(page.getByTestId('market-level').textContent()).resolves.toBe('Market level of May 2023, the latest sales we hold.');
    await expect(page.getByRole('link', { name: /2017 Caterpillar 320/ }).getAttribute('href')).resolves.toBe('http://127.0.0.1/sold/1');
    const locked = page.getByTestId('price-history-locked');
    await locked.waitFor();
    await expect(locked.getByRole('link', { name: 'Upgrade to Premium' }).getAttribute('href')).resolves.toBe('/account?tab=billing');
    await expect(page.getByRole('link', { name: /View Original Auction/ }).getAttribute('target')).resolves.toBe('_blank');
    await shootBoth(page, 'deal-detail');
    // tall enough for the fair value, its range and the comparables: why the score is what it is
    await shootForDocs(page, 'deal-page', 1240);

    // Unknown deal.
    await page.goto('/deal/no-such-lot');
    await page.getByRole('heading', { name: 'Deal Not Found' }).waitFor();
    await shootBoth(page, 'deal-not-found');

    // Mobile: one column and the collapsible menu.
    await page.setViewportSize(DESKTOP);
    await page.goto('/dashboard');
    await page.getByText('51 deals found').waitFor();
    await shootForDocs(page, 'dashboard');
    await page.setViewportSize(MOBILE);
    await page.goto('/dashboard');
    await page.getByText('51 deals found').waitFor();
    const [a, b] = await page.getByTestId('deal-card').evaluateAll((els) => els.slice(0, 2).map((e) => e.getBoundingClientRect().left));
    expect(a).toBe(b);
    await page.getByRole('button', { name: 'Open menu' }).click();
    await page.locator('#mobile-menu').getByRole('link', { name: 'Alerts' }).waitFor();
    await shoot(page, 'nav-mobile-menu-mobile', false);
    await page.getByRole('button', { name: 'Close menu' }).click();
    // Filters fold away on small screens.
    await expect(page.getByLabel('Category').isVisible()).resolves.toBe(false);
    await page.getByRole('button', { name: 'Show Filters' }).click();
    await page.getByLabel('Category').waitFor();
    await shoot(page, 'dashboard-filters-open-mobile', false);
    await page.setViewportSize(DESKTOP);
    await page.goto('/dashboard');
    await page.getByRole('button', { name: /Account menu for Dana Miller/ }).click();
    await page.getByRole('menuitem', { name: 'Billing' }).waitFor();
    await shoot(page, 'nav-avatar-menu-desktop', false);
    await page.keyboard.press('Escape');

    // Landing page, signed in.
    await page.goto('/');
    await page.getByText('Welcome, Dana').waitFor();
    await shootBoth(page, 'landing-signed-in');
  }, 120_000);

  it('an expired access token is refreshed silently (rotated refresh token stored)', async () => {
    expect(signedUpAt).toBeGreaterThan(0);
    const page = contexts.at(-1)!.pages()[0]!;
    const refreshBefore = await page.evaluate(() => localStorage.getItem('refresh_token'));
    const accessBefore = await page.evaluate(() => localStorage.getItem('access_token'));
    const wait = signedUpAt + (ACCESS_TTL_SECONDS + 2) * 1000 - Date.now();
    if (wait > 0) await page.waitForTimeout(wait);

    const seen: string[] = [];
    page.on('response', (r) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith('/api/auth/')) seen.push(`${r.request().method()} ${path} ${r.status()}`);
    });
    await page.goto('/dashboard');
    await page.getByRole('heading', { name: 'Equipment Deals' }).waitFor();
    await page.getByRole('button', { name: /Account menu for Dana Miller/ }).waitFor();
    expect(seen).toEqual(['GET /api/auth/profile/ 401', 'POST /api/auth/token/refresh/ 200', 'GET /api/auth/profile/ 200']);
    expect(page.url()).toMatch(/\/dashboard$/);
    const refreshAfter = await page.evaluate(() => localStorage.getItem('refresh_token'));
    const accessAfter = await page.evaluate(() => localStorage.getItem('access_token'));
    expect(refreshAfter).toBeTruthy();
    expect(refreshAfter).not.toBe(refreshBefore);
    expect(accessAfter).not.toBe(accessBefore);

    // Logout goes home signed out.
    await page.getByRole('button', { name: /Account menu for Dana Miller/ }).click();
    await page.getByRole('menuitem', { name: 'Logout' }).click();
    await page.waitForURL(`${stack.url}/`);
    await page.getByRole('link', { name: 'Get Started' }).waitFor();
    await expect(page.evaluate(() => localStorage.getItem('access_token'))).resolves.toBeNull();
  }, 90_000);

  it('a 401 in the middle of a session (client-side navigation) refreshes silently and the page loads', async () => {
    const page = await newPage();
    await page.goto('/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL('**/dashboard');
    const signedInAt = Date.now();
    await page.getByText('51 deals found').waitFor();
    const refreshBefore = await page.evaluate(() => localStorage.getItem('refresh_token'));

    // The access token expires while the app stays open; the next signed-in call gets a 401.
    await page.waitForTimeout(signedInAt + (ACCESS_TTL_SECONDS + 2) * 1000 - Date.now());
    const seen: string[] = [];
    page.on('response', (r) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith('/api/auth/') || path.startsWith('/api/subscriptions/')) seen.push(`${r.request().method()} ${path} ${r.status()}`);
    });
    // The locked chart shows as soon as the page renders (unknown plan = free), so wait for the
    // retried status call itself before reading what was seen.
    const retried = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/subscriptions/status/' && r.status() === 200);
    await page.getByTestId('deal-card').first().getByRole('link', { name: /View details/ }).click();
    await page.getByRole('heading', { level: 1, name: 'Caterpillar 320 GC' }).waitFor();
    await page.getByTestId('price-history-locked').waitFor();
    await retried;
    // The deal page's status call got a 401, one refresh followed, and the call was retried. The
    // app may refetch the profile meanwhile (its query goes stale on navigation); that call shares
    // the same refresh, so what must hold is: one refresh, every 401 before it, retried after it.
    // (On a loaded machine the new short-lived token may be renewed again later: only the
    // refreshes up to the retry count.)
    const refreshAt = seen.indexOf('POST /api/auth/token/refresh/ 200');
    expect(refreshAt, seen.join(', ')).toBeGreaterThan(0);
    const retriedAt = seen.indexOf('GET /api/subscriptions/status/ 200', refreshAt);
    expect(seen.slice(0, retriedAt).filter((s) => s.startsWith('POST /api/auth/token/refresh/')), seen.join(', ')).toHaveLength(1);
    expect(seen.slice(0, refreshAt), seen.join(', ')).toContain('GET /api/subscriptions/status/ 401');
    expect(seen.slice(refreshAt + 1), seen.join(', ')).toContain('GET /api/subscriptions/status/ 200');
    for (const failed of seen.slice(0, refreshAt).filter((s) => s.endsWith(' 401'))) expect(seen.slice(refreshAt + 1), seen.join(', ')).toContain(failed.replace(/ 401$/, ' 200'));
    expect(seen.slice(refreshAt + 1).filter((s) => s.endsWith(' 401')), seen.join(', ')).toEqual([]);
    expect(page.url()).toContain(`/deal/${featuredSlug}`);
    await expect(page.evaluate(() => localStorage.getItem('refresh_token'))).resolves.not.toBe(refreshBefore);
  }, 90_000);

  it('a signed-out visitor is sent to /login and returned to the page they asked for', async () => {
    const page = await newPage(MOBILE);
    await page.goto(`/deal/${featuredSlug}`);
    await page.waitForURL('**/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill('wrong-password-1');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByText('Login Failed').waitFor();
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL(`**/deal/${featuredSlug}`);
    await page.getByText('Login Successful').waitFor();
    await page.getByRole('heading', { level: 1, name: 'Caterpillar 320 GC' }).waitFor();
  }, 60_000);

  it('near a ZIP code: distances on the cards, a radius, nearest first, and the price delivered on the deal page', async () => {
    const page = await newPage();
    await page.goto('/login');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL('**/dashboard');
    await page.getByText('51 deals found').waitFor();

    // Des Moines, Iowa: every card now says how far it is.
    let listed = waitForList(page, (q) => q.get('near') === '50309');
    await page.getByLabel('Near ZIP').fill('50309');
    await page.getByRole('button', { name: 'Apply Filters' }).click();
    await listed;
    await expect.poll(() => page.getByTestId('card-distance').count()).toBe(15);
    const distances = await page.getByTestId('card-distance').allTextContents();
    expect(distances.every((t) => /^Distance: about [\d,]+ mi from 50309$/.test(t.trim()))).toBe(true);

    // Within 300 miles: only the 8 lots in Des Moines (Denver, Dallas, Columbus, Atlanta, Houston are farther).
    listed = waitForList(page, (q) => q.get('radius_miles') === '300');
    await page.getByLabel('Within').selectOption('300');
    await page.getByRole('button', { name: 'Apply Filters' }).click();
    await listed;
    await page.getByText('8 deals found').waitFor();
    expect(new URL(page.url()).searchParams.get('radius_miles')).toBe('300');
    expect(new URL(page.url()).searchParams.get('near')).toBe('50309');
    await expect.poll(() => page.getByTestId('card-distance').count()).toBe(8);
    for (const t of await page.getByTestId('card-distance').allTextContents()) expect(t.trim()).toMatch(/^Distance: about \d mi from 50309$/);

    // Any distance, nearest first: Des Moines' lots lead, Houston's featured excavator is not first.
    // The sort is chosen at once after Apply, before the list has rendered: it must build on the
    // applied filters (the radius removed), not on the URL the page last rendered.
    listed = waitForList(page, (q) => q.get('sort_by') === 'distance' && !q.has('radius_miles'));
    await page.getByLabel('Within').selectOption('');
    await page.getByRole('button', { name: 'Apply Filters' }).click();
    await page.getByLabel('Sort by').selectOption('distance');
    await listed;
    await expect.poll(async () => (await page.getByTestId('card-distance').first().textContent())?.trim()).toMatch(/^Distance: about \d mi from 50309$/);
    await shoot(page, 'dashboard-near-desktop');

    // Every card says what it costs delivered to 50309; at most $60,000 delivered, cheapest first.
    await expect.poll(() => page.getByTestId('card-delivered').count()).toBe(15);
    const deliveredHigh = async () =>
      (await page.getByTestId('card-delivered').allTextContents()).map((t) => {
        const m = /^Delivered: ≈ \$([\d,]+)(?:–\$([\d,]+))? delivered$/.exec(t.trim());
        expect(m, t).not.toBeNull();
        return Number((m![2] ?? m![1]!).replace(/,/g, ''));
      });
    expect((await deliveredHigh()).some((high) => high > 60_000)).toBe(true);
    listed = waitForList(page, (q) => q.get('max_delivered') === '60000' && q.get('sort_by') === 'distance');
    await page.getByLabel('Max delivered $').fill('60000');
    await page.getByRole('button', { name: 'Apply Filters' }).click();
    const capped = (await (await listed).json()) as { data: { pagination: { total_count: number } } };
    expect(capped.data.pagination.total_count).toBeGreaterThan(0);
    expect(capped.data.pagination.total_count).toBeLessThan(51);
    await page.getByText(`${capped.data.pagination.total_count} deals found`).waitFor();
    expect(new URL(page.url()).searchParams.get('max_delivered')).toBe('60000');
    await expect.poll(async () => (await deliveredHigh()).length).toBeGreaterThan(0);
    expect((await deliveredHigh()).every((high) => high <= 60_000)).toBe(true);
    listed = waitForList(page, (q) => q.get('sort_by') === 'delivered' && q.get('max_delivered') === '60000');
    await page.getByLabel('Sort by').selectOption('delivered');
    await listed;
    await expect.poll(async () => {
      const highs = await deliveredHigh();
      return highs.length > 0 && highs.every((h, i) => i === 0 || highs[i - 1]! <= h);
    }).toBe(true);
    await shoot(page, 'dashboard-delivered-desktop');

    // The featured excavator from Houston: its distance and the price delivered to 50309.
    await page.goto(`/deal/${featuredSlug}?near=50309`);
    await page.getByRole('heading', { level: 1, name: 'Caterpillar 320 GC' }).waitFor();
    await page.getByTestId('delivered').waitFor();
    await expect(page.getByTestId('deal-distance').textContent()).resolves.toMatch(/^about [\d,]+ mi from 50309$/);
    const delivered = page.getByTestId('delivered');
    await delivered.getByText('Delivered to 50309').waitFor();
    await delivered.getByText('$84,500').waitFor();
    await delivered.getByText('Not stated').waitFor();
    // A 20-ton excavator ~800 miles away (~960 road miles) on a lowboy at $4–6 a mile.
    const haul = (await page.getByTestId('delivered-haul').textContent())!;
    const [low, high] = haul.split('–').map((t) => Number(t.replace(/[^0-9]/g, '')));
    expect(low).toBeGreaterThan(3000);
    expect(high).toBeGreaterThan(low!);
    const total = (await page.getByTestId('delivered-total').textContent())!;
    expect(total.split('–').map((t) => Number(t.replace(/[^0-9]/g, '')))).toEqual([84_500 + low!, 84_500 + high!]);
    await expect(delivered.textContent()).resolves.toContain('lowboy');
    await shoot(page, 'deal-delivered-desktop');
  }, 90_000);
});
