/**
 * `npm run model:eval -- --train <csv>[,<csv>…] --test <csv> [--train-prices <solution.csv>]
 * [--test-prices <solution.csv>] [--train-before <date>] [--test-from <date>] [--test-before <date>]`
 *
 * Trains the fair-value model on Fast Iron files and prints how it does on the test file's
 * priced rows, next to the per-model-median baseline. Needs no database.
 */
import { readFastIron, readSalePrices } from '../../services/shared/datasets/fastiron.js';
import { evaluate, modelMedianBaseline, type EvaluationFigures } from '../../services/valuation/evaluation.js';
import { trainFairValueModel } from '../../services/valuation/fair-value-model.js';
import { fastIronToSale } from '../../services/valuation/fastiron-sales.js';
import type { TrainingSale } from '../../services/valuation/features.js';
import { parseArgs, type CliCommand } from './command.js';

export const MODEL_EVAL_USAGE =
  'model:eval --train <csv>[,<csv>…] --test <csv> [--train-prices <csv>] [--test-prices <csv>] [--train-before YYYY-MM-DD] [--test-from YYYY-MM-DD] [--test-before YYYY-MM-DD]';

export function dateFlag(flags: Record<string, string | true>, name: string): Date | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const d = typeof v === 'string' ? new Date(`${v}T00:00:00Z`) : new Date(NaN);
  if (Number.isNaN(d.getTime())) throw new UsageError(`--${name} needs a date like 2012-02-01`);
  return d;
}

export class UsageError extends Error {}

export async function loadSales(files: string[], pricesFile: string | undefined, keep: (d: Date) => boolean): Promise<{ sales: TrainingSale[]; unpriced: number }> {
  const prices = pricesFile ? await readSalePrices(pricesFile) : undefined;
  const sales: TrainingSale[] = [];
  let unpriced = 0;
  for (const file of files) {
    for await (const record of readFastIron(file, { prices })) {
      if (!keep(record.saleDate)) continue;
      const sale = fastIronToSale(record);
      if (sale) sales.push(sale);
      else unpriced++;
    }
  }
  return { sales, unpriced };
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

function row(name: string, f: EvaluationFigures) {
  return { model: name, rows: f.rows, RMSLE: f.rmsle.toFixed(4), 'median APE': pct(f.medianApe), 'in 10–90% range': pct(f.coverage), 'median range width': pct(f.medianRangeWidth) };
}

export async function runModelEval(args: string[], out: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<number> {
  const { flags } = parseArgs(args);
  try {
    if (typeof flags.train !== 'string' || typeof flags.test !== 'string') throw new UsageError('--train and --test are required');
    const trainBefore = dateFlag(flags, 'train-before');
    const testFrom = dateFlag(flags, 'test-from');
    const testBefore = dateFlag(flags, 'test-before');
    const trainFiles = flags.train.split(',').filter(Boolean);
    const train = await loadSales(trainFiles, typeof flags['train-prices'] === 'string' ? flags['train-prices'] : undefined, (d) => !trainBefore || d < trainBefore);
    const test = await loadSales([flags.test], typeof flags['test-prices'] === 'string' ? flags['test-prices'] : undefined, (d) => (!testFrom || d >= testFrom) && (!testBefore || d < testBefore));
    if (train.sales.length < 30) throw new UsageError(`the training files hold ${train.sales.length} priced sales of a mapped equipment type; need 30`);
    if (test.sales.length === 0) throw new UsageError('the test file holds no priced sales (pass --test-prices <solution.csv> when it has no SalePrice column)');
    const span = (s: TrainingSale[]) => {
      const times = s.map((x) => x.soldAt.getTime());
      return `${new Date(Math.min(...times)).toISOString().slice(0, 10)} .. ${new Date(Math.max(...times)).toISOString().slice(0, 10)}`;
    };
    out(`train: ${train.sales.length} sales (${span(train.sales)})${train.unpriced ? `, ${train.unpriced} rows without a price skipped` : ''}`);
    out(`test:  ${test.sales.length} sales (${span(test.sales)})${test.unpriced ? `, ${test.unpriced} rows without a price skipped` : ''}`);
    const { model, seconds } = trainFairValueModel(train.sales);
    out(`trained in ${seconds.toFixed(1)} s: ${1 + (model.data.extraGbdts?.length ?? 0)} boosted models, ${model.treeCount} trees; time-holdout RMSLE ${model.data.holdout.rmsle.toFixed(4)} on the latest ${model.data.holdout.rows} training sales`);
    const truth = test.sales.map((s) => s.price);
    const started = performance.now();
    const valuations = model.valueAll(test.sales);
    const predictSeconds = (performance.now() - started) / 1000;
    const figures = evaluate(truth, valuations);
    const baseline = evaluate(truth, modelMedianBaseline(train.sales, test.sales));
    console.table([row('boosted trees (fair value)', figures), row('baseline: per-model median', baseline)]);
    out(`predicted ${test.sales.length} in ${(predictSeconds * 1000).toFixed(0)} ms`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError || (err as NodeJS.ErrnoException).code === 'ENOENT') {
      process.stderr.write(`${(err as Error).message}\nUsage: npm run ${MODEL_EVAL_USAGE}\n`);
      return 2;
    }
    throw err;
  }
}

export const modelEvalCommand: CliCommand = {
  name: 'model:eval',
  summary: 'Train on Fast Iron files and print RMSLE, median APE and range coverage on a test file (no database needed)',
  usage: MODEL_EVAL_USAGE,
  needsContext: false,
  run: (_ctx, args) => runModelEval(args),
};
