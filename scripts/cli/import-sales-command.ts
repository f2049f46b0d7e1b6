/**
 * `npm run import-sales -- --format fastiron|westauction|rbauction <file.csv[.gz]> [--prices <solution.csv>]`:
 * sales history for the valuation model. Re-importing the same file updates rows instead of
 * duplicating; an import stopped part-way (Ctrl-C, a crash) goes on where it stopped when run
 * again, or at the scorer's next start. `npm run cli -- sales` shows the state.
 */
import { importSalesTracked, SALES_FORMATS, type ImportSummary, type RbImportSummary, type SalesFormat, type WestImportSummary } from '../../services/scorer/import-sales.js';
import { CATEGORIES } from '../../services/shared/categories.js';
import { parseArgs, type CliCommand } from './command.js';

const USAGE = `import-sales --format ${SALES_FORMATS.join('|')} <file.csv|file.csv.gz> [--prices <SalesID,SalePrice csv>] (--prices: fastiron only)`;

/** The Ritchie Bros. import's counts: written, skipped by reason, and the lots mapped per type with their share. */
export function rbImportReport(file: string, summary: RbImportSummary, from: string): string {
  const s = summary.skipped;
  const lines = [
    `${file}: ${summary.rows} rows read${from}, ${summary.written} machine sales imported or updated; skipped ${s['quantity-lot']} lots of several, ` +
      `${s['site-goods']} site goods (fences, cones, signs, job boxes, supplies), ${s['parts-or-stationary']} parts or stationary lots, ` +
      `${s['not-a-machine']} other small goods and tools, ${s['no-price']} without a price, ${s['no-id']} without an inventory id or sale day`,
  ];
  const mapped = Object.values(summary.byCategory).reduce((a, b) => a + b, 0);
  lines.push('type              lots   share');
  for (const c of CATEGORIES) {
    const n = summary.byCategory[c.id] ?? 0;
    lines.push(`${c.name.padEnd(16)} ${String(n).padStart(6)}  ${mapped ? ((100 * n) / mapped).toFixed(1).padStart(5) : '    -'}%`);
  }
  lines.push(`${'machines'.padEnd(16)} ${String(mapped).padStart(6)}  of ${summary.rows} rows (${summary.rows ? ((100 * mapped) / summary.rows).toFixed(1) : '0.0'}%)`);
  return lines.join('\n') + '\n';
}

const progress = (file: string) => (rows: number, written: number) => process.stderr.write(`${file}: ${rows} rows read, ${written} written so far\n`);

export const importSalesCommand: CliCommand = {
  name: 'import-sales',
  summary: 'Import sales history (comparables and training data) from a Fast Iron / Kaggle bulldozers CSV or West Auctions lots CSV',
  usage: USAGE,
  async run(ctx, args) {
    const { flags, positional } = parseArgs(args);
    const file = positional[0];
    const format = flags.format as SalesFormat;
    if (!SALES_FORMATS.includes(format) || !file) {
      process.stderr.write(`Usage: npm run ${USAGE}\n`);
      return 2;
    }
    // Ctrl-C or SIGTERM stops between two batches: what is in stays in, recorded, and the same
    // command (or the scorer's next start) goes on from there.
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      const result = await importSalesTracked(
        ctx.database,
        { format, file, ...(format === 'fastiron' && typeof flags.prices === 'string' ? { pricesFile: flags.prices } : {}), trigger: 'cli' },
        { progress: progress(file), signal: stop.signal },
      );
      if (result.outcome === 'busy') {
        process.stderr.write(`${file} is being imported by another process right now (see \`npm run cli -- sales\`).\n`);
        return 1;
      }
      if (result.outcome === 'cancelled') {
        process.stderr.write(`${file}: stopped after ${result.rowsDone} rows; they are in. Run the same command again (or start the scorer) to go on from there.\n`);
        return 130;
      }
      const from = result.resumedFrom > 0 ? ` (resumed after row ${result.resumedFrom})` : '';
      if (format === 'rbauction') {
        process.stdout.write(rbImportReport(file, result.summary as RbImportSummary, from));
        return 0;
      }
      if (format === 'westauction') {
        const summary = result.summary as WestImportSummary;
        process.stdout.write(
          `${file}: ${summary.rows} rows read${from}, ${summary.written} machine sales imported or updated; skipped ${summary.skipped['not-a-machine']} not machines ` +
            `(attachments, parts, merchandise), ${summary.skipped['no-price']} without a hammer price, ${summary.skipped['not-closed']} not closed, ${summary.skipped['no-id']} without a lot id\n`,
        );
        return 0;
      }
      const summary = result.summary as ImportSummary;
      process.stdout.write(
        `${file}: ${summary.rows} rows read${from}, ${summary.written} sales imported or updated; skipped ${summary.skipped['no-price']} without a price, ` +
          `${summary.skipped['unmapped-type']} of an unmapped product group, ${summary.skipped['no-id-or-date']} without an id or sale date\n`,
      );
      return 0;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        process.stderr.write(`No such file: ${(err as NodeJS.ErrnoException).path}\n`);
        return 2;
      }
      throw err;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};
