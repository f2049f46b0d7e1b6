/**
 * Crawl runs and their steps. Every step a run queues is a row, inserted once; `pending_steps`
 * moves only when a row is inserted or leaves `pending`, so retries, duplicates and restarts
 * never miscount, and whichever replica finishes the last step finishes the run.
 */
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { crawlRuns, crawlRunSteps, type CrawlRun } from '../../../db/schema/crawl.js';
import type { Db, DbOrTx } from '../database/db.js';
import type { SourceStatus } from '../../../db/schema/catalog.js';
import { runErrorDetail, type CrawlErrorKind } from './crawl-errors-repository.js';
import { recordSourceOutcome } from './sources-repository.js';

export type RunStats = Partial<Pick<CrawlRun, 'pages' | 'lotsNew' | 'lotsUpdated' | 'lotsUnchanged' | 'errors'>>;

/** The run of (source, trigger), created on first call: a start job that runs twice makes one run. */
export async function openRun(
  db: DbOrTx,
  input: { sourceId: number; reason: string; triggerKey: string; dryRun?: boolean; lotLimit?: number | null },
): Promise<{ run: CrawlRun; created: boolean }> {
  const [created] = await db
    .insert(crawlRuns)
    .values({ sourceId: input.sourceId, reason: input.reason, triggerKey: input.triggerKey, dryRun: input.dryRun ?? false, lotLimit: input.lotLimit ?? null })
    .onConflictDoNothing({ target: [crawlRuns.sourceId, crawlRuns.triggerKey] })
    .returning();
  if (created) return { run: created, created: true };
  const [existing] = await db
    .select()
    .from(crawlRuns)
    .where(and(eq(crawlRuns.sourceId, input.sourceId), eq(crawlRuns.triggerKey, input.triggerKey)));
  return { run: existing!, created: false };
}

export async function findRun(db: DbOrTx, runId: number): Promise<CrawlRun | undefined> {
  const [run] = await db.select().from(crawlRuns).where(eq(crawlRuns.id, runId));
  return run;
}

export async function listRecentRuns(db: DbOrTx, sourceId: number, limit = 20): Promise<CrawlRun[]> {
  return db.select().from(crawlRuns).where(eq(crawlRuns.sourceId, sourceId)).orderBy(desc(crawlRuns.id)).limit(limit);
}

/**
 * Registers steps (idempotent); returns the keys that were new. The rows and the run's count in
 * one transaction: a process killed in between would leave steps the count does not know of.
 */
export async function addSteps(db: DbOrTx, runId: number, stepKeys: string[]): Promise<string[]> {
  if (stepKeys.length === 0) return [];
  return db.transaction(async (tx) => {
    const inserted = await tx
      .insert(crawlRunSteps)
      .values([...new Set(stepKeys)].map((stepKey) => ({ runId, stepKey })))
      .onConflictDoNothing()
      .returning({ stepKey: crawlRunSteps.stepKey });
    if (inserted.length > 0) {
      await tx
        .update(crawlRuns)
        .set({ pendingSteps: sql`${crawlRuns.pendingSteps} + ${inserted.length}`, stepsTotal: sql`${crawlRuns.stepsTotal} + ${inserted.length}` })
        .where(eq(crawlRuns.id, runId));
    }
    return inserted.map((r) => r.stepKey);
  });
}

/**
 * Reserves up to `wanted` lots under the run's lot limit (all of them when it has none);
 * returns how many were granted.
 */
export async function reserveLots(db: DbOrTx, runId: number, wanted: number): Promise<number> {
  if (wanted <= 0) return 0;
  const rows = await db.execute<{ granted: number }>(sql`
    WITH before AS (SELECT lots_queued, lot_limit FROM crawl_runs WHERE id = ${runId} FOR UPDATE)
    UPDATE crawl_runs r
       SET lots_queued = r.lots_queued + CASE WHEN b.lot_limit IS NULL THEN ${wanted} ELSE greatest(0, least(${wanted}, b.lot_limit - b.lots_queued)) END
      FROM before b
     WHERE r.id = ${runId}
 RETURNING CASE WHEN b.lot_limit IS NULL THEN ${wanted} ELSE greatest(0, least(${wanted}, b.lot_limit - b.lots_queued)) END AS granted`);
  return Number(rows[0]?.granted ?? 0);
}

export async function addRunStats(db: DbOrTx, runId: number, stats: RunStats): Promise<void> {
  const set: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stats) as [keyof RunStats, number | undefined][]) {
    if (value) set[key] = sql`${crawlRuns[key]} + ${value}`;
  }
  if (Object.keys(set).length > 0) await db.update(crawlRuns).set(set).where(eq(crawlRuns.id, runId));
}

export async function markRunBlocked(db: DbOrTx, runId: number): Promise<void> {
  await db.update(crawlRuns).set({ blocked: true }).where(eq(crawlRuns.id, runId));
}

/**
 * Moves a step out of `pending` (once), adds its stats, and, when it was the run's last step,
 * finishes the run with its outcome. Returns the finished run, if this call finished it.
 *
 * The last step's move and the run's close commit together: a process killed between them left
 * the run `running` with nothing pending, for ever (the step's rerun found it moved already).
 * A rerun of a step already moved also closes a run with no step pending any more, which
 * mends a run left so before.
 */
export async function finishStep(
  db: Db,
  runId: number,
  stepKey: string,
  state: 'done' | 'skipped' | 'failed',
  stats: RunStats = {},
): Promise<CrawlRun | undefined> {
  return db.transaction(async (tx) => {
    // One statement: the stats of a step count once, with its move out of pending.
    const [row] = await tx.execute<{ pending_steps: number }>(sql`
      WITH moved AS (
        UPDATE crawl_run_steps SET state = ${state}
         WHERE run_id = ${runId} AND step_key = ${stepKey} AND state = 'pending' RETURNING 1)
      UPDATE crawl_runs
         SET pending_steps = pending_steps - 1,
             pages = pages + ${stats.pages ?? 0},
             lots_new = lots_new + ${stats.lotsNew ?? 0},
             lots_updated = lots_updated + ${stats.lotsUpdated ?? 0},
             lots_unchanged = lots_unchanged + ${stats.lotsUnchanged ?? 0},
             errors = errors + ${stats.errors ?? 0}
       WHERE id = ${runId} AND state = 'running' AND EXISTS (SELECT 1 FROM moved)
   RETURNING pending_steps`);
    if (row) return row.pending_steps > 0 ? undefined : closeRun(tx, runId);
    // This step was moved before (a rerun after a crash, a duplicate): close the run if it is
    // still running with no step pending (closeRun leaves a finished run as it is).
    if ((await countPendingSteps(tx, [runId])) > 0) return undefined;
    return closeRun(tx, runId);
  });
}

/**
 * Finishes a running run now (last step done, or swept as stale) and records its outcome on the
 * source: `blocked` (a challenge page), `login-required` (only login walls, no lots), `ok` (lots
 * stored), `layout-changed` (no lots, and pages that should hold listings failed to: parse errors
 * or content pages without any), `error` (other failures), else `empty`.
 */
export async function closeRun(db: DbOrTx, runId: number): Promise<CrawlRun | undefined> {
  // One transaction: whoever sees the run finished sees the source's status from it too.
  return db.transaction(async (tx) => {
    const errorsOf = (kind: string) => sql`EXISTS (SELECT 1 FROM crawl_errors e WHERE e.run_id = ${crawlRuns.id} AND e.kind = ${kind})`;
    const lots = sql`${crawlRuns.lotsNew} + ${crawlRuns.lotsUpdated} + ${crawlRuns.lotsUnchanged}`;
    const [finished] = await tx
      .update(crawlRuns)
      .set({
        state: 'finished',
        finishedAt: sql`now()`,
        outcome: sql`CASE
          WHEN ${crawlRuns.blocked} THEN 'blocked'
          WHEN ${lots} = 0 AND ${errorsOf('login')} THEN 'login-required'
          WHEN ${lots} > 0 THEN 'ok'
          WHEN ${errorsOf('parse')} THEN 'layout-changed'
          WHEN ${crawlRuns.errors} > 0 THEN 'error'
          ELSE 'empty' END`,
      })
      .where(and(eq(crawlRuns.id, runId), eq(crawlRuns.state, 'running')))
      .returning();
    // A dry run is a look, not a crawl: the source's health stays what its real runs made it.
    if (finished && !finished.dryRun) {
      const outcome = (finished.outcome ?? 'error') as SourceStatus;
      const detailKinds: Partial<Record<SourceStatus, CrawlErrorKind[]>> = { 'layout-changed': ['parse'], 'login-required': ['login'], blocked: ['blocked'] };
      const kinds = detailKinds[outcome];
      const detail = kinds ? await runErrorDetail(tx, finished.id, kinds) : undefined;
      await recordSourceOutcome(tx, finished.sourceId, outcome, finished.finishedAt ?? new Date(), detail);
    }
    return finished;
  });
}

/** Runs left running longer than `olderThanMs` (their last job died for good): closed as they stand. */
export async function closeStaleRuns(db: DbOrTx, sourceId: number, olderThanMs: number): Promise<CrawlRun[]> {
  const stale = await db
    .select({ id: crawlRuns.id })
    .from(crawlRuns)
    .where(and(eq(crawlRuns.sourceId, sourceId), eq(crawlRuns.state, 'running'), sql`${crawlRuns.startedAt} < now() - make_interval(secs => ${olderThanMs / 1000})`));
  const closed: CrawlRun[] = [];
  for (const { id } of stale) {
    const run = await closeRun(db, id);
    if (run) closed.push(run);
  }
  return closed;
}

export async function countPendingSteps(db: DbOrTx, runIds: number[]): Promise<number> {
  if (runIds.length === 0) return 0;
  const rows = await db.select({ n: sql<number>`count(*)::int` }).from(crawlRunSteps).where(and(inArray(crawlRunSteps.runId, runIds), eq(crawlRunSteps.state, 'pending')));
  return rows[0]?.n ?? 0;
}
