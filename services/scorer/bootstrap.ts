/**
 * A fresh installation has nothing to value listings against. When there is no model yet, the
 * scorer imports the licensed Fast Iron files, the West Auctions lots and the Ritchie Bros. results under SHARED_DIR (read at
 * run time, never copied) and queues the first training once every import is complete.
 *
 * Imports are recorded work (import-sales.ts): one cut off by a stop or a crash is resumed here at
 * the next start, wherever it stopped, before anything trains on the history. Replicas agree
 * through each import's lock and the training job's fixed id.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../shared/context.js';
import { RBAUCTION_RESULTS_FILE } from '../shared/datasets/rbauction.js';
import { latestModelVersion } from '../shared/repositories/model-versions-repository.js';
import { listSalesImports, type SalesImportRow } from '../shared/repositories/sales-imports-repository.js';
import { countSoldResultsByOrigin } from '../shared/repositories/sold-results-repository.js';
import { importSalesTracked, ORIGIN_OF_FORMAT, type SalesImportSpec } from './import-sales.js';

export type BootstrapOutcome = 'model-exists' | 'no-sales' | 'training-queued' | 'cancelled' | 'import-elsewhere';

/** The files a first start imports, those of them that exist. */
export function bootstrapImports(sharedDir: string): SalesImportSpec[] {
  const dir = path.join(sharedDir, 'data', 'bulldozers');
  const train = path.join(dir, 'Train_first10931rows.csv.gz');
  const valid = path.join(dir, 'Valid.csv.gz');
  const solution = path.join(dir, 'ValidSolution_2012-01_to_02.csv');
  const west = path.join(sharedDir, 'data', 'westauction_lots', 'westauction_lots.csv.gz');
  const rb = path.join(sharedDir, RBAUCTION_RESULTS_FILE);
  const specs: SalesImportSpec[] = [];
  if (existsSync(train)) {
    specs.push({ format: 'fastiron', file: train, trigger: 'bootstrap' });
    if (existsSync(valid) && existsSync(solution)) specs.push({ format: 'fastiron', file: valid, pricesFile: solution, trigger: 'bootstrap' });
  }
  if (existsSync(west)) specs.push({ format: 'westauction', file: west, trigger: 'bootstrap' });
  if (existsSync(rb)) specs.push({ format: 'rbauction', file: rb, trigger: 'bootstrap' });
  return specs.map((s) => ({ ...s, file: path.resolve(s.file), ...(s.pricesFile ? { pricesFile: path.resolve(s.pricesFile) } : {}) }));
}

/**
 * Imports cut off earlier (by this start's bootstrap or by `npm run import-sales`) whose files are
 * still there, as specs to resume.
 */
async function interruptedImports(ctx: AppContext): Promise<SalesImportSpec[]> {
  const rows = await listSalesImports(ctx.database.db);
  const formatOf = Object.fromEntries(Object.entries(ORIGIN_OF_FORMAT).map(([format, origin]) => [origin, format])) as Record<string, SalesImportSpec['format']>;
  const specs: SalesImportSpec[] = [];
  for (const row of rows) {
    if (row.status !== 'interrupted') continue;
    const format = formatOf[row.origin];
    if (!format || !existsSync(row.file) || (row.pricesFile && !existsSync(row.pricesFile))) {
      ctx.logger.warn({ file: row.file, rowsDone: row.rowsDone }, 'an interrupted sales import cannot be resumed: its file is gone; run `npm run import-sales` again');
      continue;
    }
    specs.push({ format, file: row.file, ...(row.pricesFile ? { pricesFile: row.pricesFile } : {}), trigger: row.trigger });
  }
  return specs;
}

/** Runs the imports in turn; false when one was being run by another process. */
async function runImports(ctx: AppContext, todo: SalesImportSpec[], records: SalesImportRow[], signal?: AbortSignal): Promise<{ elsewhere: boolean }> {
  let elsewhere = false;
  for (const spec of todo) {
    if (signal?.aborted) break;
    const resumed = records.find((r) => r.file === spec.file && r.origin === ORIGIN_OF_FORMAT[spec.format] && r.status === 'interrupted');
    ctx.logger.info(
      { file: spec.file, ...(resumed ? { rowsDone: resumed.rowsDone } : {}) },
      resumed ? 'resuming an interrupted sales import' : 'no sales history yet: importing',
    );
    const result = await importSalesTracked(ctx.database, spec, { signal });
    if (result.outcome === 'busy') {
      elsewhere = true;
      ctx.logger.info({ file: spec.file }, 'another process is importing this file; it queues the training when done');
    } else if (result.outcome === 'complete') {
      ctx.logger.info({ file: spec.file, written: result.summary.written, resumedFrom: result.resumedFrom }, 'sales import complete');
    }
  }
  if (signal?.aborted) ctx.logger.info('sales import cancelled by the stop: it resumes where it stopped at the next start');
  return { elsewhere };
}

/** Imports cut off earlier, resumed (the scorer's start when the bootstrap is off). */
export async function resumeInterruptedImports(ctx: AppContext, signal?: AbortSignal): Promise<void> {
  const records = await listSalesImports(ctx.database.db);
  if (!records.some((r) => r.status === 'interrupted')) return;
  await runImports(ctx, await interruptedImports(ctx), records, signal);
}

export async function bootstrapValuation(ctx: AppContext, signal?: AbortSignal): Promise<BootstrapOutcome> {
  const { db } = ctx.database;
  const hasModel = (await latestModelVersion(db)) !== null;
  const records = await listSalesImports(db);
  const complete = (spec: SalesImportSpec) =>
    records.some((r) => r.status === 'complete' && r.file === spec.file && r.pricesFile === (spec.pricesFile ?? '') && r.origin === ORIGIN_OF_FORMAT[spec.format]);
  const todo = await interruptedImports(ctx);
  if (!hasModel) {
    for (const spec of bootstrapImports(ctx.config.SHARED_DIR)) {
      if (!complete(spec) && !todo.some((t) => t.file === spec.file && t.format === spec.format)) todo.push(spec);
    }
  }
  const { elsewhere } = await runImports(ctx, todo, records, signal);
  if (signal?.aborted) return 'cancelled';
  if (hasModel) return 'model-exists';
  if (elsewhere) return 'import-elsewhere';
  const sales = Object.values(await countSoldResultsByOrigin(db)).reduce((a, b) => a + b, 0);
  if (sales === 0) {
    ctx.logger.warn('no sales history and no model: listings stay unscored until sales are imported (npm run import-sales)');
    return 'no-sales';
  }
  await ctx.queues.enqueue('model', { action: 'train', reason: 'bootstrap', slot: 'bootstrap' });
  ctx.logger.info({ sales }, 'first model training queued');
  return 'training-queued';
}
