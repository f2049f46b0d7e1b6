/**
 * The watchlist in the system Chromium against the real built app, API, PostgreSQL, queues,
 * matcher and notifier (issue 31): a signed-out visitor presses Watch on a deal page, signs in and
 * comes back to it → watches a lot from a dashboard card → sees both on the Watchlist (open lots
 * by time left) and changes a reminder → the scheduler's watch tick sends the reminder of the lot
 * closing within the hour, read in the outbox → the lot closes and the Watchlist shows its final
 * price beside our fair value. The Watchlist is shot and axe-scanned in both themes.
 * Bid limits (issue 38): a lot scored by the scorer's own path shows its price bar and "Bid up to"
 * line on the deal page (phone width, both themes, axe), a Premium buyer watches it with the Good
 * limit as the default maximum, then values a machine on What is it worth (/value).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMatcher } from '../../services/matcher/index.js';
import { WATCH_SCHEDULES } from '../../services/matcher/watch-schedule.js';
import { startNotifier } from '../../services/notifier/index.js';
import { listMessages } from '../../services/shared/repositories/outbox-repository.js';
import type { ServiceHandle } from '../../services/shared/service.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';
import { waitFor } from '../support/wait.js';
import { launchChromium, screenshotPath, startWebStack, type WebStack } from '../support/web-stack.js';
import { registerUser, STRONG_PASSWORD } from '../support/accounts.js';
import { importSalesCommand } from '../../scripts/cli/import-sales-command.js';
import { ModelStore } from '../../services/scorer/model-store.js';
import { scoreAndWrite } from '../../services/scorer/score-batch.js';
import { trainAndStoreModel } from '../../services/scorer/train-model.js';
import { startFakeStripe, type FakeStripe } from '../support/fake-stripe.js';
import { makePremium, premiumEnv } from '../support/premium.js';

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's default rules on the current screen, light and dark: no serious or critical violation. */
async function accessible(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForFunction((dark) => document.documentElement.classList.contains('dark') === dark, scheme === 'dark');
    await page.waitForFunction(() => document.querySelectorAll('[data-sonner-toast]').length === 0, null, { timeout: 15_000 });
    await page.waitForTimeout(500);
    await page.screenshot({ path: screenshotPath(`watchlist-${name}-${scheme}`), fullPage: true });
    if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
    const violations = (await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(ctx: Document, opts: unknown): Promise<{ violations: Array<{ id: string; impact: string | null; help: string }> }> } }).axe;
      return (await axe.run(document, {})).violations;
    })) as Array<{ id: string; impact: string | null; help: string }>;
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`), `${name} (${scheme})`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

let stack: WebStack;
let browser: Browser;
let context: BrowserContext;
let services: ServiceHandle[] = [];
let lots: Array<{ id: number; slug: string; title: string; externalId: string }>;
let source: { id: number; name: string };
let stripe: FakeStripe;

beforeAll(async () => {
  stripe = await startFakeStripe();
  stack = await startWebStack({ env: premiumEnv(stripe) });
  const db = stack.ctx.database.db;
  source = await insertSource(db, 'watchsite', 'Watch Site');
  const MIN = 60_000;
  lots = await insertListings(db, source, [
    // Closes in 40 minutes: with the default 1-hour reminder, due at once.
    { title: 'Caterpillar 320F Excavator', make: 'Caterpillar', model: '320F', currentBid: 30_000, fairValue: 46_600, dealScore: 760, auctionEndAt: new Date(Date.now() + 40 * MIN) },
    { title: 'Komatsu D61PX Dozer', make: 'Komatsu', model: 'D61PX', currentBid: 55_000, fairValue: 70_000, dealScore: 640, auctionEndAt: new Date(Date.now() + 3 * 24 * 60 * MIN) },
  ]);
  services = [await startMatcher(stack.ctx), await startNotifier(stack.ctx)];
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1366, height: 900 }, baseURL: stack.url });
  await context.route(/^(?!http:\/\/127\.0\.0\.1[:/])/, (route) => route.abort());
}, 180_000);

afterAll(async () => {
  await context?.close().catch(() => {});
  await browser?.close().catch(() => {});
  for (const s of services.reverse()) await s.stop();
  await stack?.close();
  await stripe?.close();
});

describe('watchlist journey', () => {
  it('watch from a deal page (via sign in) and a card → the Watchlist → the reminder in the outbox → how it ended', async () => {
    const db = stack.ctx.database.db;
    const user = await registerUser(stack.app);
    const page = await context.newPage();

    // Signed out on a deal page: the product asks to sign in and comes back to the deal.
    await page.goto(`/deal/${lots[1]!.slug}`);
    await page.waitForURL('**/login');
    await page.getByLabel('Email').fill(user.user.email);
    await page.getByLabel('Password', { exact: true }).fill(STRONG_PASSWORD);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL(`**/deal/${lots[1]!.slug}`);
    await page.getByRole('button', { name: 'Watch: Komatsu D61PX' }).click();
    await page.getByRole('button', { name: 'Stop watching: Komatsu D61PX' }).waitFor();

    // Watch from a dashboard card.
    await page.goto('/dashboard');
    const card = page.getByTestId('deal-card').filter({ hasText: 'Caterpillar 320F' });
    await card.getByRole('button', { name: 'Watch: Caterpillar 320F' }).click();
    await card.getByRole('button', { name: 'Stop watching: Caterpillar 320F' }).waitFor();

    // The Watchlist: open lots by time left, each with its reminder.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Watchlist' }).click();
    await page.getByRole('heading', { name: 'Watchlist' }).waitFor();
    const open = page.getByTestId('watched-open');
    await expect.poll(() => open.count()).toBe(2);
    expect(await open.first().textContent()).toContain('Caterpillar 320F');
    const dozerReminder = page.getByLabel('Remind me', { exact: true }).nth(1);
    expect(await dozerReminder.inputValue()).toBe('60');
    await dozerReminder.selectOption('1440');
    await page.getByText('Reminder updated').first().waitFor();
    await accessible(page, 'open');
    const [dozer] = (await db.execute(sql`SELECT remind_before_minutes FROM watched_lots WHERE listing_id = ${lots[1]!.id}`)) as unknown as Array<{ remind_before_minutes: number }>;
    expect(dozer!.remind_before_minutes).toBe(1440);

    // The scheduler's tick: the excavator closes within the hour, so its reminder goes out.
    await WATCH_SCHEDULES[0]!.tick(stack.ctx, 'e2e');
    const reminder = await waitFor(async () => {
      const found = (await listMessages(db, { to: user.user.email })).filter((m) => m.kind === 'watch_reminder');
      return found.length === 1 && found[0]!.status === 'sent' ? found[0] : undefined;
    }, 30_000, 'the reminder e-mail to be sent');
    expect(reminder!.subject).toMatch(/^Closes in (39|40) minutes: Caterpillar 320F Excavator — now \$30,000$/);

    // It sells for $41,000: the Watchlist puts the final price beside our fair value.
    await db.transaction(async (tx) => {
      await tx.execute(sql`UPDATE listings SET status = 'sold', current_bid = 41000, price = 41000, price_usd = 41000 WHERE id = ${lots[0]!.id}`);
      await tx.execute(sql`INSERT INTO sold_results (origin, external_id, listing_id, title, category_id, sold_at, price) VALUES ('crawl:watchsite', ${lots[0]!.externalId}, ${lots[0]!.id}, ${lots[0]!.title}, 11, now(), 41000)`);
    });
    await page.reload();
    const closed = page.getByTestId('watched-closed');
    await closed.waitFor();
    expect(await closed.textContent()).toContain('Sold for $41,000 — 12% under our fair value of $46,600');
    await accessible(page, 'closed');
    await WATCH_SCHEDULES[0]!.tick(stack.ctx, 'e2e-2');
    await waitFor(async () => {
      const found = (await listMessages(db, { to: user.user.email })).filter((m) => m.kind === 'watch_closed' && m.status === 'sent');
      return found.length === 1 ? found : undefined;
    }, 30_000, 'the closing e-mail to be sent');
  }, 120_000);

  it('bid limits: the deal page\u2019s price bar and line (phone width, both themes), watched with the Good limit, then What is it worth', async () => {
    const db = stack.ctx.database.db;
    expect(await importSalesCommand.run(stack.ctx, ['--format', 'fastiron', path.resolve(process.env.SHARED_DIR ?? '../shared', 'data/bulldozers/Train_first10931rows.csv.gz')])).toBe(0);
    await trainAndStoreModel(db, { params: { trees: 60, learningRate: 0.15 } });
    const [lot] = await insertListings(db, source, [
      { title: '2002 Caterpillar 416D backhoe', categoryId: 4, make: 'Caterpillar', model: '416D', year: 2002, hours: 4000, state: 'TX', currentBid: 2_000, buyersPremiumPct: 10, bidCount: 4, auctionEndAt: new Date(Date.now() + 10 * 3_600_000) },
    ]);
    // scored as the scorer scores: the limits are stored with the score
    await scoreAndWrite(stack.ctx, new ModelStore(db), [lot!.id]);
    const detail = (await stack.app.inject({ method: 'GET', url: `/api/auctions/detail/${lot!.id}/` })).json().data;
    const limits = detail.bid_limits;
    expect(limits.good).toBeGreaterThan(2_000);
    expect(limits.excellent).toBeGreaterThan(0);

    const user = await registerUser(stack.app);
    await makePremium(stack.app, stripe, user.access_token);
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, baseURL: stack.url });
    await phone.route(/^(?!http:\/\/127\.0\.0\.1[:/])/, (route) => route.abort());
    const page = await phone.newPage();
    await page.goto('/login');
    await page.getByLabel('Email').fill(user.user.email);
    await page.getByLabel('Password', { exact: true }).fill(STRONG_PASSWORD);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL('**/dashboard');

    // The deal page: the line, the bar's four bands in dollars, the current bid marked in its band.
    await page.goto(`/deal/${lot!.slug}`);
    const card = page.getByTestId('bid-limits');
    await card.waitFor();
    const usd = (n: number) => `$${n.toLocaleString('en-US')}`;
    expect(await page.getByTestId('bid-limits-line').textContent()).toBe(`Bid up to ${usd(limits.good)} for a Good deal (19 in 20 similar machines sold for more); ${usd(limits.excellent)} for Excellent`);
    expect(await page.getByTestId('band-poor').textContent()).toContain(`${usd(limits.poor)}+`);
    expect(await page.getByTestId('band-good').textContent()).toContain(`${usd(limits.excellent + 1)}–${usd(limits.good)}`);
    expect(await page.getByTestId('band-excellent').textContent()).toContain(`up to ${usd(limits.excellent)}`);
    expect(await page.getByTestId('band-excellent').getByTestId('bar-current').textContent()).toContain('now $2,000');
    // nothing wider than the phone's screen
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await accessible(page, 'deal-bid-limits-phone');

    // Watched with the default: the Good limit is the maximum, and follows it.
    await page.getByRole('button', { name: /^Watch: / }).first().click();
    await page.getByRole('button', { name: /^Stop watching: / }).first().waitFor();
    await page.goto('/watchlist');
    const good = page.getByTestId('watch-good-price');
    await good.waitFor();
    expect(await good.textContent()).toBe(`Remind me while the bid is under my Good price: ${usd(limits.good)}`);
    expect(await good.getByRole('checkbox').isChecked()).toBe(true);
    const [row] = (await db.execute(sql`SELECT max_price::float8 AS m, max_price_follows_good AS f FROM watched_lots WHERE listing_id = ${lot!.id}`)) as unknown as Array<{ m: number; f: boolean }>;
    expect(row).toEqual({ m: limits.good, f: true });

    // What is it worth, from the navigation: a machine that is not listed.
    await page.getByRole('button', { name: 'Open menu' }).click();
    await page.getByRole('link', { name: 'What is it worth' }).first().click();
    await page.getByRole('heading', { name: 'What is it worth?' }).waitFor();
    await page.getByLabel('Equipment type').selectOption({ label: 'Backhoe Loaders' });
    await page.getByLabel('Make').fill('Caterpillar');
    await page.getByLabel('Model').fill('416D');
    await page.getByLabel('Year').fill('2002');
    await page.getByLabel('Hours').fill('4000');
    await page.getByLabel('ZIP code').fill('75201');
    await page.getByRole('button', { name: 'Value it' }).click();
    const estimate = page.getByTestId('estimate');
    await estimate.waitFor();
    const api = (await stack.app.inject({ method: 'GET', url: '/api/valuation/estimate/?category=4&make=Caterpillar&model=416D&year=2002&hours=4000&zip=75201', remoteAddress: '10.9.9.9' })).json().data;
    expect(await page.getByTestId('estimate-fair-value').textContent()).toBe(usd(api.valuation.fair_value));
    expect(await estimate.getByTestId('bid-limits-line').textContent()).toBe(api.bid_limits.line);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await accessible(page, 'value-phone');
    await phone.close();
  }, 480_000);
});
