/**
 * Per-host politeness is shared by crawler replicas through the database: two workers with
 * separate pipelines (no shared memory) crawling one host limited to one request at a time,
 * 250 ms apart, start their requests that far apart (measured where the server receives them)
 * and leave no slot or lease behind.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoSite } from '../../scripts/demo-site/demo-server.js';
import { createRegistry } from '../../services/crawler/adapters/index.js';
import { demoAdapter } from '../../services/crawler/adapters/demo-adapter.js';
import { requestCrawl, waitForRun } from '../../services/crawler/crawl-requests.js';
import { startCrawlWorker } from '../../services/crawler/index.js';
import type { TestContext } from '../support/context.js';
import { createCrawlTestContext, startTestDemoSite } from '../support/crawl-harness.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';
import { median } from '../support/wait.js';

let site: DemoSite;
let proxy: FaultProxy;
let ctx: TestContext;
const workers: Awaited<ReturnType<typeof startCrawlWorker>>[] = [];

beforeAll(async () => {
  site = await startTestDemoSite({ lots: 14, publishedShare: 1 });
  proxy = await startFaultProxy(site.url);
  proxy.delayMs = 30; // each request takes a little while, so overlaps would show
  ctx = await createCrawlTestContext(proxy.url);
  const strict = createRegistry([{ ...demoAdapter, politeness: { minDelayMs: 250, maxConcurrency: 1 } }]);
  for (let i = 0; i < 2; i++) workers.push(await startCrawlWorker(ctx, { registry: strict, concurrency: 3 }));
}, 60_000);

afterAll(async () => {
  for (const w of workers) await w.stop();
  await ctx?.close();
  await proxy?.close();
  await site?.close();
});

describe('politeness across replicas', () => {
  it('keeps one request at a time, at least the minimum delay apart', async () => {
    const run = await waitForRun(ctx, (await requestCrawl(ctx, 'demo')).id, { timeoutMs: 60_000 });
    expect(run.outcome).toBe('ok');
    const starts = [...proxy.hits.entries()]
      .filter(([path]) => path !== '/robots.txt')
      .flatMap(([, times]) => times)
      .sort((a, b) => a - b);
    expect(starts.length).toBe(run.pages);
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    // The delay is enforced between claims; arrival at the server adds the client's own latency
    // (noisy on a loaded machine), so single gaps may shrink a little but never collapse.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(150);
    expect(median(gaps)).toBeGreaterThanOrEqual(245);
    const [host] = await ctx.database.db.execute<{ in_flight: number; leases: number }>(
      sql`SELECT in_flight, (SELECT count(*) FROM host_leases)::int AS leases FROM host_politeness`,
    );
    expect(host).toEqual({ in_flight: 0, leases: 0 });
  });
});
