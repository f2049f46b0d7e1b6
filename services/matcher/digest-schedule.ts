/**
 * The daily digest's schedule. node-cron runs in the machine's time zone, so the tick fires every
 * hour and enqueues only in the configured UTC hour (ALERT_DIGEST_HOUR_UTC): the digest comes at
 * the same UTC hour wherever the scheduler runs, daylight saving or not.
 */
import type { Schedule } from '../shared/schedule.js';

/** `202611210700` (a tick slot, UTC) → its hour and day. */
export function slotTime(slot: string): { hour: number; day: string } {
  return { hour: Number(slot.slice(8, 10)), day: `${slot.slice(0, 4)}-${slot.slice(4, 6)}-${slot.slice(6, 8)}` };
}

export const ALERT_SCHEDULES: Schedule[] = [
  {
    name: 'alert-digest',
    cron: () => '0 * * * *',
    tick: async (ctx, slot) => {
      const { hour, day } = slotTime(slot);
      if (hour !== ctx.config.ALERT_DIGEST_HOUR_UTC) return;
      await ctx.queues.enqueue('alertDigest', { day, slot });
    },
  },
];
