/**
 * `npm run import-sales -- --format fastiron <file.csv[.gz]> [--prices <solution.csv>]`: sales
 * history for the valuation model. Re-importing the same file updates rows instead of duplicating.
 */
import { importFastIronSales } from '../../services/scorer/import-sales.js';
import { readSalePrices } from '../../services/shared/datasets/fastiron.js';
import { parseArgs, type CliCommand } from './command.js';

const USAGE = 'import-sales --format fastiron <file.csv|file.csv.gz> [--prices <SalesID,SalePrice csv>]';

export const importSalesCommand: CliCommand = {
  name: 'import-sales',
  summary: 'Import sales history (comparables and training data) from a Fast Iron / Kaggle bulldozers CSV',
  usage: USAGE,
  async run(ctx, args) {
    const { flags, positional } = parseArgs(args);
    const file = positional[0];
    if (flags.format !== 'fastiron' || !file) {
      process.stderr.write(`Usage: npm run ${USAGE}\n(the only format so far is fastiron)\n`);
      return 2;
    }
    let prices: Map<string, number> | undefined;
    try {
      prices = typeof flags.prices === 'string' ? await readSalePrices(flags.prices) : undefined;
      const summary = await importFastIronSales(ctx.database.db, file, prices);
      process.stdout.write(
        `${file}: ${summary.rows} rows read, ${summary.written} sales imported or updated; skipped ${summary.skipped['no-price']} without a price, ` +
          `${summary.skipped['unmapped-type']} of an unmapped product group, ${summary.skipped['no-id-or-date']} without an id or sale date\n`,
      );
      return 0;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        process.stderr.write(`No such file: ${(err as NodeJS.ErrnoException).path}\n`);
        return 2;
      }
      throw err;
    }
  },
};
