import type { AppContext } from '../shared/context.js';
import { ALERT_SCHEDULES } from '../matcher/digest-schedule.js';
import { CRAWL_SCHEDULES } from '../crawler/crawl-schedules.js';
import { SCORE_SCHEDULES } from '../scorer/score-schedules.js';

/**
 * A cron schedule. Its tick only enqueues work, with job ids derived from `slot` (the tick's
 * time, truncated to the minute), so two schedulers firing the same tick add each job once.
 */
export type Schedule = {
  name: string;
  cron: (ctx: AppContext) => string;
  enabled?: (ctx: AppContext) => boolean;
  tick: (ctx: AppContext, slot: string) => Promise<void>;
};

/** Every schedule of the product. The crawl and valuation capabilities add theirs here. */
export const SCHEDULES: Schedule[] = [
  ...ALERT_SCHEDULES,
  ...CRAWL_SCHEDULES,
  ...SCORE_SCHEDULES,
  {
    // retrain the fair-value model on all sales history; the training job then rescores every listing
    name: 'model-train',
    cron: (ctx) => ctx.config.MODEL_TRAIN_SCHEDULE,
    tick: async (ctx, slot) => {
      await ctx.queues.enqueue('model', { action: 'train', reason: 'scheduled', slot });
    },
  },
];
