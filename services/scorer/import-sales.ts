/**
 * Imports one sales file into the sales history (used by the CLI and the first-start bootstrap).
 *
 * An import is recorded work (sales_imports): each batch of sales is written in one transaction
 * with the count of the file's rows it covers, so an import cut off at any point (Ctrl-C,
 * SIGTERM, kill -9, power loss) has every row before `rows_done` in and none after, and the next
 * run goes on from there. Writing a sale is an upsert by (origin, source id), so a batch written
 * twice changes nothing. A stop request (`signal`) ends it between two batches, recorded as
 * interrupted.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Database, DbOrTx } from '../shared/database/db.js';
import { readFastIron, readSalePrices } from '../shared/datasets/fastiron.js';
import { readRbAuction } from '../shared/datasets/rbauction.js';
import { readWestAuction } from '../shared/datasets/westauction.js';
import {
  ensureSalesImport,
  lockSalesImport,
  markSalesImportFinished,
  markSalesImportStarted,
  recordSalesImportProgress,
} from '../shared/repositories/sales-imports-repository.js';
import { upsertSoldResults, type NewSoldResult } from '../shared/repositories/sold-results-repository.js';
import { fastIronToSoldResult } from '../valuation/fastiron-import.js';
import { rbAuctionToSoldResult, type RbImportSkip } from '../valuation/rbauction-sales.js';
import { westAuctionToSoldResult, type WestImportSkip } from '../valuation/westauction-sales.js';
import { faultPoint } from '../shared/fault-points.js';

const BATCH = 1000;
/** How often (rows read) progress is reported. */
const PROGRESS_EVERY = 5000;

export type ImportSummary = {
  rows: number;
  written: number;
  skipped: { 'no-price': number; 'unmapped-type': number; 'no-id-or-date': number };
};

export type WestImportSummary = { rows: number; written: number; skipped: Record<WestImportSkip | 'no-id', number> };

/** Ritchie Bros. results: machine lots written, the rest skipped by reason, and the lots mapped per type (category id → count). */
export type RbImportSummary = { rows: number; written: number; skipped: Record<RbImportSkip | 'no-id', number>; byCategory: Record<number, number> };

export type ImportProgress = (rowsRead: number, written: number) => void;

export type SalesFormat = 'fastiron' | 'westauction' | 'rbauction';

export const SALES_FORMATS: readonly SalesFormat[] = ['fastiron', 'westauction', 'rbauction'];

export const ORIGIN_OF_FORMAT: Record<SalesFormat, string> = { fastiron: 'import:fastiron', westauction: 'import:westauction', rbauction: 'import:rbauction' };

/** One file to import. `pricesFile`: Fast Iron's `SalesID,SalePrice` file for a file without prices. */
export type SalesImportSpec = { format: SalesFormat; file: string; pricesFile?: string; trigger: 'bootstrap' | 'cli' };

export type TrackedImportResult =
  | { outcome: 'complete'; summary: ImportSummary | WestImportSummary | RbImportSummary; resumedFrom: number }
  | { outcome: 'cancelled'; rowsDone: number }
  /** Another process is importing this file right now. */
  | { outcome: 'busy' };

/** Writes a batch of sales; `rowsDone` (the file's rows read so far) is recorded with it when tracked. */
type Flush = (rows: NewSoldResult[], rowsDone: number) => Promise<number>;

type RunOptions = { progress?: ImportProgress; signal?: AbortSignal; resumeFrom?: number; flush: Flush };

/** Sales as the loop below sees them: a converted record is a sale or a reason to skip it. */
async function runImport<R, S extends string>(
  records: (stats: { rows: number; skipped: number }) => AsyncIterable<R>,
  convert: (record: R) => NewSoldResult | { skip: S },
  skipped: Record<S, number>,
  opts: RunOptions,
): Promise<{ rows: number; written: number; skippedNoId: number; cancelled: boolean }> {
  const stats = { rows: 0, skipped: 0 };
  const resumeFrom = opts.resumeFrom ?? 0;
  let written = 0;
  let batch: NewSoldResult[] = [];
  let batches = 0;
  const flush = async () => {
    written += await opts.flush(batch, stats.rows);
    batch = [];
    faultPoint('sales-import-batch', ++batches);
  };
  for await (const record of records(stats)) {
    if (stats.rows <= resumeFrom) continue;
    const row = convert(record);
    if ('skip' in row) skipped[row.skip]++;
    else batch.push(row);
    if (batch.length >= BATCH) {
      await flush();
      if (opts.signal?.aborted) return { rows: stats.rows, written, skippedNoId: stats.skipped, cancelled: true };
    }
    if (opts.progress && stats.rows % PROGRESS_EVERY === 0) opts.progress(stats.rows, written);
  }
  await flush();
  return { rows: stats.rows, written, skippedNoId: stats.skipped, cancelled: false };
}

const untracked =
  (db: DbOrTx): Flush =>
  (rows) =>
    upsertSoldResults(db, rows);

async function importFastIron(file: string, prices: Map<string, number> | undefined, opts: RunOptions) {
  const skipped = { 'no-price': 0, 'unmapped-type': 0 };
  const run = await runImport((stats) => readFastIron(file, { prices, stats }), fastIronToSoldResult, skipped, opts);
  const summary: ImportSummary = { rows: run.rows, written: run.written, skipped: { ...skipped, 'no-id-or-date': run.skippedNoId } };
  return { summary, cancelled: run.cancelled, rows: run.rows };
}

async function importWest(file: string, opts: RunOptions) {
  const skipped: Record<WestImportSkip, number> = { 'not-closed': 0, 'no-price': 0, 'not-a-machine': 0 };
  const run = await runImport((stats) => readWestAuction(file, { stats }), westAuctionToSoldResult, skipped, opts);
  const summary: WestImportSummary = { rows: run.rows, written: run.written, skipped: { ...skipped, 'no-id': run.skippedNoId } };
  return { summary, cancelled: run.cancelled, rows: run.rows };
}

async function importRb(file: string, opts: RunOptions) {
  const skipped: Record<RbImportSkip, number> = { 'no-price': 0, 'quantity-lot': 0, 'site-goods': 0, 'parts-or-stationary': 0, 'not-a-machine': 0 };
  const byCategory: Record<number, number> = {};
  const convert = (record: Parameters<typeof rbAuctionToSoldResult>[0]) => {
    const row = rbAuctionToSoldResult(record);
    if (!('skip' in row)) byCategory[row.categoryId] = (byCategory[row.categoryId] ?? 0) + 1;
    return row;
  };
  const run = await runImport((stats) => readRbAuction(file, { stats }), convert, skipped, opts);
  const summary: RbImportSummary = { rows: run.rows, written: run.written, skipped: { ...skipped, 'no-id': run.skippedNoId }, byCategory };
  return { summary, cancelled: run.cancelled, rows: run.rows };
}

/** A one-off import, not recorded (benchmarks and tests that build a history). */
export async function importFastIronSales(db: DbOrTx, file: string, prices?: Map<string, number>, progress?: ImportProgress): Promise<ImportSummary> {
  return (await importFastIron(file, prices, { progress, flush: untracked(db) })).summary;
}

/** West Auctions lots: closed machine lots with a hammer price (westauction-sales.ts decides which). Not recorded. */
export async function importWestAuctionSales(db: DbOrTx, file: string, progress?: ImportProgress): Promise<WestImportSummary> {
  return (await importWest(file, { progress, flush: untracked(db) })).summary;
}

/** Ritchie Bros. results: priced machine lots (rbauction-sales.ts decides which). Not recorded. */
export async function importRbAuctionSales(db: DbOrTx, file: string, progress?: ImportProgress): Promise<RbImportSummary> {
  return (await importRb(file, { progress, flush: untracked(db) })).summary;
}

/** Size and modification time of the file(s): if they change, the rows already done mean nothing. */
async function fingerprint(spec: SalesImportSpec): Promise<string> {
  const parts = [];
  for (const file of [spec.file, ...(spec.pricesFile ? [spec.pricesFile] : [])]) {
    const s = await stat(file); // ENOENT here, before anything is recorded
    parts.push(`${s.size}:${Math.trunc(s.mtimeMs)}`);
  }
  return parts.join('|');
}

/**
 * Imports a file as recorded work: resumes where an earlier run of the same file stopped (same
 * file, unchanged), or starts over when that run completed (a CLI re-import refreshes rows) or
 * the file changed. Only one process imports a file at a time.
 */
export async function importSalesTracked(
  database: Database,
  spec: SalesImportSpec,
  opts: { progress?: ImportProgress; signal?: AbortSignal } = {},
): Promise<TrackedImportResult> {
  const key = {
    origin: ORIGIN_OF_FORMAT[spec.format],
    file: path.resolve(spec.file),
    pricesFile: spec.pricesFile ? path.resolve(spec.pricesFile) : '',
    trigger: spec.trigger,
  };
  const print = await fingerprint(spec);
  const { db, sql } = database;
  const record = await ensureSalesImport(db, key);
  const lock = await lockSalesImport(sql, record.id);
  if (!lock) return { outcome: 'busy' };
  try {
    // Re-read under the lock: the holder before us may have just finished it.
    const current = (await ensureSalesImport(db, key))!;
    const resumeFrom = current.status !== 'complete' && current.fingerprint === print ? current.rowsDone : 0;
    await markSalesImportStarted(db, record.id, { rowsDone: resumeFrom, fingerprint: print });
    const flush: Flush = (rows, rowsDone) =>
      db.transaction(async (tx) => {
        const written = await upsertSoldResults(tx, rows);
        await recordSalesImportProgress(tx, record.id, rowsDone, written);
        return written;
      });
    const run = { progress: opts.progress, signal: opts.signal, resumeFrom, flush };
    try {
      const prices = spec.pricesFile ? await readSalePrices(spec.pricesFile) : undefined;
      const result =
        spec.format === 'fastiron' ? await importFastIron(spec.file, prices, run) : spec.format === 'rbauction' ? await importRb(spec.file, run) : await importWest(spec.file, run);
      if (result.cancelled) {
        await markSalesImportFinished(db, record.id, 'interrupted');
        return { outcome: 'cancelled', rowsDone: result.rows };
      }
      await markSalesImportFinished(db, record.id, 'complete');
      return { outcome: 'complete', summary: result.summary, resumedFrom: resumeFrom };
    } catch (err) {
      await markSalesImportFinished(db, record.id, 'interrupted', err instanceof Error ? err.message.slice(0, 500) : String(err)).catch(() => {});
      throw err;
    }
  } finally {
    await lock.release().catch(() => {});
  }
}
