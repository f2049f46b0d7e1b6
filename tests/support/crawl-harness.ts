/**
 * Crawl tests' shared setup: the demo auction site on 127.0.0.1 with a frozen clock (so a
 * re-crawl sees the same lots unless the test moves time), and a test context pointing the
 * demo adapter at it.
 */
import { expect } from 'vitest';
import { startDemoSite, type DemoSite } from '../../scripts/demo-site/demo-server.js';
import { loadCatalog, type CatalogMachine } from '../../scripts/demo-site/demo-catalog.js';
import { requestCrawl, waitForRun } from '../../services/crawler/crawl-requests.js';
import type { AppContext } from '../../services/shared/context.js';
import { createTestContext, type QueueBackendKind, type TestContext } from './context.js';
import { waitFor } from './wait.js';

let catalog: Promise<CatalogMachine[]> | undefined;

/** The real catalog, read once per test file. */
export function demoCatalog(): Promise<CatalogMachine[]> {
  catalog ??= loadCatalog(process.env.SHARED_DIR ?? '../shared');
  return catalog;
}

export async function startTestDemoSite(opts: { lots?: number; seed?: number; speed?: number; publishedShare?: number } = {}): Promise<DemoSite> {
  return startDemoSite({ catalog: await demoCatalog(), lots: opts.lots ?? 60, seed: opts.seed ?? 7, speed: opts.speed ?? 0, publishedShare: opts.publishedShare ?? 0.8 });
}

export async function createCrawlTestContext(
  demoUrl: string,
  opts: { queueBackend?: QueueBackendKind; env?: Record<string, string> } = {},
): Promise<TestContext> {
  return createTestContext({
    queueBackend: opts.queueBackend,
    env: { CRAWL_SOURCES: 'demo', DEMO_SITE_URL: demoUrl, CRAWL_CONCURRENCY: '4', CRAWL_TIMEOUT_MS: '5000', ...opts.env },
  });
}

/**
 * Crawls the demo source once (the crawl worker must be running) and waits until every score,
 * match and notify job it caused is done.
 */
export async function crawlDemoAndSettle(ctx: AppContext): Promise<void> {
  const run = await waitForRun(ctx, (await requestCrawl(ctx, 'demo')).id, { timeoutMs: 90_000 });
  expect(run.outcome).toBe('ok');
  await waitFor(async () => {
    for (const q of ['score', 'match', 'notify', 'notifyBatch'] as const) {
      const counts = await ctx.queues.queue(q).getJobCounts('waiting', 'active', 'delayed', 'prioritized');
      if (Object.values(counts).some((n) => n > 0)) return undefined;
    }
    return true;
  }, 120_000, 'the pipeline to settle');
}
