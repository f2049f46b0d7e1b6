/**
 * What the record of sales imports says as a whole: one word for the operator (`npm run cli --
 * sales`, the start banner) and for the training gate (no model trains on half an import).
 */
import type { SalesImportRow } from '../shared/repositories/sales-imports-repository.js';

/** `none`: nothing was ever imported through the recorded importer (e.g. no shared data). */
export type SalesImportState = 'complete' | 'importing' | 'interrupted' | 'none';

export function overallImportState(rows: Pick<SalesImportRow, 'status'>[]): SalesImportState {
  if (rows.length === 0) return 'none';
  if (rows.some((r) => r.status === 'importing')) return 'importing';
  if (rows.some((r) => r.status === 'interrupted')) return 'interrupted';
  return 'complete';
}

/** Imports a training must wait for: any not complete. */
export function importsBlockingTraining<R extends Pick<SalesImportRow, 'status'>>(rows: R[]): R[] {
  return rows.filter((r) => r.status !== 'complete');
}

/**
 * The start banner's line while an import is unfinished: resumed (it was cut off before, or this
 * start is resuming it) or under way for the first time; nothing once all are complete.
 */
export function importBannerLine(rows: Pick<SalesImportRow, 'status' | 'attempts' | 'rowsDone' | 'file'>[], scorerRunning: boolean): string | undefined {
  const pending = importsBlockingTraining(rows);
  if (pending.length === 0) return undefined;
  const resumed = pending.filter((r) => r.status === 'interrupted' || r.attempts > 1);
  const done = pending.reduce((n, r) => n + r.rowsDone, 0);
  if (!scorerRunning) {
    return `  Sales history: an import was interrupted (${done} rows in); it resumes when the scorer runs. No model trains until it is complete.`;
  }
  if (resumed.length > 0) {
    return `  Sales history: resuming the interrupted import (${done} rows already in); the model trains once it is complete (\`npm run cli -- sales\`).`;
  }
  return '  Sales history: importing on this first start; the first model trains once it is complete (`npm run cli -- sales`).';
}
