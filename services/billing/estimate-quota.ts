/**
 * What is it worth's limits (issue 38): a Free account — or an address without one — gets
 * ESTIMATE_FREE_DAILY estimates per UTC day, Pro unlimited; and every caller at most
 * ESTIMATE_RATE_PER_MINUTE a minute, counted per account and per address (so neither many
 * accounts behind one address nor one account from many addresses goes beyond it). Counters live
 * in PostgreSQL, so the limits hold across API replicas.
 */
import type { AppContext } from '../shared/context.js';
import { forbidden, tooManyRequests } from '../shared/errors.js';
import { hitCounter } from '../shared/repositories/rate-limits-repository.js';
import { entitlementsOf } from './billing-service.js';

export const ESTIMATE_MESSAGES = {
  daily: (n: number) => `You have used your ${n} free estimates today. Upgrade to Pro for unlimited estimates.`,
} as const;

/** Counts one estimate; throws 429 past the per-minute limit, 403 past a Free plan's daily allowance. */
export async function takeEstimateQuota(ctx: AppContext, caller: { userId: number | null; address: string }, now = new Date()): Promise<{ plan: 'free' | 'pro'; left: number | null }> {
  const db = ctx.database.db;
  const { ESTIMATE_FREE_DAILY: daily, ESTIMATE_RATE_PER_MINUTE: perMinute } = ctx.config;
  const who = [`ip:${caller.address}`, ...(caller.userId !== null ? [`user:${caller.userId}`] : [])];
  for (const key of who) {
    const minute = await hitCounter(db, `estimate:minute:${key}`, 60);
    if (minute.hits > perMinute) throw tooManyRequests(Math.max(1, Math.ceil((minute.resetAt.getTime() - now.getTime()) / 1000)));
  }
  const plan = caller.userId !== null ? (await entitlementsOf(db, caller.userId, now)).plan : 'free';
  if (plan === 'pro') return { plan, left: null };
  const day = now.toISOString().slice(0, 10);
  const used = await hitCounter(db, `estimate:day:${caller.userId !== null ? `user:${caller.userId}` : `ip:${caller.address}`}:${day}`, 86_400);
  if (used.hits > daily) throw forbidden(ESTIMATE_MESSAGES.daily(daily));
  return { plan, left: daily - used.hits };
}
