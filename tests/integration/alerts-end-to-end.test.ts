/**
 * The demo's promise end to end, every stage real: a buyer creates an alert through the API; the
 * demo auction site (127.0.0.1) publishes an underpriced lot of that type; the crawler stores it
 * and queues scoring; the scorer values it with a model trained on the Fast Iron sales and queues
 * a match; the matcher and the notifier leave exactly one e-mail in the outbox, saying why the lot
 * matched. The alert turned off, the next such lot sends nothing.
 */
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listings } from '../../db/schema/index.js';
import { importSalesCommand } from '../../scripts/cli/import-sales-command.js';
import type { DemoLot } from '../../scripts/demo-site/demo-auction.js';
import type { DemoSite } from '../../scripts/demo-site/demo-server.js';
import type { ApiApp } from '../../services/api/app.js';
import { badgeScore } from '../../services/alerts/alert-matching.js';
import { dealScoreText, formatUsd } from '../../services/alerts/alert-messages.js';
import { startCrawlWorker } from '../../services/crawler/index.js';
import { startMatcher } from '../../services/matcher/index.js';
import { startNotifier } from '../../services/notifier/index.js';
import { startScorer } from '../../services/scorer/index.js';
import { trainAndStoreModel } from '../../services/scorer/train-model.js';
import { CATEGORIES } from '../../services/shared/categories.js';
import { listMessages } from '../../services/shared/repositories/outbox-repository.js';
import type { ServiceHandle } from '../../services/shared/service.js';
import { bearer, registerUser } from '../support/accounts.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';
import { crawlDemoAndSettle, startTestDemoSite } from '../support/crawl-harness.js';
import { waitFor } from '../support/wait.js';

const SALES = path.resolve(process.env.SHARED_DIR ?? '../shared', 'data/bulldozers/Train_first10931rows.csv.gz');

describe('alert end to end: demo site → crawl → score → match → outbox', () => {
  let site: DemoSite;
  let app: ApiApp;
  let ctx: TestContext;
  let close: () => Promise<void>;
  const services: Array<Pick<ServiceHandle, 'stop'>> = [];

  beforeAll(async () => {
    site = await startTestDemoSite({ lots: 40, publishedShare: 0.6 });
    ({ app, ctx, close } = await createTestApp({ env: { CRAWL_SOURCES: 'demo', DEMO_SITE_URL: site.url, CRAWL_CONCURRENCY: '4', CRAWL_TIMEOUT_MS: '5000' } }));
    expect(await importSalesCommand.run(ctx, ['--format', 'fastiron', SALES])).toBe(0);
    // A quicker fit than production (fewer trees) keeps the test short; the path is the same.
    await trainAndStoreModel(ctx.database.db, { params: { trees: 80, learningRate: 0.12 } });
    services.push(await startCrawlWorker(ctx), await startScorer(ctx), await startMatcher(ctx), await startNotifier(ctx));
  }, 300_000);

  afterAll(async () => {
    for (const s of services.reverse()) await s.stop();
    await close?.();
    await site?.close();
  });

  // Closing in six demo hours: an auction's low bid is a deal in its last hours (deal-score.ts).
  async function publish(lot: DemoLot, price: number): Promise<void> {
    const res = await fetch(`${site.url}/_control/publish`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ lot_id: lot.id, price, hours_left: 6 }) });
    expect(res.status).toBe(201);
  }

  it('one e-mail with why it matched; turned off, nothing more', async () => {
    await crawlDemoAndSettle(ctx); // the lots already on the site, before any alert exists

    // Two lots not yet published, of one equipment type the sales history knows well.
    const now = site.auction.now();
    // Fast Iron machines: the sales history the model learned from.
    // Soonest to close first: a low bid days before the close is not yet a deal (deal-score.ts).
    const upcoming = site.auction.lots.filter((l) => l.publishAt > now && l.machine.origin === 'fastiron').sort((a, b) => a.endsAt - b.endsAt);
    // The soonest-closing lot of a type with a second upcoming lot: how soon it closes decides
    // whether a plainly low price is already a good deal.
    const categoryId = upcoming.find((l) => [1, 2, 3, 4, 5, 10].includes(l.machine.categoryId) && upcoming.filter((o) => o.machine.categoryId === l.machine.categoryId).length >= 2)?.machine.categoryId;
    expect(categoryId, 'two upcoming lots of one type').toBeDefined();
    const [first, second] = upcoming.filter((l) => l.machine.categoryId === categoryId);
    const equipmentType = CATEGORIES.find((c) => c.id === categoryId)!.name;

    const buyer = await registerUser(app);
    const created = await app.inject({ method: 'POST', url: '/api/alerts/', headers: bearer(buyer.access_token), payload: { equipment_type: equipmentType } });
    expect(created.statusCode).toBe(201);
    const alertId = created.json().data.id as number;

    // The site lists a lot far under its market value (the test's quick model values machines
    // roughly, so "underpriced" must be plain enough for it too).
    const price = Math.round(first!.machine.marketValue * 0.2);
    await publish(first!, price);
    await crawlDemoAndSettle(ctx);

    const [stored] = await ctx.database.db.select().from(listings).where(eq(listings.externalId, first!.id));
    expect(stored, 'the crawler stored the published lot').toBeDefined();
    expect(stored!.dealScore, 'the scorer valued it').not.toBeNull();
    const valuation = JSON.stringify({ price: stored!.priceUsd, fair: stored!.fairValue, low: stored!.valueLow, high: stored!.valueHigh, market: first!.machine.marketValue, title: stored!.title, origin: first!.machine.origin, confidence: stored!.valuationConfidence });
    // Underpriced: a good deal or better (badge 60+), what an alert notifies by default.
    expect(badgeScore(stored!.dealScore!), valuation).toBeGreaterThanOrEqual(60);
    // The batch's sent mark is group-committed: wait for it rather than catch it mid-write.
    const mails = await waitFor(async () => {
      const found = (await listMessages(ctx.database.db, { to: buyer.user.email })).filter((m) => m.kind === 'alert');
      return found.length > 0 && found.every((m) => m.status !== 'queued' && m.status !== 'sending') ? found : undefined;
    }, 30_000, 'the alert e-mail to be sent');
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail.status).toBe('sent');
    expect(mail.subject).toContain(stored!.title);
    expect(mail.textBody).toContain(`A listing matches your ${equipmentType} alert.`);
    expect(mail.textBody).toContain(`Price: ${formatUsd(stored!.priceUsd!)}`);
    expect(mail.textBody).toContain(`Deal score: ${dealScoreText(stored!.dealScore)}`);
    expect(mail.textBody).toContain(`Fair value: ${formatUsd(stored!.fairValue!)}`);
    expect(mail.textBody).toMatch(/Time left: \d+h( \d+m)?/);
    expect(mail.textBody).toContain(`View the deal: http://localhost:8080/deal/${stored!.slug}`);
    expect(mail.textBody).toContain('Turn this alert off: http://localhost:8080/api/alerts/unsubscribe/?token=');

    // Crawling again changes nothing: still one e-mail.
    await crawlDemoAndSettle(ctx);
    expect((await listMessages(ctx.database.db, { to: buyer.user.email })).filter((m) => m.kind === 'alert')).toHaveLength(1);

    // Turned off: the next underpriced lot of that type sends nothing.
    const off = await app.inject({ method: 'PATCH', url: `/api/alerts/${alertId}/`, headers: bearer(buyer.access_token), payload: { is_active: false } });
    expect(off.json().data.is_active).toBe(false);
    await publish(second!, Math.round(second!.machine.marketValue * 0.2));
    await crawlDemoAndSettle(ctx);
    const [next] = await ctx.database.db.select().from(listings).where(eq(listings.externalId, second!.id));
    expect(next?.scoredAt, 'the second lot went through scoring').toBeTruthy();
    expect((await listMessages(ctx.database.db, { to: buyer.user.email })).filter((m) => m.kind === 'alert')).toHaveLength(1);
    const [{ n }] = (await ctx.database.db.execute(sql`SELECT count(*)::int AS n FROM alert_notifications WHERE alert_id = ${alertId}`)) as unknown as [{ n: number }];
    expect(n).toBe(1);
  }, 400_000);
});
