/**
 * A sales import as recorded work: stopped part-way it says so and how far it got, the next run
 * goes on from there (the whole file in, nothing twice), no model trains meanwhile, and a row a
 * dead importer left "importing" reads as interrupted.
 */
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importSalesTracked } from '../../services/scorer/import-sales.js';
import { SalesImportUnfinishedError, trainAndStoreModel } from '../../services/scorer/train-model.js';
import { listSalesImports, lockSalesImport } from '../../services/shared/repositories/sales-imports-repository.js';
import { countSoldResultsByOrigin } from '../../services/shared/repositories/sold-results-repository.js';
import { createTestContext, type TestContext } from '../support/context.js';

const TRAIN = path.resolve(process.env.SHARED_DIR ?? '../shared', 'data/bulldozers/Train_first10931rows.csv.gz');

describe('a recorded sales import', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => ctx?.close());

  it('stopped part-way, resumes where it stopped; training waits until it is complete', async () => {
    const stop = new AbortController();
    const first = await importSalesTracked(ctx.database, { format: 'fastiron', file: TRAIN, trigger: 'cli' }, { signal: stop.signal, progress: (rows) => rows >= 3000 && stop.abort() });
    expect(first.outcome).toBe('cancelled');
    const [stopped] = await listSalesImports(ctx.database.db);
    expect(stopped).toMatchObject({ status: 'interrupted', file: TRAIN, attempts: 1 });
    const inAtStop = (await countSoldResultsByOrigin(ctx.database.db))['import:fastiron']!;
    // Every row counted as done is in, and nothing past it.
    expect(stopped!.rowsDone).toBeGreaterThanOrEqual(3000);
    expect(inAtStop).toBe(stopped!.written);
    expect(inAtStop).toBeLessThan(10_931);

    await expect(trainAndStoreModel(ctx.database.db)).rejects.toBeInstanceOf(SalesImportUnfinishedError);

    const second = await importSalesTracked(ctx.database, { format: 'fastiron', file: TRAIN, trigger: 'cli' });
    expect(second).toMatchObject({ outcome: 'complete', resumedFrom: stopped!.rowsDone });
    expect((await countSoldResultsByOrigin(ctx.database.db))['import:fastiron']).toBe(10_931);
    const [done] = await listSalesImports(ctx.database.db);
    expect(done).toMatchObject({ status: 'complete', attempts: 2, written: 10_931 });
    expect(done!.finishedAt).not.toBeNull();
  }, 120_000);

  it('a row left "importing" by a dead importer reads interrupted; a live one is busy for others', async () => {
    const [row] = await listSalesImports(ctx.database.db);
    await ctx.database.db.execute(sql`UPDATE sales_imports SET status = 'importing' WHERE id = ${row!.id}`);
    expect((await listSalesImports(ctx.database.db))[0]!.status).toBe('interrupted');

    const lock = await lockSalesImport(ctx.database.sql, row!.id);
    try {
      expect((await listSalesImports(ctx.database.db))[0]!.status).toBe('importing');
      expect(await importSalesTracked(ctx.database, { format: 'fastiron', file: TRAIN, trigger: 'cli' })).toEqual({ outcome: 'busy' });
    } finally {
      await lock!.release();
    }
    expect((await listSalesImports(ctx.database.db))[0]!.status).toBe('interrupted');
  });
});
