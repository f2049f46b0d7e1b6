/**
 * One `score` job: value the listing with the newest model, pick its comparables, score the deal,
 * write it all on the listing, then tell the matcher. Idempotent: rescoring writes the same
 * values and the match job id is derived from them.
 */
import type { AppContext } from '../shared/context.js';
import { NonRetryableError } from '../shared/errors.js';
import type { Payload } from '../shared/queues.js';
import { getListingForScoring, writeListingScore } from '../shared/repositories/listing-scores-repository.js';
import { findComparableCandidates } from '../shared/repositories/sold-results-repository.js';
import { scoreListing, type ListingScore } from '../valuation/score-listing.js';
import type { ModelStore } from './model-store.js';
import { soldResultToCandidate } from './sales-history.js';

export type ScoreOutcome = { listingId: number; modelVersion: number; score: ListingScore } | { listingId: number; skipped: 'no-model' };

export async function runScoreJob(ctx: AppContext, models: ModelStore, payload: Payload<'score'>, now = new Date()): Promise<ScoreOutcome> {
  const { db } = ctx.database;
  const listing = await getListingForScoring(db, payload.listingId);
  if (!listing) throw new NonRetryableError(`listing ${payload.listingId} does not exist`);
  const newest = await models.newest();
  // Without any trained model nothing can be valued; the job fails (and is kept) so it is visible
  // and the rescore-all after the first training picks the listing up.
  if (!newest) throw new NonRetryableError('no trained model yet: run `npm run model:train` (or wait for the scheduled training)');
  const candidates = (
    await findComparableCandidates(db, { categoryId: listing.categoryId, model: listing.model, modelFamily: listing.modelFamily })
  ).map(soldResultToCandidate);
  const priceUsd = listing.priceUsd ?? (listing.currency === 'USD' ? listing.price : null);
  const score = scoreListing({ ...listing, priceUsd }, newest.model, candidates, now);
  await writeListingScore(db, listing.id, {
    dealScore: score.dealScore,
    fairValue: score.fairValue,
    valueLow: score.valueLow,
    valueHigh: score.valueHigh,
    valuationConfidence: score.valuationConfidence,
    comparables: score.comparables,
    modelVersion: newest.version,
    scoredAt: now,
  });
  await ctx.queues.enqueue('match', {
    listingId: listing.id,
    event: 'scored',
    eventKey: `v${newest.version}-${score.dealScore ?? 'none'}-${priceUsd ?? 'none'}`.slice(0, 64),
  });
  ctx.logger.debug({ listingId: listing.id, score: score.dealScore, reason: score.reason }, 'listing scored');
  return { listingId: listing.id, modelVersion: newest.version, score };
}
