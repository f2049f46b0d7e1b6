/**
 * Watched lots are re-checked near their close (issue 31): the `watched` crawl visits only the
 * watched lots of a source that end within 15 minutes (or ended and are not yet seen closed), one
 * by one, against the local demo auction site; a tick with none opens no run.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoSite } from '../../scripts/demo-site/demo-server.js';
import { requestCrawl, waitForRun } from '../../services/crawler/crawl-requests.js';
import { WATCHED_CRAWL_SCHEDULES } from '../../services/crawler/crawl-schedules.js';
import { startCrawlWorker } from '../../services/crawler/index.js';
import { SCHEDULES } from '../../services/scheduler/schedules.js';
import type { TestContext } from '../support/context.js';
import { createCrawlTestContext, startTestDemoSite } from '../support/crawl-harness.js';

let site: DemoSite;
let ctx: TestContext;
let crawler: Awaited<ReturnType<typeof startCrawlWorker>>;

beforeAll(async () => {
  site = await startTestDemoSite({ lots: 30 });
  ctx = await createCrawlTestContext(site.url);
  crawler = await startCrawlWorker(ctx);
});

afterAll(async () => {
  await crawler?.stop();
  await ctx?.close();
  await site?.close();
});

describe('re-checking watched lots near their close', () => {
  it('is a schedule of the scheduler, every two minutes by default', () => {
    expect(SCHEDULES).toContain(WATCHED_CRAWL_SCHEDULES[0]);
    expect(WATCHED_CRAWL_SCHEDULES[0]!.cron(ctx)).toBe('*/2 * * * *');
  });

  it('visits only the watched lots closing soon', async () => {
    await waitForRun(ctx, (await requestCrawl(ctx, 'demo')).id, { timeoutMs: 60_000 });
    const open = (await ctx.database.db.execute(sql`SELECT id FROM listings WHERE status = 'open' ORDER BY id LIMIT 3`)) as unknown as Array<{ id: number }>;
    expect(open).toHaveLength(3);
    const [user] = (await ctx.database.db.execute(sql`INSERT INTO users (email) VALUES ('watcher@example.com') RETURNING id`)) as unknown as Array<{ id: number }>;

    // Nothing watched: no run.
    const none = await requestCrawl(ctx, 'demo', { reason: 'watched' });
    expect((await waitForRun(ctx, none.id, { timeoutMs: 30_000 })).stepsTotal).toBe(0);

    // Lot 0 watched and closing in 10 minutes; lot 1 closing as soon but not watched; lot 2 watched but closing in 3 hours.
    await ctx.database.db.execute(sql`UPDATE listings SET auction_end_at = now() + interval '10 minutes' WHERE id IN (${open[0]!.id}, ${open[1]!.id})`);
    await ctx.database.db.execute(sql`UPDATE listings SET auction_end_at = now() + interval '3 hours' WHERE id = ${open[2]!.id}`);
    await ctx.database.db.execute(sql`INSERT INTO watched_lots (user_id, listing_id) VALUES (${user!.id}, ${open[0]!.id}), (${user!.id}, ${open[2]!.id})`);
    const run = await waitForRun(ctx, (await requestCrawl(ctx, 'demo', { reason: 'watched' })).id, { timeoutMs: 60_000 });
    expect(run.stepsTotal).toBe(1);
    expect(run.errors).toBe(0);
  });
});
