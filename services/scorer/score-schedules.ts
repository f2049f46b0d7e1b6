/**
 * The scorer's clock: for an open auction the deal score weighs a low bid by the time left (an
 * early low bid is not a deal yet), so a score written days before the close understates a bid
 * that is still low near the end. This schedule rescores such auctions as their time runs out;
 * their alerts then fire when the score reaches an alert's minimum (the matcher never sends a
 * listing twice for one alert). A tick only enqueues `score` jobs, ids carrying the tick's slot.
 */
import type { Schedule } from '../shared/schedule.js';
import type { AppContext } from '../shared/context.js';
import { listAuctionIdsDueForTimeRescore } from '../shared/repositories/listing-scores-repository.js';
import { enqueueScoreJobsPaged } from './score-enqueue.js';

export async function enqueueTimeRescores(ctx: AppContext, slot: string, now = new Date()): Promise<number> {
  const count = await enqueueScoreJobsPaged(ctx, (after, limit) => listAuctionIdsDueForTimeRescore(ctx.database.db, now, after, limit), `time-${slot}`);
  if (count > 0) ctx.logger.info({ slot, count }, 'open auctions rescored for time left');
  return count;
}

export const SCORE_SCHEDULES: Schedule[] = [
  {
    name: 'score-time-left',
    cron: (ctx) => ctx.config.SCORE_TIME_LEFT_SCHEDULE,
    tick: async (ctx, slot) => {
      await enqueueTimeRescores(ctx, slot);
    },
  },
];
