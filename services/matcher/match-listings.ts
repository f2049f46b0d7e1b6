/**
 * The match and digest job handlers. A match job records, in one set-based statement, a
 * notification for every active alert the changed listing now satisfies (deals only, unless the
 * alert says otherwise; again only on a material change), then hands the instant ones to the
 * notifier (those beyond the alert's daily cap become daily at that point); daily ones wait for
 * the digest. A digest job gathers a day's daily
 * matches into one message per alert. Both are idempotent: a second run sends nothing new.
 */
import type { Job } from 'bullmq';
import type { AppContext } from '../shared/context.js';
import { faultPoint } from '../shared/fault-points.js';
import type { JobHandler, Payload } from '../shared/queues.js';
import { gatherDigests, matchChangedListings } from '../shared/repositories/alerts-repository.js';
import { dispatchDigests, dispatchInstantNotifications } from './dispatch-notifications.js';
import { dispatchDueWatches, type DispatchOutcome } from './dispatch-watch-notices.js';

type Deps = Pick<AppContext, 'config' | 'database' | 'queues' | 'logger'>;

export type MatchOutcome = { matched: number; queued: number };

export function createMatchHandler(deps: Deps): JobHandler<'match'> {
  return async (payload: Payload<'match'>, job?: Pick<Job, 'attemptsMade' | 'stalledCounter'>): Promise<MatchOutcome> => {
    const now = new Date();
    const matched = await matchChangedListings(deps.database.db, [{ listingId: payload.listingId, trigger: payload.event }], now);
    faultPoint('match-recorded');
    const queued = await dispatchInstantNotifications(deps, [payload.listingId], now, { rerun: isRerun(job) });
    if (matched > 0 || queued > 0) deps.logger.info({ listingId: payload.listingId, event: payload.event, matched, queued }, 'listing matched alerts');
    return { matched, queued };
  };
}

/**
 * Whether a job ran before: it failed (a retry) or its worker died with it (BullMQ's stalled
 * check put it back: `stalledCounter`). Its first run may have stopped anywhere.
 */
export function isRerun(job: Pick<Job, 'attemptsMade' | 'stalledCounter'> | undefined): boolean {
  return (job?.attemptsMade ?? 0) > 0 || (job?.stalledCounter ?? 0) > 0;
}

export function createDigestHandler(deps: Deps): JobHandler<'alertDigest'> {
  return async (payload: Payload<'alertDigest'>): Promise<{ gathered: number; queued: number }> => {
    const now = new Date();
    const gathered = await gatherDigests(deps.database.db, payload.day, now);
    const queued = await dispatchDigests(deps, payload.day, now);
    deps.logger.info({ day: payload.day, gathered, queued }, 'daily alert digests');
    return { gathered, queued };
  };
}

/** The watchlist tick: every reminder and notice due now (issue 31). */
export function createWatchDueHandler(deps: Deps): JobHandler<'watchDue'> {
  return async (payload: Payload<'watchDue'>): Promise<DispatchOutcome> => {
    const outcome = await dispatchDueWatches(deps, new Date());
    if (outcome.evaluated > 0) deps.logger.info({ slot: payload.slot, ...outcome }, 'watchlist notices');
    return outcome;
  };
}
