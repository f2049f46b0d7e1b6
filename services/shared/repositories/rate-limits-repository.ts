/**
 * Fixed-window counters in PostgreSQL, so limits hold across API replicas. One atomic upsert per
 * hit: a window that has run out starts again at 1.
 */
import { eq, sql } from 'drizzle-orm';
import { rateLimitCounters } from '../../../db/schema/index.js';
import type { DbOrTx } from '../database/db.js';

export type CounterState = { hits: number; resetAt: Date };

export async function hitCounter(db: DbOrTx, key: string, windowSeconds: number): Promise<CounterState> {
  const rows = await db.execute<{ hits: number; reset_at: Date | string }>(sql`
    INSERT INTO rate_limit_counters AS c (key, window_start, hits) VALUES (${key}, now(), 1)
    ON CONFLICT (key) DO UPDATE SET
      hits = CASE WHEN c.window_start + make_interval(secs => ${windowSeconds}) <= now() THEN 1 ELSE c.hits + 1 END,
      window_start = CASE WHEN c.window_start + make_interval(secs => ${windowSeconds}) <= now() THEN now() ELSE c.window_start END
    RETURNING hits, window_start + make_interval(secs => ${windowSeconds}) AS reset_at`);
  const row = rows[0]!;
  return { hits: row.hits, resetAt: new Date(row.reset_at) };
}

/** The live window's count, without counting this look. */
export async function peekCounter(db: DbOrTx, key: string, windowSeconds: number): Promise<CounterState | undefined> {
  const rows = await db.execute<{ hits: number; reset_at: Date | string }>(sql`
    SELECT hits, window_start + make_interval(secs => ${windowSeconds}) AS reset_at FROM rate_limit_counters
    WHERE key = ${key} AND window_start + make_interval(secs => ${windowSeconds}) > now()`);
  const row = rows[0];
  return row ? { hits: row.hits, resetAt: new Date(row.reset_at) } : undefined;
}

export async function clearCounter(db: DbOrTx, key: string): Promise<void> {
  await db.delete(rateLimitCounters).where(eq(rateLimitCounters.key, key));
}

export async function pruneCounters(db: DbOrTx, olderThanSeconds: number): Promise<void> {
  await db.delete(rateLimitCounters).where(sql`${rateLimitCounters.windowStart} < now() - make_interval(secs => ${olderThanSeconds})`);
}
