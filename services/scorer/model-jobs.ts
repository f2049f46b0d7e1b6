/**
 * The `model` queue: `train` fits a new model on all sales history and then asks for a rescore of
 * every listing; `rescore-all` adds `score-batch` jobs (a thousand listings each) covering every
 * listing, for the newest model version.
 *
 * Cut off at any point, the job finishes after the restart without doing anything twice: the
 * model is stored in one statement with the job that trained it (a re-run of the job finds it and
 * goes on to the rescore), a listing's score is written in one statement with its model version,
 * and each start queues whatever listings the newest model has not scored yet
 * (finishInterruptedRescore). Until a new model is stored, the previous one serves.
 */
import type { Job } from 'bullmq';
import type { AppContext } from '../shared/context.js';
import { faultPoint } from '../shared/fault-points.js';
import type { Payload } from '../shared/queues.js';
import { listListingIdsNotOnVersion, listListingIdsToScore } from '../shared/repositories/listing-scores-repository.js';
import { findModelVersionByTrainJob, latestModelVersion } from '../shared/repositories/model-versions-repository.js';
import { enqueueScoreBatchesPaged } from './score-enqueue.js';
import { trainAndStoreModel, configuredTraining } from './train-model.js';

export function enqueueRescoreAll(ctx: AppContext, version: number): Promise<number> {
  return enqueueScoreBatchesPaged(ctx, (after, limit) => listListingIdsToScore(ctx.database.db, after, limit), `model-${version}`);
}

/** A training job's identity across its retries and stalls (a re-added job of the same id is another). */
export function trainJobKey(job: Pick<Job, 'id' | 'timestamp'>): string {
  return `${job.id}@${job.timestamp}`;
}

export async function runModelJob(
  ctx: AppContext,
  payload: Payload<'model'>,
  signal?: AbortSignal,
  job?: Pick<Job, 'id' | 'timestamp'>,
): Promise<Record<string, unknown>> {
  if (payload.action === 'train') {
    const key = job ? trainJobKey(job) : undefined;
    const stored = key ? await findModelVersionByTrainJob(ctx.database.db, key) : null;
    const info = stored ?? (await trainAndStoreModel(ctx.database.db, configuredTraining(ctx.config), signal, undefined, key));
    if (stored) ctx.logger.info({ version: info.version }, 'model of this training job already stored: going on to the rescore');
    else ctx.logger.info({ version: info.version, rows: info.trainingRows, seconds: info.trainingSeconds, metrics: info.metrics }, 'model trained');
    faultPoint('model-stored');
    await ctx.queues.enqueue('model', { action: 'rescore-all', reason: 'new-model', version: info.version });
    return { version: info.version, trainingRows: info.trainingRows };
  }
  const version = payload.version ?? (await latestModelVersion(ctx.database.db))?.version;
  if (!version) return { rescored: 0, note: 'no model yet' };
  const rescored = await enqueueRescoreAll(ctx, version);
  faultPoint('rescore-enqueued');
  ctx.logger.info({ version, rescored }, 'rescore enqueued');
  return { version, rescored };
}

/**
 * At start: the listings the newest model has not scored, queued for it. After a rescore cut off
 * part-way (its worker killed, its queue store lost) this finishes it; normally it finds nothing
 * but listings whose own scoring is still queued, which a second scoring leaves unchanged.
 */
export async function finishInterruptedRescore(ctx: AppContext): Promise<{ version: number; queued: number } | null> {
  const newest = await latestModelVersion(ctx.database.db);
  if (!newest) return null;
  const queued = await enqueueScoreBatchesPaged(
    ctx,
    (after, limit) => listListingIdsNotOnVersion(ctx.database.db, newest.version, after, limit),
    `model-${newest.version}`,
  );
  return { version: newest.version, queued };
}
