import type { ServiceStarter } from '../shared/service.js';
import { createDigestHandler, createMatchHandler, createWatchDueHandler } from './match-listings.js';

/**
 * The matcher stage: consumes the `match` queue (a listing appeared, was scored, or dropped in
 * price → notifications for the alerts it satisfies, instant ones handed to the notifier) and
 * the `alert-digest` queue (the daily digest per alert), and the `watch-due` queue (watchlist
 * reminders and notices due now).
 */
export const startMatcher: ServiceStarter = async (ctx) => {
  const logger = ctx.logger.child({ service: 'matcher' });
  const deps = { ...ctx, logger };
  const matchWorker = ctx.queues.worker('match', createMatchHandler(deps), { concurrency: ctx.config.MATCH_CONCURRENCY });
  const digestWorker = ctx.queues.worker('alertDigest', createDigestHandler(deps), { concurrency: 1 });
  const watchWorker = ctx.queues.worker('watchDue', createWatchDueHandler(deps), { concurrency: 1 });
  logger.info({ queues: ['match', 'alert-digest', 'watch-due'] }, 'match workers started');
  return {
    name: 'matcher',
    stop: async () => {
      await Promise.all([matchWorker.close(), digestWorker.close(), watchWorker.close()]);
    },
  };
};
