/** Imports one sales file into the sales history (used by the CLI and the first-start bootstrap). */
import type { DbOrTx } from '../shared/database/db.js';
import { readFastIron } from '../shared/datasets/fastiron.js';
import { readWestAuction } from '../shared/datasets/westauction.js';
import { upsertSoldResults, type NewSoldResult } from '../shared/repositories/sold-results-repository.js';
import { fastIronToSoldResult } from '../valuation/fastiron-import.js';
import { westAuctionToSoldResult, type WestImportSkip } from '../valuation/westauction-sales.js';

const BATCH = 1000;
/** How often (rows read) progress is reported. */
const PROGRESS_EVERY = 5000;

export type ImportSummary = {
  rows: number;
  written: number;
  skipped: { 'no-price': number; 'unmapped-type': number; 'no-id-or-date': number };
};

export type WestImportSummary = { rows: number; written: number; skipped: Record<WestImportSkip | 'no-id', number> };

export type ImportProgress = (rowsRead: number, written: number) => void;

export async function importFastIronSales(db: DbOrTx, file: string, prices?: Map<string, number>, progress?: ImportProgress): Promise<ImportSummary> {
  const stats = { rows: 0, skipped: 0 };
  const skipped = { 'no-price': 0, 'unmapped-type': 0 };
  let written = 0;
  let batch: NewSoldResult[] = [];
  const flush = async () => {
    written += await upsertSoldResults(db, batch);
    batch = [];
  };
  for await (const record of readFastIron(file, { prices, stats })) {
    const row = fastIronToSoldResult(record);
    if ('skip' in row) skipped[row.skip]++;
    else batch.push(row);
    if (batch.length >= BATCH) await flush();
    if (progress && stats.rows % PROGRESS_EVERY === 0) progress(stats.rows, written);
  }
  await flush();
  return { rows: stats.rows, written, skipped: { ...skipped, 'no-id-or-date': stats.skipped } };
}

/** West Auctions lots: closed machine lots with a hammer price (westauction-sales.ts decides which). */
export async function importWestAuctionSales(db: DbOrTx, file: string, progress?: ImportProgress): Promise<WestImportSummary> {
  const stats = { rows: 0, skipped: 0 };
  const skipped: Record<WestImportSkip, number> = { 'not-closed': 0, 'no-price': 0, 'not-a-machine': 0 };
  let written = 0;
  let batch: NewSoldResult[] = [];
  const flush = async () => {
    written += await upsertSoldResults(db, batch);
    batch = [];
  };
  for await (const record of readWestAuction(file, { stats })) {
    const row = westAuctionToSoldResult(record);
    if ('skip' in row) skipped[row.skip]++;
    else batch.push(row);
    if (batch.length >= BATCH) await flush();
    if (progress && stats.rows % PROGRESS_EVERY === 0) progress(stats.rows, written);
  }
  await flush();
  return { rows: stats.rows, written, skipped: { ...skipped, 'no-id': stats.skipped } };
}
