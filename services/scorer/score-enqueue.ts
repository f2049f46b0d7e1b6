/** Queueing scoring work for many listings (after a new model, or as auctions' time runs out). */
import type { AppContext } from '../shared/context.js';
import { SCORE_BATCH_MAX } from '../shared/queues.js';

const PAGE = 1000;
/** Batch jobs added per round trip to the queue store. */
const BATCH_JOBS_PER_ADD = 20;

/**
 * One `score` job per listing id that `listPage(afterId, limit)` yields, a page at a time in id
 * order; `version` goes into each job id. Returns how many were queued.
 */
export async function enqueueScoreJobsPaged(
  ctx: AppContext,
  listPage: (afterId: number, limit: number) => Promise<number[]>,
  version: string,
): Promise<number> {
  let after = 0;
  let count = 0;
  for (;;) {
    const ids = await listPage(after, PAGE);
    if (ids.length === 0) break;
    await ctx.queues.enqueueBulk(
      'score',
      ids.map((listingId) => ({ listingId, reason: 'rescore' as const, version })),
    );
    count += ids.length;
    after = ids[ids.length - 1]!;
  }
  return count;
}

/**
 * The same listings as `score-batch` jobs of `batchSize` ids each (a rescore of everything: the
 * model's block prediction and one write per batch). Returns how many listings were queued.
 */
export async function enqueueScoreBatchesPaged(
  ctx: AppContext,
  listPage: (afterId: number, limit: number) => Promise<number[]>,
  version: string,
  batchSize = SCORE_BATCH_MAX,
): Promise<number> {
  const size = Math.max(1, Math.min(SCORE_BATCH_MAX, batchSize));
  let after = 0;
  let count = 0;
  let pending: Array<{ listingIds: number[]; version: string }> = [];
  for (;;) {
    const ids = await listPage(after, size);
    if (ids.length > 0) {
      pending.push({ listingIds: ids, version });
      count += ids.length;
      after = ids[ids.length - 1]!;
    }
    if (pending.length >= BATCH_JOBS_PER_ADD || (ids.length === 0 && pending.length > 0)) {
      await ctx.queues.enqueueBulk('scoreBatch', pending);
      pending = [];
    }
    if (ids.length === 0) break;
  }
  return count;
}
