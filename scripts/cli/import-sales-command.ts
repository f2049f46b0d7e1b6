/**
 * `npm run import-sales -- --format fastiron|westauction <file.csv[.gz]> [--prices <solution.csv>]`:
 * sales history for the valuation model. Re-importing the same file updates rows instead of
 * duplicating.
 */
import { importFastIronSales, importWestAuctionSales } from '../../services/scorer/import-sales.js';
import { readSalePrices } from '../../services/shared/datasets/fastiron.js';
import { parseArgs, type CliCommand } from './command.js';

const USAGE = 'import-sales --format fastiron|westauction <file.csv|file.csv.gz> [--prices <SalesID,SalePrice csv>] (--prices: fastiron only)';

const progress = (file: string) => (rows: number, written: number) => process.stderr.write(`${file}: ${rows} rows read, ${written} written so far\n`);

export const importSalesCommand: CliCommand = {
  name: 'import-sales',
  summary: 'Import sales history (comparables and training data) from a Fast Iron / Kaggle bulldozers CSV or West Auctions lots CSV',
  usage: USAGE,
  async run(ctx, args) {
    const { flags, positional } = parseArgs(args);
    const file = positional[0];
    if ((flags.format !== 'fastiron' && flags.format !== 'westauction') || !file) {
      process.stderr.write(`Usage: npm run ${USAGE}\n`);
      return 2;
    }
    try {
      if (flags.format === 'westauction') {
        const summary = await importWestAuctionSales(ctx.database.db, file, progress(file));
        process.stdout.write(
          `${file}: ${summary.rows} rows read, ${summary.written} machine sales imported or updated; skipped ${summary.skipped['not-a-machine']} not machines ` +
            `(attachments, parts, merchandise), ${summary.skipped['no-price']} without a hammer price, ${summary.skipped['not-closed']} not closed, ${summary.skipped['no-id']} without a lot id\n`,
        );
        return 0;
      }
      const prices = typeof flags.prices === 'string' ? await readSalePrices(flags.prices) : undefined;
      const summary = await importFastIronSales(ctx.database.db, file, prices, progress(file));
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
