import cron from 'node-cron';
import type { AppContext } from '../shared/context.js';
import type { ServiceStarter } from '../shared/service.js';
import type { Schedule } from '../shared/schedule.js';
import { SCHEDULES } from './schedules.js';

/** The minute a tick belongs to, e.g. `202611211405`: part of every job id the tick adds. */
export function tickSlot(date: Date): string {
  return date.toISOString().slice(0, 16).replace(/[-T:]/g, '');
}

export function startSchedules(ctx: AppContext, schedules: Schedule[]): { stop(): Promise<void> } {
  const tasks = schedules
    .filter((s) => s.enabled?.(ctx) ?? true)
    .map((schedule) => {
      const expression = schedule.cron(ctx);
      if (!cron.validate(expression)) throw new Error(`schedule ${schedule.name}: invalid cron expression "${expression}"`);
      return cron.schedule(
        expression,
        async (context) => {
          const date = context?.date instanceof Date ? context.date : new Date();
          const slot = tickSlot(date);
          try {
            await schedule.tick(ctx, slot);
            ctx.logger.info({ schedule: schedule.name, slot }, 'tick enqueued');
          } catch (err) {
            ctx.logger.error({ err, schedule: schedule.name, slot }, 'tick failed');
          }
        },
        { name: schedule.name, noOverlap: true },
      );
    });
  return {
    async stop() {
      await Promise.all(tasks.map((t) => t.stop()));
    },
  };
}

/** node-cron lives here and only here; ticks only enqueue. Run exactly one scheduler per deployment. */
export const startScheduler: ServiceStarter = async (ctx) => {
  const running = startSchedules(ctx, SCHEDULES);
  ctx.logger.info({ schedules: SCHEDULES.map((s) => s.name) }, 'scheduler running');
  return { name: 'scheduler', stop: () => running.stop() };
};
