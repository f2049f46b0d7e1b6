/**
 * The crawl schedules (run by the scheduler service only). A tick only enqueues a `start` job
 * per configured source, with the tick's slot in the job id, so N scheduler replicas firing the
 * same tick add it once. The regular crawl lists every lot (default hourly); the ending-soon
 * crawl re-checks open lots ending within 24 h (default every 15 min).
 */
import type { Schedule } from '../shared/schedule.js';
import type { AppContext } from '../shared/context.js';
import { createRegistry } from './adapters/index.js';

/** Configured sources that have an adapter; the start step skips those disabled in `sources`. */
export function scheduledSources(ctx: AppContext): string[] {
  const registry = createRegistry();
  return ctx.config.CRAWL_SOURCES.filter((name) => registry.has(name));
}

export async function enqueueCrawlStarts(ctx: AppContext, reason: 'scheduled' | 'ending-soon' | 'watched', slot: string): Promise<void> {
  await ctx.queues.enqueueBulk(
    'crawl',
    scheduledSources(ctx).map((source) => ({ source, label: 'start' as const, reason, slot })),
  );
}

export const CRAWL_SCHEDULES: Schedule[] = [
  {
    name: 'crawl-sources',
    cron: (ctx) => ctx.config.CRAWL_SCHEDULE,
    enabled: (ctx) => scheduledSources(ctx).length > 0,
    tick: (ctx, slot) => enqueueCrawlStarts(ctx, 'scheduled', slot),
  },
  {
    name: 'crawl-ending-soon',
    cron: (ctx) => ctx.config.CRAWL_ENDING_SOON_SCHEDULE,
    enabled: (ctx) => scheduledSources(ctx).length > 0,
    tick: (ctx, slot) => enqueueCrawlStarts(ctx, 'ending-soon', slot),
  },
];

/**
 * Watched lots near their close (issue 31): every few minutes (WATCH_RECHECK_SCHEDULE) each
 * source's watched lots ending within 15 minutes, or ended and not yet seen closed, are re-checked
 * one by one, so a buyer hears the final price minutes after the close. A tick with no such lot
 * opens no run. Not in CRAWL_SCHEDULES: the scheduler lists it with the watchlist's.
 */
export const WATCHED_CRAWL_SCHEDULES: Schedule[] = [
  {
    name: 'crawl-watched-closing',
    cron: (ctx) => ctx.config.WATCH_RECHECK_SCHEDULE,
    enabled: (ctx) => scheduledSources(ctx).length > 0,
    tick: (ctx, slot) => enqueueCrawlStarts(ctx, 'watched', slot),
  },
];
