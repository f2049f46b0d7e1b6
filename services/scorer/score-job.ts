/**
 * One `score` job: value the listing with the newest model, pick its comparables, score the deal,
 * write it all on the listing, then tell the matcher (the batch path with a batch of one).
 * Before the first model the job completes without a score; the rescore after the first training
 * values the listing.
 */
import type { AppContext } from '../shared/context.js';
import { NonRetryableError } from '../shared/errors.js';
import type { Payload } from '../shared/queues.js';
import type { ListingScore } from '../valuation/score-listing.js';
import type { ModelStore } from './model-store.js';
import { scoreAndWrite } from './score-batch.js';

export type ScoreOutcome = { listingId: number; modelVersion: number; score: ListingScore } | { listingId: number; skipped: 'no-model' };

export async function runScoreJob(ctx: AppContext, models: ModelStore, payload: Payload<'score'>, now = new Date()): Promise<ScoreOutcome> {
  const outcome = await scoreAndWrite(ctx, models, [payload.listingId], { now });
  if (outcome.missing.length > 0) throw new NonRetryableError(`listing ${payload.listingId} does not exist`);
  if ('skipped' in outcome) {
    ctx.logger.debug({ listingId: payload.listingId }, 'no model yet: the listing waits for the first training');
    return { listingId: payload.listingId, skipped: 'no-model' };
  }
  const { score } = outcome.scored[0]!;
  ctx.logger.debug({ listingId: payload.listingId, score: score.dealScore, reason: score.reason }, 'listing scored');
  return { listingId: payload.listingId, modelVersion: outcome.modelVersion, score };
}
