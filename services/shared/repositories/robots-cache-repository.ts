/** robots.txt per origin, shared by every crawler replica. */
import { and, eq, gt, sql } from 'drizzle-orm';
import { robotsCache } from '../../../db/schema/crawl.js';
import type { DbOrTx } from '../database/db.js';

export type RobotsEntry = typeof robotsCache.$inferSelect;

export async function findFreshRobots(db: DbOrTx, origin: string): Promise<RobotsEntry | undefined> {
  const [row] = await db.select().from(robotsCache).where(and(eq(robotsCache.origin, origin), gt(robotsCache.expiresAt, sql`now()`)));
  return row;
}

export async function saveRobots(
  db: DbOrTx,
  entry: { origin: string; statusCode: number | null; body: string; policy: 'allow-all' | 'disallow-all' | 'parsed'; ttlMs: number },
): Promise<void> {
  const values = {
    origin: entry.origin,
    statusCode: entry.statusCode,
    body: entry.body,
    policy: entry.policy,
    fetchedAt: sql`now()`,
    expiresAt: sql`now() + make_interval(secs => ${entry.ttlMs / 1000})`,
  };
  await db.insert(robotsCache).values(values).onConflictDoUpdate({ target: robotsCache.origin, set: values });
}
