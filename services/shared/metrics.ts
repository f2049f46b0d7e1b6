/**
 * Prometheus metrics of one process (prom-client), served by the API's `/metrics` and by each
 * worker process's health server. Queue and database figures are read when scraped, so they are
 * the same whichever replica answers; in-process figures (the listing index) are set by their
 * owner through the hooks below. Not public: a bearer token (METRICS_TOKEN) or loopback only.
 */
import { timingSafeEqual } from 'node:crypto';
import client from 'prom-client';
import type { AppContext } from './context.js';
import { QUEUE_NAMES } from './queues.js';
import { recentCrawlOutcomes, recentMessageCounts, sourceStatuses } from './repositories/operations-repository.js';

export const metricsRegistry = new client.Registry();
client.collectDefaultMetrics({ register: metricsRegistry, prefix: 'dealradar_' });

const listingIndexLoadSeconds = new client.Gauge({
  name: 'dealradar_listing_index_load_seconds',
  help: 'How long the last load of the in-memory listing index took',
  registers: [metricsRegistry],
});
const listingIndexListings = new client.Gauge({
  name: 'dealradar_listing_index_listings',
  help: 'Listings held by the in-memory listing index after its last load',
  registers: [metricsRegistry],
});
const listingIndexLoads = new client.Counter({
  name: 'dealradar_listing_index_loads_total',
  help: 'Loads of the in-memory listing index in this process',
  registers: [metricsRegistry],
});

/** The listing index calls this after each (re)load: how long it took and how many listings it holds. */
export function recordListingIndexLoad(seconds: number, listings?: number): void {
  listingIndexLoadSeconds.set(seconds);
  if (listings !== undefined) listingIndexListings.set(listings);
  listingIndexLoads.inc();
}

const JOB_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed'] as const;
const CONTEXT_METRICS = ['dealradar_queue_jobs', 'dealradar_sources', 'dealradar_source_status', 'dealradar_crawl_runs_24h', 'dealradar_messages_24h', 'dealradar_metrics_read_errors_total'];

/**
 * Adds the gauges read from the queues and the database of this context (once per process: a
 * second context replaces the first's, as tests create several).
 */
export function registerContextMetrics(ctx: AppContext): void {
  for (const name of CONTEXT_METRICS) metricsRegistry.removeSingleMetric(name);
  const readErrors = new client.Counter({
    name: 'dealradar_metrics_read_errors_total',
    help: 'Scrapes in which a figure could not be read (database or queue store down)',
    labelNames: ['figure'],
    registers: [metricsRegistry],
  });
  // A figure that cannot be read is left out of this scrape and counted, not a failed scrape.
  const guarded = async (figure: string, read: () => Promise<void>) => {
    try {
      await read();
    } catch (err) {
      readErrors.inc({ figure });
      ctx.logger.debug({ err, figure }, 'metrics: figure not read');
    }
  };

  new client.Gauge({
    name: 'dealradar_queue_jobs',
    help: 'Jobs per queue and state (waiting and delayed: depth; failed: kept failures)',
    labelNames: ['queue', 'state'],
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      await guarded('queues', async () => {
        for (const name of QUEUE_NAMES) {
          const counts = await ctx.queues.queue(name).getJobCounts(...JOB_STATES);
          for (const state of JOB_STATES) this.set({ queue: name, state }, counts[state] ?? 0);
        }
      });
    },
  });

  new client.Gauge({
    name: 'dealradar_sources',
    help: 'Sources per status of their last crawl (ok, empty, blocked, error, layout-changed, login-required…) and enablement',
    labelNames: ['status', 'enabled'],
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      await guarded('sources', async () => {
        const counts = new Map<string, { status: string; enabled: string; n: number }>();
        for (const row of await sourceStatuses(ctx.database.sql)) {
          const key = `${row.status}|${row.enabled}`;
          const entry = counts.get(key) ?? { status: row.status, enabled: String(row.enabled), n: 0 };
          entry.n += 1;
          counts.set(key, entry);
        }
        for (const { status, enabled, n } of counts.values()) this.set({ status, enabled }, n);
      });
    },
  });

  new client.Gauge({
    name: 'dealradar_source_status',
    help: 'Each enabled source\'s current status (1 for its status)',
    labelNames: ['source', 'status'],
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      await guarded('source_status', async () => {
        for (const row of await sourceStatuses(ctx.database.sql)) if (row.enabled) this.set({ source: row.source, status: row.status }, 1);
      });
    },
  });

  new client.Gauge({
    name: 'dealradar_crawl_runs_24h',
    help: 'Crawl runs started in the last 24 hours per source and outcome (ok, empty, blocked, error…; running)',
    labelNames: ['source', 'outcome'],
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      await guarded('crawl_runs', async () => {
        for (const row of await recentCrawlOutcomes(ctx.database.sql)) this.set({ source: row.source, outcome: row.outcome }, row.runs);
      });
    },
  });

  new client.Gauge({
    name: 'dealradar_messages_24h',
    help: 'Notification messages created in the last 24 hours per channel and status (sent, failed, queued, sending)',
    labelNames: ['channel', 'status'],
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      await guarded('messages', async () => {
        for (const row of await recentMessageCounts(ctx.database.sql)) this.set({ channel: row.channel, status: row.status }, row.messages);
      });
    },
  });
}

export type MetricsAccess = 'allowed' | 'unauthorized' | 'forbidden';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * Who may read `/metrics`: with METRICS_TOKEN set, whoever sends it as a bearer token (a proxy
 * on the same host cannot open it up); without one, loopback clients only.
 */
export function metricsAccess(opts: { token: string | undefined; remoteAddress: string | undefined; authorization: string | undefined }): MetricsAccess {
  if (opts.token) {
    const sent = /^Bearer\s+(.+)$/i.exec(opts.authorization ?? '')?.[1]?.trim() ?? '';
    const [a, b] = [Buffer.from(sent), Buffer.from(opts.token)];
    return a.length === b.length && timingSafeEqual(a, b) ? 'allowed' : 'unauthorized';
  }
  return LOOPBACK.test(opts.remoteAddress ?? '') ? 'allowed' : 'forbidden';
}

export const METRICS_CONTENT_TYPE = metricsRegistry.contentType;

export async function renderMetrics(): Promise<string> {
  return metricsRegistry.metrics();
}
