/**
 * The crawler stage: consumes the `crawl` queue with the crawl pipeline. Any number of replicas
 * may run: politeness, robots.txt and run bookkeeping live in the database, not in memory.
 */
import type { AppContext } from '../shared/context.js';
import { errorMessage } from '../shared/errors.js';
import { QUEUES } from '../shared/queues.js';
import type { ServiceStarter } from '../shared/service.js';
import { createRegistry, sourceRegistrations, type AdapterRegistry } from './adapters/index.js';
import { CrawlPipeline } from './crawl-pipeline.js';
import { enqueueCrawlStarts } from './crawl-schedules.js';
import { backfillListingPlaces } from './place-backfill.js';
import { BrowserFetcher } from './fetchers/browser-fetcher.js';
import { httpFetch, userAgent } from './fetchers/http-fetcher.js';
import { RobotsGate } from './politeness/robots.js';
import { sourcesNeverCrawled } from '../shared/repositories/operations-repository.js';
import { registerMissingSources, syncSources } from '../shared/repositories/sources-repository.js';

/**
 * Registers every adapter's `sources` row, enabled per CRAWL_SOURCES; unknown names are reported.
 * The crawler's start is the one place that calls it: a command run from another shell would
 * otherwise rewrite the running product's sources from that shell's environment.
 */
export async function syncSourcesFromConfig(ctx: AppContext, registry: AdapterRegistry): Promise<void> {
  await syncSources(ctx.database.db, sourceRegistrations(registry, ctx.config));
  const unknown = ctx.config.CRAWL_SOURCES.filter((name) => !registry.has(name));
  if (unknown.length > 0) ctx.logger.warn({ unknown }, 'CRAWL_SOURCES names sources without an adapter; they are ignored');
}

export function createPipeline(ctx: AppContext, registry: AdapterRegistry): { pipeline: CrawlPipeline; browser: BrowserFetcher } {
  const browser = new BrowserFetcher(ctx.config.CRAWL_BROWSER_PAGES);
  const robots = new RobotsGate(ctx.database.db, async (url) => {
    // robots.txt is fetched under the same rules as pages: its host, loopback-only under tests.
    const host = new URL(url).host;
    const response = await httpFetch(
      { url },
      {
        allowedHosts: [host],
        allowOnlyLoopback: ctx.config.CRAWL_ALLOW_ONLY_LOOPBACK,
        userAgent: userAgent(ctx.config.CRAWL_USER_AGENT_CONTACT),
        timeoutMs: Math.min(ctx.config.CRAWL_TIMEOUT_MS, 15_000),
        maxBytes: 512_000,
      },
    );
    return { status: response.status, body: response.body };
  });
  return { pipeline: new CrawlPipeline({ ctx, adapters: registry, robots, browser }), browser };
}

export type CrawlWorkerOptions = {
  registry?: AdapterRegistry;
  concurrency?: number;
  lockDuration?: number;
  stalledInterval?: number;
  /**
   * `config` (the crawler's start): every source row follows this process's configuration.
   * `missing-only` (a crawl beside the product, `crawl --once`): rows not there yet are added,
   * existing ones are left as the product's crawler set them.
   */
  sourceSync?: 'config' | 'missing-only';
};

/** Starts a crawl worker in this process; `stop` lets jobs in hand finish, then closes the browser. */
export async function startCrawlWorker(ctx: AppContext, opts: CrawlWorkerOptions = {}) {
  const registry = opts.registry ?? createRegistry();
  if (opts.sourceSync === 'missing-only') await registerMissingSources(ctx.database.db, sourceRegistrations(registry, ctx.config));
  else await syncSourcesFromConfig(ctx, registry);
  const { pipeline, browser } = createPipeline(ctx, registry);
  const worker = ctx.queues.worker('crawl', (payload, job, token) => pipeline.handle(payload, job, token), {
    concurrency: opts.concurrency ?? ctx.config.CRAWL_CONCURRENCY,
    ...(opts.lockDuration ? { lockDuration: opts.lockDuration } : {}),
    ...(opts.stalledInterval ? { stalledInterval: opts.stalledInterval } : {}),
    // A worker killed mid-job leaves it stalled; it is picked up again rather than failed.
    maxStalledCount: 5,
  });
  return {
    worker,
    pipeline,
    async stop() {
      await worker.close().catch((err: unknown) => ctx.logger.warn({ err: errorMessage(err) }, 'crawl worker close failed'));
      await browser.close();
    },
  };
}

export const startCrawler: ServiceStarter = async (ctx) => {
  const running = await startCrawlWorker(ctx);
  if (ctx.config.CRAWL_ON_START) {
    // One crawl now rather than at the next tick (the demo); the minute slot dedupes replicas.
    await enqueueCrawlStarts(ctx, 'scheduled', `startup-${new Date().toISOString().slice(0, 16).replace(/[-T:]/g, '')}`);
  } else {
    // First run: a source never crawled is crawled now, not at the next tick (up to an hour away),
    // so a new installation shows listings at once. Replicas share the job id.
    const registry = createRegistry();
    const fresh = (await sourcesNeverCrawled(ctx.database.sql)).filter((name) => registry.has(name));
    await ctx.queues.enqueueBulk('crawl', fresh.map((source) => ({ source, label: 'start' as const, reason: 'scheduled' as const, slot: 'first-run' })));
    if (fresh.length > 0) ctx.logger.info({ sources: fresh }, 'first crawl of sources never crawled');
  }
  // Listings stored before lots were placed at crawl time are placed now, beside the crawls.
  let stopping = false;
  const backfill = backfillListingPlaces(ctx.database.db, { stopped: () => stopping })
    .then(({ tried, written }) => {
      if (tried > 0) ctx.logger.info({ tried, placed: written }, 'placed listings stored before issue 30');
    })
    .catch((err: unknown) => ctx.logger.warn({ err: errorMessage(err) }, 'placing stored listings failed; `npm run cli -- places --backfill` retries'));
  ctx.logger.info({ service: 'crawler', queue: QUEUES.crawl.name, concurrency: ctx.config.CRAWL_CONCURRENCY }, 'crawl worker running');
  return {
    name: 'crawler',
    stop: async () => {
      stopping = true;
      await backfill;
      await running.stop();
    },
  };
};
