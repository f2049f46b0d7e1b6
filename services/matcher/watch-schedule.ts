/**
 * The watchlist's schedule (issue 31): every ~15 s (WATCH_REMIND_SCHEDULE) the scheduler adds one
 * `watch-due` job; the matcher's worker sends what is due. A reminder is then at most a tick and a
 * dispatch late. The job id is the tick's second, so scheduler replicas add each tick once.
 */
import type { Schedule } from '../shared/schedule.js';

/** `2026-11-21T14:05:15.004Z` → `20261121140515`. */
export function secondSlot(date: Date): string {
  return date.toISOString().slice(0, 19).replace(/[-T:]/g, '');
}

export const WATCH_SCHEDULES: Schedule[] = [
  {
    name: 'watch-due',
    cron: (ctx) => ctx.config.WATCH_REMIND_SCHEDULE,
    tick: async (ctx) => {
      await ctx.queues.enqueue('watchDue', { slot: secondSlot(new Date()) });
    },
  },
];
