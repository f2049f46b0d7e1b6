/**
 * Scoring listings and writing their scores, one listing or a batch alike: read them in one query,
 * value them with one block prediction of the newest model (its fast path), write every score in
 * one statement, then tell the matcher about the listings alerts can still match. Idempotent:
 * scoring again writes the same values, and match job ids are derived from them.
 */
import type { AppContext } from '../shared/context.js';
import {
  getListingsForScoring,
  markListingsAwaitingModel,
  writeListingScores,
  type ListingForScoring,
} from '../shared/repositories/listing-scores-repository.js';
import { findComparableCandidates } from '../shared/repositories/sold-results-repository.js';
import { followGoodBidLimits } from '../shared/repositories/watchlist-repository.js';
import { storedBidLimits } from '../valuation/bid-limits.js';
import { badgeScore } from '../alerts/alert-matching.js';
import { comparableDistance, type ComparableCandidate, type ComparableTarget } from '../valuation/comparables.js';
import { scoreListings, type ListingScore, type ListingToScore } from '../valuation/score-listing.js';
import { faultPoint } from '../shared/fault-points.js';
import type { ComparablePoolCache } from './comparable-pool.js';
import type { ModelStore } from './model-store.js';
import { soldResultToCandidate } from './sales-history.js';

/** What the deal page says while no model exists yet; the rescore after the first training replaces it. */
export const AWAITING_MODEL_REASON = 'Being valued: the first valuation model is still being trained';

/** Where comparables come from: for a batch, a lookup prepared once for all its listings. */
export type CandidateSource = (ctx: AppContext, listings: ListingToScore[], now: Date) => Promise<(listing: ListingToScore) => ComparableCandidate[]>;

/** The candidates per listing straight from PostgreSQL, one query per distinct (type, model, family, make) in the batch. */
export const candidatesFromDatabase: CandidateSource = async (ctx, listings) => {
  const byKey = new Map<string, ComparableCandidate[]>();
  for (const listing of listings) {
    const key = candidateKey(listing);
    if (byKey.has(key)) continue;
    const rows = await findComparableCandidates(ctx.database.db, {
      categoryId: listing.categoryId,
      model: listing.model,
      modelFamily: listing.modelFamily,
      make: listing.make,
    });
    byKey.set(key, rows.map(soldResultToCandidate));
  }
  return (listing) => byKey.get(candidateKey(listing)) ?? [];
};

/** The candidates from the process's in-memory pool of sales (batch rescoring: no query per listing). */
export function candidatesFromPool(cache: ComparablePoolCache): CandidateSource {
  return async (_ctx, _listings, now) => {
    const pool = await cache.get();
    return (listing) => closestCandidates(listing, pool.candidatesFor(listing), now);
  };
}

/** Comparables a deal page shows (selectComparables' limit in scoreListing), with a margin. */
const KEEP_CLOSEST = 10;

/**
 * The candidates that can be among the closest `keep`, in their original order: every candidate
 * whose (distance, newest first) key is no worse than the keep-th best, ties included. Ranking up to
 * 400 candidates per listing (an object per candidate, then a sort) was two thirds of a batch's CPU;
 * ranking this subset picks the same comparables, because selectComparables orders by the same
 * distance (comparableDistance, the function it uses) then newest first, with a stable sort, and
 * every pool candidate passes its model/family/make filter (the pool matched with the same
 * normalisation). scoring-batch.test.ts checks the outcome equals scoring one at a time on all candidates.
 */
export function closestCandidates(target: ComparableTarget, candidates: ComparableCandidate[], now: Date, keep = KEEP_CLOSEST): ComparableCandidate[] {
  const n = candidates.length;
  if (n <= keep) return candidates;
  const distance = new Float64Array(n);
  for (let i = 0; i < n; i++) distance[i] = comparableDistance(target, candidates[i]!, now);
  const time = (i: number) => candidates[i]!.soldAt.getTime();
  /** a ranks before b (or level with it). */
  const notWorse = (a: number, b: number) => distance[a]! < distance[b]! || (distance[a] === distance[b] && time(a) >= time(b));
  // the best `keep` indices, worst last
  const best: number[] = [];
  for (let i = 0; i < n; i++) {
    if (best.length === keep && notWorse(best[keep - 1]!, i)) continue;
    let at = best.length === keep ? keep - 1 : best.length;
    while (at > 0 && !notWorse(best[at - 1]!, i)) {
      best[at] = best[at - 1]!;
      at--;
    }
    best[at] = i;
    if (best.length > keep) best.length = keep;
  }
  const worst = best[best.length - 1]!;
  const out: ComparableCandidate[] = [];
  for (let i = 0; i < n; i++) if (notWorse(i, worst)) out.push(candidates[i]!);
  return out;
}

function candidateKey(l: Pick<ListingToScore, 'categoryId' | 'model' | 'modelFamily' | 'make'>): string {
  return JSON.stringify([l.categoryId, l.model, l.modelFamily, l.make]);
}

export type ScoredListing = { listingId: number; score: ListingScore };
export type BatchOutcome =
  | { modelVersion: number; scored: ScoredListing[]; missing: number[] }
  | { skipped: 'no-model'; waiting: number[]; missing: number[] };

/** The price the deal is scored on: USD, or the source's price when it is already in dollars. */
function toScore(listing: ListingForScoring): ListingForScoring {
  return { ...listing, priceUsd: listing.priceUsd ?? (listing.currency === 'USD' ? listing.price : null) };
}

/** Open and not yet ended: the only listings an alert can still match. */
function live(listing: ListingToScore, now: Date): boolean {
  return listing.status === 'open' && (listing.auctionEndAt === null || listing.auctionEndAt.getTime() > now.getTime());
}

/**
 * Whether a rescore can make the listing match an alert it did not match before: alerts ask for a
 * minimum badge score, so only a first score or a higher badge can. (Price, place and words do not
 * change in a rescore; the matcher never notifies a listing twice for one alert.)
 */
export function rescoreCanNewlyMatch(previous: number | null, next: number | null): boolean {
  if (next === null) return false;
  return previous === null || badgeScore(next) > badgeScore(previous);
}

export async function scoreAndWrite(
  ctx: AppContext,
  models: ModelStore,
  ids: number[],
  opts: {
    now?: Date;
    candidates?: CandidateSource;
    /** `rescore`: tell the matcher only of listings whose new score could match an alert anew (a rescore of everything). */
    matchWhen?: 'always' | 'rescore';
  } = {},
): Promise<BatchOutcome> {
  const now = opts.now ?? new Date();
  const { db } = ctx.database;
  const rows = await getListingsForScoring(db, ids);
  const found = new Set(rows.map((r) => r.id));
  const missing = ids.filter((id) => !found.has(id));
  const newest = await models.newest();
  if (!newest) {
    // Nothing can be valued before the first model. The job is done rather than failed: the
    // training job's rescore of every listing values these too, and meanwhile their deal pages say why.
    const waiting = rows.filter((r) => r.modelVersion === null).map((r) => r.id);
    await markListingsAwaitingModel(db, waiting, AWAITING_MODEL_REASON);
    return { skipped: 'no-model', waiting, missing };
  }
  const listings = rows.map(toScore);
  const candidatesFor = await (opts.candidates ?? candidatesFromDatabase)(ctx, listings, now);
  const scores = scoreListings(listings, newest.model, candidatesFor, now);
  await writeListingScores(
    db,
    listings.map((listing, i) => {
      const score = scores[i]!;
      return {
        id: listing.id,
        dealScore: score.dealScore,
        fairValue: score.fairValue,
        valueLow: score.valueLow,
        valueHigh: score.valueHigh,
        valuationConfidence: score.valuationConfidence,
        comparables: score.comparables,
        modelVersion: newest.version,
        scoredAt: now,
        scoreReason: score.reasonText,
        valuationAsOf: score.asOf,
        // stored with the score only: an unscored lot has no limits to show
        bidLimits: score.dealScore !== null && score.bidLimits ? storedBidLimits(score.bidLimits) : null,
      };
    }),
  );
  // watches whose maximum is the lot's Good limit follow it (a buyer's own maximum stays)
  await followGoodBidLimits(db, listings.map((l) => l.id));
  faultPoint('score-written');
  const toMatch = listings.flatMap((listing, i) =>
    live(listing, now) && (opts.matchWhen !== 'rescore' || rescoreCanNewlyMatch(listing.dealScore, scores[i]!.dealScore)) ? [{ listing, score: scores[i]! }] : [],
  );
  await ctx.queues.enqueueBulk(
    'match',
    toMatch.map(({ listing, score }) => ({
      listingId: listing.id,
      event: 'scored' as const,
      eventKey: `v${newest.version}-${score.dealScore ?? 'none'}-${listing.priceUsd ?? 'none'}`.slice(0, 64),
    })),
  );
  return { modelVersion: newest.version, scored: listings.map((l, i) => ({ listingId: l.id, score: scores[i]! })), missing };
}

/** One `score-batch` job: the listings that still exist are scored; those deleted meanwhile are skipped. */
export async function runScoreBatchJob(
  ctx: AppContext,
  models: ModelStore,
  payload: { listingIds: number[] },
  opts: { now?: Date; candidates?: CandidateSource } = {},
): Promise<{ scored: number; valued: number; missing: number } | { waiting: number; missing: number }> {
  const outcome = await scoreAndWrite(ctx, models, payload.listingIds, { ...opts, matchWhen: 'rescore' });
  if ('skipped' in outcome) return { waiting: outcome.waiting.length, missing: outcome.missing.length };
  const valued = outcome.scored.filter((s) => s.score.fairValue !== null).length;
  ctx.logger.debug({ first: payload.listingIds[0], scored: outcome.scored.length, valued }, 'batch scored');
  return { scored: outcome.scored.length, valued, missing: outcome.missing.length };
}
