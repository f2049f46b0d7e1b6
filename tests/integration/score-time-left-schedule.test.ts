/**
 * The time-left rescore: an open auction priced under its fair value, or carrying bid limits (they
 * rise as the close nears), is rescored once its time left has shrunk by more than a fifth since
 * its last score — and nothing else is. A tick only enqueues, and two schedulers firing the same
 * tick add each job once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEDULES } from '../../services/scheduler/schedules.js';
import { enqueueTimeRescores, SCORE_SCHEDULES } from '../../services/scorer/score-schedules.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ env: { SCORE_TIME_LEFT_SCHEDULE: '*/5 * * * *' } });
});
afterAll(async () => {
  await ctx?.close();
});

describe('score-time-left schedule', () => {
  it('is registered with the scheduler, its cron from configuration', () => {
    for (const schedule of SCORE_SCHEDULES) expect(SCHEDULES).toContain(schedule);
    expect(SCORE_SCHEDULES.map((s) => [s.name, s.cron(ctx)])).toEqual([['score-time-left', '*/5 * * * *']]);
  });

  it('enqueues exactly the auctions whose low-price score has gone stale, once per tick', async () => {
    const now = new Date();
    const at = (ms: number) => new Date(now.getTime() + ms);
    const source = await insertSource(ctx.database.db);
    const under = { status: 'open' as const, priceUsd: 20_000, fairValue: 40_000, dealScore: 560 };
    const [tenDaysStale, tenDaysFresh, aboveValue, ended, neverScored, lastHourStale, lastHourFresh, closed, limited] = await insertListings(
      ctx.database.db,
      source,
      [
        // 13 days left when scored, 10 now: shrunk by 23% → due
        { title: 'a', ...under, auctionEndAt: at(10 * DAY), scoredAt: at(-3 * DAY) },
        // scored an hour ago with 10 days left → not due
        { title: 'b', ...under, auctionEndAt: at(10 * DAY), scoredAt: at(-HOUR) },
        // priced over fair value: time left does not change its score
        { title: 'c', ...under, priceUsd: 50_000, auctionEndAt: at(2 * HOUR), scoredAt: at(-3 * DAY) },
        // already ended
        { title: 'd', ...under, auctionEndAt: at(-HOUR), scoredAt: at(-3 * DAY) },
        // never valued
        { title: 'e', ...under, fairValue: null, dealScore: null, auctionEndAt: at(2 * HOUR), scoredAt: null },
        // 80 minutes left when scored, 60 now → due
        { title: 'f', ...under, auctionEndAt: at(HOUR), scoredAt: at(-20 * 60_000) },
        // 70 minutes left when scored, 60 now → not yet
        { title: 'g', ...under, auctionEndAt: at(HOUR), scoredAt: at(-10 * 60_000) },
        // closed at the source
        { title: 'h', ...under, status: 'closed', auctionEndAt: at(HOUR), scoredAt: at(-DAY) },
        // priced over fair value but with bid limits worked out days ago: they rise as the close nears → due
        { title: 'i', ...under, priceUsd: 50_000, auctionEndAt: at(2 * HOUR), scoredAt: at(-3 * DAY), goodBidLimit: null,
          bidLimits: { excellent: null, good: null, market: 36_363, poor: 52_000, premium_rate: 0.1, hours_left: 74, at_most: 'fair', reachable_hours_left: { excellent: 16.8, good: 26.6 } } },
      ],
    );
    void [tenDaysFresh, aboveValue, ended, neverScored, lastHourFresh, closed];

    expect(await enqueueTimeRescores(ctx, '202611210900', now)).toBe(3);
    expect(await enqueueTimeRescores(ctx, '202611210900', now)).toBe(3); // a second scheduler, same tick
    const jobs = await ctx.queues.queue('score').getJobs(['waiting', 'delayed', 'prioritized']);
    expect(jobs.map((j) => j.data).sort((a, b) => a.listingId - b.listingId)).toEqual([
      { listingId: tenDaysStale!.id, reason: 'rescore', version: 'time-202611210900' },
      { listingId: lastHourStale!.id, reason: 'rescore', version: 'time-202611210900' },
      { listingId: limited!.id, reason: 'rescore', version: 'time-202611210900' },
    ]);
  });
});
