/**
 * A crawler replica killed (SIGKILL) in the middle of a crawl loses no lot and duplicates none:
 * its jobs stall, another worker picks them up, and storage is idempotent per (source, external
 * id), so every lot ends up stored exactly once with one price observation and a scoring job.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoSite } from '../../scripts/demo-site/demo-server.js';
import { createRegistry } from '../../services/crawler/adapters/index.js';
import { requestCrawl, waitForRun } from '../../services/crawler/crawl-requests.js';
import { startCrawlWorker, syncSourcesFromConfig } from '../../services/crawler/index.js';
import type { TestContext } from '../support/context.js';
import { createCrawlTestContext, startTestDemoSite } from '../support/crawl-harness.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { waitFor } from '../support/wait.js';

let site: DemoSite;
let proxy: FaultProxy;
let ctx: TestContext;
let child: ChildProcess | undefined;
let survivor: Awaited<ReturnType<typeof startCrawlWorker>> | undefined;

beforeAll(async () => {
  site = await startTestDemoSite({ lots: 160, publishedShare: 1 });
  proxy = await startFaultProxy(site.url);
  proxy.delayMs = 40; // a crawl of a few seconds, long enough to be interrupted
  ctx = await createCrawlTestContext(proxy.url);
  await syncSourcesFromConfig(ctx, createRegistry());
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await survivor?.stop();
  await ctx?.close();
  await proxy?.close();
  await site?.close();
});

async function count(query: ReturnType<typeof sql>): Promise<number> {
  const rows = await ctx.database.db.execute<{ n: number }>(query);
  return Number(rows[0]!.n);
}

describe('a crawler killed mid-crawl', () => {
  it('loses no lot and duplicates none after restart', async () => {
    const visible = site.auction.visible().map((v) => v.lot.id);
    const run = await requestCrawl(ctx, 'demo');

    child = spawn(process.execPath, ['--import', 'tsx', 'tests/support/crawl-worker-child.ts', '2000', '1000'], {
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        DATABASE_URL: ctx.database.url,
        REDIS_URL: '',
        CRAWL_SOURCES: 'demo',
        DEMO_SITE_URL: proxy.url,
        CRAWL_CONCURRENCY: '4',
        CRAWL_TIMEOUT_MS: '5000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout?.on('data', () => {});

    // Kill it once it has stored some lots but is far from done.
    await waitFor(async () => ((await count(sql`SELECT count(*) AS n FROM listings`)) >= 30 ? true : undefined), 60_000, `child to store 30 lots (${stderr})`);
    child.kill('SIGKILL');
    await new Promise((resolve) => child!.once('exit', resolve));
    const storedAtKill = await count(sql`SELECT count(*) AS n FROM listings`);
    expect(storedAtKill).toBeLessThan(visible.length);
    expect((await ctx.queues.queue('crawl').getJobCounts('active')).active).toBeGreaterThan(0);

    // Another replica takes over: the dead worker's active jobs stall and are run again.
    survivor = await startCrawlWorker(ctx, { lockDuration: 2000, stalledInterval: 1000 });
    const finished = await waitForRun(ctx, run.id, { timeoutMs: 120_000 });
    expect(finished.outcome).toBe('ok');

    const rows = await ctx.database.db.execute<{ external_id: string; observations: number }>(
      sql`SELECT l.external_id, (SELECT count(*) FROM price_observations o WHERE o.listing_id = l.id)::int AS observations FROM listings l`,
    );
    expect(rows.map((r) => r.external_id).sort()).toEqual([...visible].sort());
    expect(rows.every((r) => r.observations === 1)).toBe(true);

    // No scoring lost either: every stored lot has a scoring job.
    const jobs = await ctx.queues.queue('score').getJobs(['waiting', 'delayed', 'active', 'completed', 'failed'], 0, 10_000);
    const scored = new Set(jobs.map((j) => (j.data as { listingId: number }).listingId));
    const ids = await ctx.database.db.execute<{ id: number }>(sql`SELECT id FROM listings`);
    expect(ids.every((r) => scored.has(r.id))).toBe(true);
  }, 180_000);
});
