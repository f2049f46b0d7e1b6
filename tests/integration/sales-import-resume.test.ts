/**
 * A sales import as recorded work: stopped part-way it says so and how far it got, the next run
 * goes on from there (the whole file in, nothing twice), no model trains meanwhile, and a row a
 * dead importer left "importing" reads as interrupted.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importSalesTracked } from '../../services/scorer/import-sales.js';
import { SalesImportUnfinishedError, trainAndStoreModel } from '../../services/scorer/train-model.js';
import { listSalesImports, lockSalesImport } from '../../services/shared/repositories/sales-imports-repository.js';
import { countSoldResultsByOrigin } from '../../services/shared/repositories/sold-results-repository.js';
import { createTestContext, type TestContext } from '../support/context.js';

const SHARED = path.resolve(process.env.SHARED_DIR ?? '../shared');
const TRAIN = path.join(SHARED, 'data/bulldozers/Train_first10931rows.csv.gz');
const RB = path.join(SHARED, 'data/rbauction_results/rbauction-results-2021-09-to-2023-05.csv.gz');

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
  it('a Ritchie Bros. results file (its first 12,000 rows, read at run time) resumes the same way, counting its lots per type', async () => {
    const lines = gunzipSync(await readFile(RB)).toString('utf8').split('\n').slice(0, 12_001);
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'rb-resume-')), 'rb-first-12000.csv');
    writeFileSync(file, lines.join('\n') + '\n');
    const stop = new AbortController();
    const first = await importSalesTracked(ctx.database, { format: 'rbauction', file, trigger: 'cli' }, { signal: stop.signal, progress: (rows) => rows >= 5000 && stop.abort() });
    expect(first.outcome).toBe('cancelled');
    const stopped = (await listSalesImports(ctx.database.db)).find((r) => r.file === file)!;
    expect(stopped).toMatchObject({ status: 'interrupted', origin: 'import:rbauction' });
    expect((await countSoldResultsByOrigin(ctx.database.db))['import:rbauction']).toBe(stopped.written);

    const second = await importSalesTracked(ctx.database, { format: 'rbauction', file, trigger: 'cli' });
    expect(second).toMatchObject({ outcome: 'complete', resumedFrom: stopped.rowsDone });
    const whole = await importSalesTracked(ctx.database, { format: 'rbauction', file, trigger: 'cli' });
    if (whole.outcome !== 'complete' || !('byCategory' in whole.summary)) throw new Error('expected a complete Ritchie Bros. import');
    // re-run from the start (the earlier one completed): the same lots, nothing twice
    const mapped = Object.values(whole.summary.byCategory).reduce((a, b) => a + b, 0);
    expect(whole.summary.rows).toBe(12_000);
    expect(whole.summary.written).toBe(mapped);
    expect(mapped + Object.values(whole.summary.skipped).reduce((a, b) => a + b, 0)).toBe(12_000);
    expect((await countSoldResultsByOrigin(ctx.database.db))['import:rbauction']).toBe(mapped);
  }, 120_000);
});
