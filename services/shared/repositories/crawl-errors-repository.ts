/** What went wrong during crawls, per source and run; read by `npm run sources` and the CLI summary. */
import { and, desc, eq, gte, inArray, sql } from 'drizzle-orm';
import { crawlErrors, crawlRuns } from '../../../db/schema/crawl.js';
import type { DbOrTx } from '../database/db.js';

/**
 * `parse`: a page that should hold listings did not (a ParseError, or a content page with none) —
 * what makes a run `layout-changed`; `login`: a login wall; `not-found`: the lot is gone (an HTTP
 * 404 or a site's not-found template).
 */
export type CrawlErrorKind = 'http' | 'network' | 'parse' | 'robots' | 'blocked' | 'login' | 'not-found' | 'refused' | 'too-large' | 'internal';

export async function recordCrawlError(
  db: DbOrTx,
  error: { runId?: number | null; sourceId: number; url?: string | null; kind: CrawlErrorKind; statusCode?: number | null; message: string },
): Promise<void> {
  await db.insert(crawlErrors).values({
    runId: error.runId ?? null,
    sourceId: error.sourceId,
    url: error.url?.slice(0, 2048) ?? null,
    kind: error.kind,
    statusCode: error.statusCode ?? null,
    message: error.message.slice(0, 2000),
  });
  if (error.runId) await db.update(crawlRuns).set({ errors: sql`${crawlRuns.errors} + 1` }).where(eq(crawlRuns.id, error.runId));
}

export async function listRunErrors(db: DbOrTx, runId: number, limit = 50) {
  return db.select().from(crawlErrors).where(eq(crawlErrors.runId, runId)).orderBy(desc(crawlErrors.id)).limit(limit);
}

export async function countSourceErrorsSince(db: DbOrTx, sourceId: number, since: Date): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(crawlErrors)
    .where(and(eq(crawlErrors.sourceId, sourceId), gte(crawlErrors.createdAt, since)));
  return row?.n ?? 0;
}

/** A run's failing URLs (distinct, latest first) and latest message for the given kinds. */
export async function runErrorDetail(db: DbOrTx, runId: number, kinds: CrawlErrorKind[], limit = 5): Promise<{ message: string | null; urls: string[] }> {
  const rows = await db
    .select({ url: crawlErrors.url, message: crawlErrors.message })
    .from(crawlErrors)
    .where(and(eq(crawlErrors.runId, runId), inArray(crawlErrors.kind, kinds)))
    .orderBy(desc(crawlErrors.id))
    .limit(200);
  const urls: string[] = [];
  for (const r of rows) if (r.url && !urls.includes(r.url) && urls.length < limit) urls.push(r.url);
  return { message: rows[0]?.message ?? null, urls };
}
