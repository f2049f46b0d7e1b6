import { DelayedError } from 'bullmq';
import type { ServiceStarter } from '../shared/service.js';
import type { AppContext } from '../shared/context.js';
import { bootstrapValuation, resumeInterruptedImports } from './bootstrap.js';
import { ModelStore } from './model-store.js';
import { finishInterruptedRescore, runModelJob } from './model-jobs.js';
import { ComparablePoolCache } from './comparable-pool.js';
import { candidatesFromPool, runScoreBatchJob } from './score-batch.js';
import { runScoreJob } from './score-job.js';
import { SalesImportUnfinishedError } from './train-model.js';

/** How long a training asked for during a sales import waits before it looks again. */
const IMPORT_WAIT_MS = 30_000;

/**
 * What an earlier run left unfinished: sales imports cut off part-way (resumed, and on a fresh
 * installation the first import and training), and a rescore cut off part-way (the listings the
 * newest model has not scored, queued again).
 */
async function resumeUnfinishedWork(ctx: AppContext, signal: AbortSignal): Promise<void> {
  if (ctx.config.VALUATION_BOOTSTRAP) {
    await bootstrapValuation(ctx, signal);
  } else {
    await resumeInterruptedImports(ctx, signal);
  }
  if (signal.aborted) return;
  const rescore = await finishInterruptedRescore(ctx);
  if (rescore && rescore.queued > 0) ctx.logger.info(rescore, 'queued the listings the newest model has not scored yet');
}

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
  // Stopping interrupts a training in progress (it fails and is retried later) rather than waiting for it.
  const stopping = new AbortController();
  const modelWorker = ctx.queues.worker(
    'model',
    async (payload, job, token) => {
      try {
        return await runModelJob(ctx, payload, stopping.signal, job);
      } catch (err) {
        if (err instanceof SalesImportUnfinishedError && token) {
          // Not failed: it trains once the import is complete (the import resumes at start).
          ctx.logger.info({ jobId: job.id }, 'training waits: a sales import is not complete');
          await job.moveToDelayed(Date.now() + IMPORT_WAIT_MS, token);
          throw new DelayedError();
        }
        if (!stopping.signal.aborted || !token) throw err;
        // Put back, not failed: an interrupted training costs no attempt and runs after the restart.
        await job.moveToDelayed(Date.now() + 5_000, token);
        throw new DelayedError();
      }
    },
    // The training runs in a thread, so this event loop renews the lock (every half lock) all along;
    // a minute's lock hands the job of a killed scorer to the next one within a minute.
    { concurrency: 1, lockDuration: 60_000 },
  );
  ctx.logger.info({ service: 'scorer', queues: ['score', 'score-batch', 'model'] }, 'scorer running');
  // In the background: start-up does not wait for an import. Stopping cancels it between two
  // batches (it resumes at the next start) and waits for that, so nothing writes to a closed pool.
  const unfinished = resumeUnfinishedWork(ctx, stopping.signal).catch((err: unknown) => ctx.logger.error({ err }, 'valuation bootstrap failed'));
  return {
    name: 'scorer',
    stop: async () => {
      stopping.abort();
      await unfinished;
      await Promise.allSettled([scoreWorker.close(), batchWorker.close(), modelWorker.close()]);
    },
  };
};
