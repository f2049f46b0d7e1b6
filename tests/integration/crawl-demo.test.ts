/**
 * Crawling the demo auction site through the whole pipeline (real fetcher over 127.0.0.1, real
 * PostgreSQL, real queue): every visible lot stored once however often it is crawled, price
 * history grows when a bid changes, closed lots become sold results, scoring is enqueued for
 * every stored change, and the run's stats and the source's health are recorded.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoSite } from '../../scripts/demo-site/demo-server.js';
import { startCrawlWorker } from '../../services/crawler/index.js';
import { requestCrawl, waitForRun } from '../../services/crawler/crawl-requests.js';
import { createCrawlTestContext, startTestDemoSite } from '../support/crawl-harness.js';
import type { TestContext } from '../support/context.js';

let site: DemoSite;
let ctx: TestContext;
let crawler: Awaited<ReturnType<typeof startCrawlWorker>>;

beforeAll(async () => {
  site = await startTestDemoSite({ lots: 60 });
  ctx = await createCrawlTestContext(site.url);
  crawler = await startCrawlWorker(ctx);
});

afterAll(async () => {
  await crawler?.stop();
  await ctx?.close();
  await site?.close();
});

async function count(query: ReturnType<typeof sql>): Promise<number> {
  const rows = await ctx.database.db.execute<{ n: number }>(query);
  return Number(rows[0]!.n);
}

describe('crawling the demo site', () => {
  it('stores every visible lot once, with its fields, and enqueues scoring for each', async () => {
    const visible = site.auction.visible();
    expect(visible.length).toBeGreaterThan(24); // more than one list page

    const run = await waitForRun(ctx, (await requestCrawl(ctx, 'demo')).id, { timeoutMs: 60_000 });
    expect(run.outcome).toBe('ok');
    expect(run.lotsNew).toBe(visible.length);
    expect(run.errors).toBe(0);
    expect(run.pages).toBe(Math.ceil(visible.length / 24) + visible.length);

    expect(await count(sql`SELECT count(*) AS n FROM listings`)).toBe(visible.length);
    expect(await count(sql`SELECT count(*) AS n FROM price_observations`)).toBe(visible.length);

    // One lot, field by field, against the demo site's own view of it.
    const view = visible.find((v) => v.state === 'open' && v.bidCount > 0 && v.lot.machine.hours !== null)!;
    const [row] = await ctx.database.db.execute<Record<string, unknown>>(
      sql`SELECT l.*, (SELECT count(*) FROM listing_images i WHERE i.listing_id = l.id)::int AS images FROM listings l WHERE external_id = ${view.lot.id}`,
    );
    expect(row).toMatchObject({
      title: view.lot.machine.title,
      year: view.lot.machine.year,
      hours: view.lot.machine.hours,
      category_id: view.lot.machine.categoryId,
      state: view.lot.machine.state,
      status: 'open',
      bid_count: view.bidCount,
      original_url: `${site.url}/lots/${view.lot.id}`,
      image_count: view.lot.imageCount,
      images: view.lot.imageCount,
      first_image_url: `${site.url}/images/${view.lot.id}/1.svg`,
      currency: 'USD',
    });
    expect(Number(row!.price)).toBe(view.currentBid);
    expect(Number(row!.buyers_premium_pct)).toBe(view.lot.buyersPremiumPct);
    expect(new Date(row!.auction_end_at as string).getTime()).toBe(view.lot.endsAt);
    expect(row!.deal_score).toBeNull(); // the crawler never writes scores

    // Sold lots became sold results with their final price.
    const sold = visible.filter((v) => v.state === 'sold');
    expect(await count(sql`SELECT count(*) AS n FROM sold_results WHERE origin = 'crawl:demo'`)).toBe(sold.length);

    const scoreJobs = await ctx.queues.queue('score').getJobCounts('waiting', 'delayed', 'active', 'completed', 'failed');
    expect(Object.values(scoreJobs).reduce((a, b) => a + b, 0)).toBe(visible.length);

    const [source] = await ctx.database.db.execute<{ status: string; last_run_at: Date | null }>(sql`SELECT status, last_run_at FROM sources WHERE name = 'demo'`);
    expect(source!.status).toBe('ok');
    expect(source!.last_run_at).not.toBeNull();
  });

  it('stores nothing twice when crawled again, and enqueues no scoring for unchanged lots', async () => {
    const before = await count(sql`SELECT count(*) AS n FROM listings`);
    const scoreBefore = await ctx.queues.queue('score').count();
    for (let i = 0; i < 2; i++) {
      const run = await waitForRun(ctx, (await requestCrawl(ctx, 'demo')).id, { timeoutMs: 60_000 });
      expect(run.lotsNew).toBe(0);
      expect(run.lotsUpdated).toBe(0);
      expect(run.lotsUnchanged).toBe(before);
    }
    expect(await count(sql`SELECT count(*) AS n FROM listings`)).toBe(before);
    expect(await count(sql`SELECT count(*) AS n FROM price_observations`)).toBe(before);
    expect(await ctx.queues.queue('score').count()).toBe(scoreBefore);
  });

  it('re-checks only lots ending within 24 h on the ending-soon crawl', async () => {
    const endingSoon = await count(
      sql`SELECT count(*) AS n FROM listings WHERE status = 'open' AND auction_end_at > now() - interval '1 hour' AND auction_end_at <= now() + interval '24 hours'`,
    );
    expect(endingSoon).toBeGreaterThan(0);
    const run = await waitForRun(ctx, (await requestCrawl(ctx, 'demo', { reason: 'ending-soon' })).id, { timeoutMs: 60_000 });
    expect(run.stepsTotal).toBe(endingSoon);
  });

  it('grows price history when bids change, and records lots that closed as sold', async () => {
    const openWithTimeLeft = site.auction.visible().filter((v) => v.state === 'open');
    expect(openWithTimeLeft.length).toBeGreaterThan(0);
    site.auction.advance(3 * 24 * 3600_000); // three demo days: bids rise, some lots close
    const after = site.auction.visible();
    const changed = openWithTimeLeft.filter((v) => {
      const now = site.auction.view(v.lot);
      return now.price !== v.price || now.bidCount !== v.bidCount || now.state !== v.state;
    });
    expect(changed.length).toBeGreaterThan(0);

    const run = await waitForRun(ctx, (await requestCrawl(ctx, 'demo')).id, { timeoutMs: 60_000 });
    expect(run.lotsUpdated).toBeGreaterThanOrEqual(changed.filter((v) => after.some((a) => a.lot.id === v.lot.id)).length);
    const lot = changed.find((v) => after.some((a) => a.lot.id === v.lot.id))!;
    const history = await ctx.database.db.execute<{ price: string; status: string }>(
      sql`SELECT o.price, o.status FROM price_observations o JOIN listings l ON l.id = o.listing_id WHERE l.external_id = ${lot.lot.id} ORDER BY o.id`,
    );
    expect(history.length).toBe(2);
    expect(Number(history[1]!.price)).toBe(site.auction.view(lot.lot).price);

    const closedNow = changed.filter((v) => site.auction.view(v.lot).state === 'sold' && after.some((a) => a.lot.id === v.lot.id));
    expect(closedNow.length).toBeGreaterThan(0);
    for (const v of closedNow) {
      const [sale] = await ctx.database.db.execute<{ price: string }>(sql`SELECT price FROM sold_results WHERE origin = 'crawl:demo' AND external_id = ${v.lot.id}`);
      expect(Number(sale!.price)).toBe(v.lot.finalPrice);
    }
  });

  it('publishes a lot now through the control endpoint and the next crawl finds it', async () => {
    const response = await fetch(`${site.url}/_control/publish`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ price: 5000 }) });
    expect(response.status).toBe(201);
    const published = (await response.json()) as { id: string; url: string; price: number };
    expect(published.url).toBe(`${site.url}/lots/${published.id}`);
    const run = await waitForRun(ctx, (await requestCrawl(ctx, 'demo')).id, { timeoutMs: 60_000 });
    expect(run.lotsNew).toBeGreaterThanOrEqual(1);
    const [row] = await ctx.database.db.execute<{ price: string }>(sql`SELECT price FROM listings WHERE external_id = ${published.id}`);
    expect(Number(row!.price)).toBe(5000);
  });

  it('publishes a lot closing in a given number of demo hours, and refuses a bad one', async () => {
    const post = (body: unknown) => fetch(`${site.url}/_control/publish`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const response = await post({ price: 4000, hours_left: 6 });
    expect(response.status).toBe(201);
    const published = (await response.json()) as { id: string; ends_at: string };
    expect(Date.parse(published.ends_at) - site.auction.now()).toBeGreaterThan(5.9 * 3600_000);
    expect(Date.parse(published.ends_at) - site.auction.now()).toBeLessThanOrEqual(6 * 3600_000);
    for (const hours_left of [0, -1, 'soon', 24 * 31]) expect((await post({ price: 4000, hours_left })).status, String(hours_left)).toBe(400);
  });
});
