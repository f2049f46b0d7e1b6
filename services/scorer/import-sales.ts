/** Imports one Fast Iron file into the sales history (used by the CLI and the first-start bootstrap). */
import type { DbOrTx } from '../shared/database/db.js';
import { readFastIron } from '../shared/datasets/fastiron.js';
import { upsertSoldResults } from '../shared/repositories/sold-results-repository.js';
import { fastIronToSoldResult, type ImportedSale } from '../valuation/fastiron-import.js';

const BATCH = 1000;

export type ImportSummary = {
  rows: number;
  written: number;
  skipped: { 'no-price': number; 'unmapped-type': number; 'no-id-or-date': number };
};

export async function importFastIronSales(db: DbOrTx, file: string, prices?: Map<string, number>): Promise<ImportSummary> {
  const stats = { rows: 0, skipped: 0 };
  const skipped = { 'no-price': 0, 'unmapped-type': 0 };
  let written = 0;
  let batch: ImportedSale[] = [];
  const flush = async () => {
    written += await upsertSoldResults(db, batch);
    batch = [];
  };
  for await (const record of readFastIron(file, { prices, stats })) {
    const row = fastIronToSoldResult(record);
    if ('skip' in row) skipped[row.skip]++;
    else batch.push(row);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return { rows: stats.rows, written, skipped: { ...skipped, 'no-id-or-date': stats.skipped } };
}
