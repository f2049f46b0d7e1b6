/**
 * A crawl run ends when its last step does, also when the process died around that step: the
 * last step's move out of pending and the run's close commit together, and a rerun of a step
 * already moved closes a run left running with nothing pending (the fault suite once found one
 * so: `finished_at` null, every queue idle).
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlRuns } from '../../db/schema/crawl.js';
import { addSteps, findRun, finishStep, openRun } from '../../services/shared/repositories/crawl-runs-repository.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { insertSource } from '../support/listing-fixtures.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

describe('closing a crawl run', () => {
  it('the last step closes it; a step finished twice counts once', async () => {
    const db = ctx.database.db;
    const source = await insertSource(db);
    const { run } = await openRun(db, { sourceId: source.id, reason: 'manual', triggerKey: 'close-1' });
    expect(await addSteps(db, run.id, ['list-1', 'detail-1'])).toEqual(['list-1', 'detail-1']);
    expect(await addSteps(db, run.id, ['detail-1'])).toEqual([]);
    expect(await finishStep(db, run.id, 'list-1', 'done', { pages: 1 })).toBeUndefined();
    expect(await finishStep(db, run.id, 'list-1', 'done', { pages: 1 })).toBeUndefined();
    const closed = await finishStep(db, run.id, 'detail-1', 'done', { pages: 1, lotsNew: 1 });
    expect(closed).toMatchObject({ state: 'finished', outcome: 'ok', pages: 2, pendingSteps: 0 });
  });

  it('a run left running with nothing pending (killed between the last step and the close) is closed by the step’s rerun', async () => {
    const db = ctx.database.db;
    const source = await insertSource(db);
    const { run } = await openRun(db, { sourceId: source.id, reason: 'manual', triggerKey: 'close-2' });
    await addSteps(db, run.id, ['list-1']);
    // What a kill between the two used to leave: the step moved, the count at 0, the run running.
    await db.execute(sql`UPDATE crawl_run_steps SET state = 'done' WHERE run_id = ${run.id}`);
    await db.update(crawlRuns).set({ pendingSteps: 0, lotsNew: 3 }).where(eq(crawlRuns.id, run.id));
    expect(await findRun(db, run.id)).toMatchObject({ state: 'running', finishedAt: null });
    const closed = await finishStep(db, run.id, 'list-1', 'done', { pages: 1 });
    expect(closed).toMatchObject({ state: 'finished', outcome: 'ok' });
    expect((await findRun(db, run.id))?.finishedAt).not.toBeNull();
  });

  it('a rerun step does not close a run that still has steps pending', async () => {
    const db = ctx.database.db;
    const source = await insertSource(db);
    const { run } = await openRun(db, { sourceId: source.id, reason: 'manual', triggerKey: 'close-3' });
    await addSteps(db, run.id, ['list-1', 'detail-1']);
    await finishStep(db, run.id, 'list-1', 'done');
    expect(await finishStep(db, run.id, 'list-1', 'done')).toBeUndefined();
    expect(await findRun(db, run.id)).toMatchObject({ state: 'running', pendingSteps: 1 });
  });
});
