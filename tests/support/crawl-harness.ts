/**
 * Crawl tests' shared setup: the demo auction site on 127.0.0.1 with a frozen clock (so a
 * re-crawl sees the same lots unless the test moves time), and a test context pointing the
 * demo adapter at it.
 */
import { startDemoSite, type DemoSite } from '../../scripts/demo-site/demo-server.js';
import { loadCatalog, type CatalogMachine } from '../../scripts/demo-site/demo-catalog.js';
import { createTestContext, type QueueBackendKind, type TestContext } from './context.js';

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
