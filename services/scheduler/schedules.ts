import type { Schedule } from '../shared/schedule.js';
import { ALERT_SCHEDULES } from '../matcher/digest-schedule.js';
import { CRAWL_SCHEDULES, WATCHED_CRAWL_SCHEDULES } from '../crawler/crawl-schedules.js';
import { SCORE_SCHEDULES } from '../scorer/score-schedules.js';
import { WATCH_SCHEDULES } from '../matcher/watch-schedule.js';

/** Every schedule of the product. The crawl and valuation capabilities add theirs here. */
export const SCHEDULES: Schedule[] = [
  ...ALERT_SCHEDULES,
  ...CRAWL_SCHEDULES,
  ...SCORE_SCHEDULES,
  ...WATCH_SCHEDULES,
  ...WATCHED_CRAWL_SCHEDULES,
  {
    // retrain the fair-value model on all sales history; the training job then rescores every listing
    name: 'model-train',
    cron: (ctx) => ctx.config.MODEL_TRAIN_SCHEDULE,
    tick: async (ctx, slot) => {
      await ctx.queues.enqueue('model', { action: 'train', reason: 'scheduled', slot });
    },
  },
];
