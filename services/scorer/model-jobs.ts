/**
 * The `model` queue: `train` fits a new model on all sales history and then asks for a rescore of
 * every listing; `rescore-all` adds `score-batch` jobs (a thousand listings each) covering every
 * listing, for the newest model version.
 */
import type { AppContext } from '../shared/context.js';
import type { Payload } from '../shared/queues.js';
import { listListingIdsToScore } from '../shared/repositories/listing-scores-repository.js';
import { latestModelVersion } from '../shared/repositories/model-versions-repository.js';
import { enqueueScoreBatchesPaged } from './score-enqueue.js';
import { trainAndStoreModel } from './train-model.js';

export function enqueueRescoreAll(ctx: AppContext, version: number): Promise<number> {
  return enqueueScoreBatchesPaged(ctx, (after, limit) => listListingIdsToScore(ctx.database.db, after, limit), `model-${version}`);
}

export async function runModelJob(ctx: AppContext, payload: Payload<'model'>, signal?: AbortSignal): Promise<Record<string, unknown>> {
  if (payload.action === 'train') {
    const info = await trainAndStoreModel(ctx.database.db, {}, signal);
    ctx.logger.info({ version: info.version, rows: info.trainingRows, seconds: info.trainingSeconds, metrics: info.metrics }, 'model trained');
    await ctx.queues.enqueue('model', { action: 'rescore-all', reason: 'new-model', version: info.version });
    return { version: info.version, trainingRows: info.trainingRows };
  }
  const version = payload.version ?? (await latestModelVersion(ctx.database.db))?.version;
  if (!version) return { rescored: 0, note: 'no model yet' };
  const rescored = await enqueueRescoreAll(ctx, version);
  ctx.logger.info({ version, rescored }, 'rescore enqueued');
  return { version, rescored };
}
