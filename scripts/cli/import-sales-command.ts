/**
 * `npm run import-sales -- --format fastiron <file.csv[.gz]> [--prices <solution.csv>]`: sales
 * history for the valuation model. Re-importing the same file updates rows instead of duplicating.
 */
import { readFastIron, readSalePrices } from '../../services/shared/datasets/fastiron.js';
import { upsertSoldResults } from '../../services/shared/repositories/sold-results-repository.js';
import { fastIronToSoldResult, type ImportedSale } from '../../services/valuation/fastiron-import.js';
import { parseArgs, type CliCommand } from './command.js';

const USAGE = 'import-sales --format fastiron <file.csv|file.csv.gz> [--prices <SalesID,SalePrice csv>]';
const BATCH = 1000;

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
      const stats = { rows: 0, skipped: 0 };
      const skipped = { 'no-price': 0, 'unmapped-type': 0 };
      let written = 0;
      let batch: ImportedSale[] = [];
      const flush = async () => {
        written += await upsertSoldResults(ctx.database.db, batch);
        batch = [];
      };
      for await (const record of readFastIron(file, { prices, stats })) {
        const row = fastIronToSoldResult(record);
        if ('skip' in row) skipped[row.skip]++;
        else batch.push(row);
        if (batch.length >= BATCH) await flush();
      }
      await flush();
      process.stdout.write(
        `${file}: ${stats.rows} rows read, ${written} sales imported or updated; skipped ${skipped['no-price']} without a price, ` +
          `${skipped['unmapped-type']} of an unmapped product group, ${stats.skipped} without an id or sale date\n`,
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
