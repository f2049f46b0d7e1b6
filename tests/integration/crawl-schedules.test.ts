/**
 * The crawl schedules only enqueue: a tick adds one start job per configured source, with the
 * tick's slot in the id, so two schedulers firing the same tick add it once; the start job then
 * opens one run per (source, tick) however often it runs.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoSite } from '../../scripts/demo-site/demo-server.js';
import { CRAWL_SCHEDULES, enqueueCrawlStarts } from '../../services/crawler/crawl-schedules.js';
import { createRegistry } from '../../services/crawler/adapters/index.js';
import { startCrawlWorker, syncSourcesFromConfig } from '../../services/crawler/index.js';
import { SCHEDULES } from '../../services/scheduler/schedules.js';
import type { TestContext } from '../support/context.js';
import { createCrawlTestContext, startTestDemoSite } from '../support/crawl-harness.js';
import { waitFor } from '../support/wait.js';

let site: DemoSite;
let ctx: TestContext;

beforeAll(async () => {
  site = await startTestDemoSite({ lots: 30 });
  ctx = await createCrawlTestContext(site.url, { env: { CRAWL_SCHEDULE: '5 * * * *', CRAWL_ENDING_SOON_SCHEDULE: '*/10 * * * *' } });
  await syncSourcesFromConfig(ctx, createRegistry());
});

afterAll(async () => {
  await ctx?.close();
  await site?.close();
});

describe('crawl schedules', () => {
  it('are registered with the scheduler, their cron from configuration', () => {
    for (const schedule of CRAWL_SCHEDULES) expect(SCHEDULES).toContain(schedule);
    expect(CRAWL_SCHEDULES.map((s) => [s.name, s.cron(ctx)])).toEqual([
      ['crawl-sources', '5 * * * *'],
      ['crawl-ending-soon', '*/10 * * * *'],
    ]);
  });

  it('add each tick once, and each tick crawls once', async () => {
    await enqueueCrawlStarts(ctx, 'scheduled', '202611210605');
    await enqueueCrawlStarts(ctx, 'scheduled', '202611210605'); // a second scheduler, same tick
    const jobs = await ctx.queues.queue('crawl').getJobs(['waiting', 'delayed', 'prioritized']);
    expect(jobs.map((j) => j.data)).toEqual([{ source: 'demo', label: 'start', reason: 'scheduled', slot: '202611210605' }]);

    const crawler = await startCrawlWorker(ctx);
    try {
      await waitFor(async () => {
        const [run] = await ctx.database.db.execute<{ state: string }>(sql`SELECT state FROM crawl_runs`);
        return run?.state === 'finished' ? true : undefined;
      }, 60_000, 'the scheduled run to finish');
      // The same tick's start job run again (e.g. retried) opens no second run.
      await ctx.queues.enqueue('crawl', { source: 'demo', label: 'start', reason: 'scheduled', slot: '202611210605' }, { jobId: 'again' });
      await waitFor(async () => ((await ctx.queues.queue('crawl').getJobState('again')) === 'completed' ? true : undefined), 30_000);
      const runs = await ctx.database.db.execute<{ trigger_key: string }>(sql`SELECT trigger_key FROM crawl_runs`);
      expect(runs.map((r) => r.trigger_key)).toEqual(['scheduled-202611210605']);
    } finally {
      await crawler.stop();
    }
  });

  it('keeps both when the regular crawl and the ending-soon re-check tick in the same minute', async () => {
    await ctx.queues.queue('crawl').obliterate({ force: true });
    await enqueueCrawlStarts(ctx, 'ending-soon', '202611210700');
    await enqueueCrawlStarts(ctx, 'scheduled', '202611210700');
    await enqueueCrawlStarts(ctx, 'scheduled', '202611210700'); // a second scheduler
    const jobs = await ctx.queues.queue('crawl').getJobs(['waiting', 'delayed', 'prioritized']);
    expect(jobs.map((j) => j.data.reason).sort()).toEqual(['ending-soon', 'scheduled']);
  });
});
