import { DelayedError } from 'bullmq';
import type { ServiceStarter } from '../shared/service.js';
import { bootstrapValuation } from './bootstrap.js';
import { ModelStore } from './model-store.js';
import { runModelJob } from './model-jobs.js';
import { ComparablePoolCache } from './comparable-pool.js';
import { candidatesFromPool, runScoreBatchJob } from './score-batch.js';
import { runScoreJob } from './score-job.js';

/**
 * The scorer stage: consumes the `score` queue (value a listing, score the deal, hand it to the
 * matcher), `score-batch` (the same for a thousand listings at once) and the `model` queue
 * (retrain on sales history, rescore everything in batches).
 */
export const startScorer: ServiceStarter = async (ctx) => {
  const models = new ModelStore(ctx.database.db);
  const scoreWorker = ctx.queues.worker('score', (payload) => runScoreJob(ctx, models, payload), { concurrency: 4 });
  // A batch is CPU-bound (one block prediction) between two queries: two at a time overlap one's
  // database round trips with the other's prediction, more would only queue for the two cores.
  const pool = candidatesFromPool(new ComparablePoolCache(ctx.database.db));
  const batchWorker = ctx.queues.worker('scoreBatch', (payload) => runScoreBatchJob(ctx, models, payload, { candidates: pool }), {
    concurrency: 2,
    lockDuration: 5 * 60_000,
  });
  // training holds the job for tens of seconds (in a thread); a long lock keeps it from looking stalled
  // Stopping interrupts a training in progress (it fails and is retried later) rather than waiting for it.
  const stopping = new AbortController();
  const modelWorker = ctx.queues.worker(
    'model',
    async (payload, job, token) => {
      try {
        return await runModelJob(ctx, payload, stopping.signal);
      } catch (err) {
        if (!stopping.signal.aborted || !token) throw err;
        // Put back, not failed: an interrupted training costs no attempt and runs after the restart.
        await job.moveToDelayed(Date.now() + 5_000, token);
        throw new DelayedError();
      }
    },
    { concurrency: 1, lockDuration: 10 * 60_000 },
  );
  ctx.logger.info({ service: 'scorer', queues: ['score', 'score-batch', 'model'] }, 'scorer running');
  if (ctx.config.VALUATION_BOOTSTRAP) {
    // In the background: start-up does not wait for an import.
    void bootstrapValuation(ctx).catch((err: unknown) => ctx.logger.error({ err }, 'valuation bootstrap failed'));
  }
  return {
    name: 'scorer',
    stop: async () => {
      stopping.abort();
      await Promise.allSettled([scoreWorker.close(), batchWorker.close(), modelWorker.close()]);
    },
  };
};
