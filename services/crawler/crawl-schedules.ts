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

export async function enqueueCrawlStarts(ctx: AppContext, reason: 'scheduled' | 'ending-soon', slot: string): Promise<void> {
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
