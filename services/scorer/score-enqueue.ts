/** Queueing `score` jobs for many listings (after a new model, or as auctions' time runs out). */
import type { AppContext } from '../shared/context.js';

const PAGE = 1000;

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
