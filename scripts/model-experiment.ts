/**
 * `npm run model:experiment -- <model:eval data flags> --name <label> [--options '<TrainOptions JSON>'] [--test-figures] [--skip-selection] [--selection-share 0.05]`
 *
 * The fast loop for tuning the fair-value model. Parsed sales are cached in the OS temp directory
 * (keyed by the data flags and the files' modification times). It trains the whole model (holdout fit, ranges, refit) on the earliest 95% of the training period and prints its
 * own time-holdout RMSLE (the latest 15% of those) and the selection figures, RMSLE and range
 * coverage on the latest 5%: a stand-in for the next month that the eval predicts (on the Feb 2012 split: late January, mostly
 * the datasource that dominates February, with its first half of January in training). These are
 * the figures to choose on. With `--test-figures` it also trains on everything and prints the test
 * file's figures, to report once per candidate, never to choose on. Each run appends one line to
 * `model-experiments.log` in the temp directory.
 */
import { createHash } from 'node:crypto';
import { appendFile, readFile, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { dateFlag, loadSales } from './cli/model-eval-command.js';
import { parseArgs } from './cli/command.js';
import { evaluate } from '../services/valuation/evaluation.js';
import { trainFairValueModel, type TrainOptions } from '../services/valuation/fair-value-model.js';
import type { TrainingSale } from '../services/valuation/features.js';

const { flags } = parseArgs(process.argv.slice(2));
const str = (name: string) => (typeof flags[name] === 'string' ? (flags[name] as string) : undefined);
const trainFiles = (str('train') ?? '').split(',').filter(Boolean);
const testFile = str('test');
if (trainFiles.length === 0 || !testFile) {
  process.stderr.write('usage: npm run model:experiment -- --train <csv>[,<csv>…] --test <csv> [model:eval flags] --name <label> [--options <json>] [--test-figures]\n');
  process.exit(2);
}
const options = JSON.parse(str('options') ?? '{}') as TrainOptions;
const name = str('name') ?? JSON.stringify(options);
const withTest = flags['test-figures'] === true;

type CachedSale = Omit<TrainingSale, 'soldAt'> & { soldAt: string };
const revive = (rows: CachedSale[]): TrainingSale[] => rows.map((r) => ({ ...r, soldAt: new Date(r.soldAt) }));

async function loadCached(): Promise<{ train: TrainingSale[]; test: TrainingSale[] }> {
  const dataFlags = ['train', 'test', 'train-prices', 'test-prices', 'train-before', 'test-from', 'test-before'].map((f) => `${f}=${str(f) ?? ''}`);
  const files = [...trainFiles, testFile!, str('train-prices'), str('test-prices')].filter((f): f is string => !!f);
  const mtimes = await Promise.all(files.map(async (f) => (await stat(f)).mtimeMs));
  const key = createHash('sha256').update(JSON.stringify([dataFlags, mtimes])).digest('hex').slice(0, 16);
  const cacheFile = path.join(os.tmpdir(), `deal-radar-model-experiment-${key}.json`);
  try {
    const cached = JSON.parse(await readFile(cacheFile, 'utf8')) as { train: CachedSale[]; test: CachedSale[] };
    return { train: revive(cached.train), test: revive(cached.test) };
  } catch {
    const trainBefore = dateFlag(flags, 'train-before');
    const testFrom = dateFlag(flags, 'test-from');
    const testBefore = dateFlag(flags, 'test-before');
    const train = (await loadSales(trainFiles, str('train-prices'), (d) => !trainBefore || d < trainBefore)).sales;
    const test = (await loadSales([testFile!], str('test-prices'), (d) => (!testFrom || d >= testFrom) && (!testBefore || d < testBefore))).sales;
    await writeFile(cacheFile, JSON.stringify({ train, test }));
    return { train, test };
  }
}

const { train, test } = await loadCached();
const cpu0 = process.cpuUsage();
let line = `${new Date().toISOString()} load ${os.loadavg()[0]!.toFixed(1)} | ${name}`;
const SELECTION_SHARE = Number(str('selection-share') ?? 0.05);
if (flags['skip-selection'] !== true) {
  const byDate = [...train].sort((a, b) => a.soldAt.getTime() - b.soldAt.getTime());
  const cut = Math.round(byDate.length * (1 - SELECTION_SHARE));
  const { model: selectionModel, seconds: selectionSeconds } = trainFairValueModel(byDate.slice(0, cut), options);
  const holdout = selectionModel.data.holdout;
  const selected = byDate.slice(cut);
  const s = evaluate(selected.map((r) => r.price), selectionModel.valueAll(selected));
  line += ` | own holdout RMSLE ${holdout.rmsle.toFixed(4)} (latest ${holdout.rows} of the earlier ${Math.round((1 - SELECTION_SHARE) * 100)}%, ${holdout.trees} trees)`;
  line += ` | selection (latest ${selected.length}) RMSLE ${s.rmsle.toFixed(4)}, in range ${(s.coverage * 100).toFixed(1)}% (${selectionSeconds.toFixed(0)} s)`;
}
if (withTest) {
  const { model, seconds } = trainFairValueModel(train, options);
  const f = evaluate(test.map((s) => s.price), model.valueAll(test));
  line += ` | test RMSLE ${f.rmsle.toFixed(4)}, in range ${(f.coverage * 100).toFixed(1)}%, median APE ${(f.medianApe * 100).toFixed(1)}% (full fit ${seconds.toFixed(0)} s)`;
}
const cpu = process.cpuUsage(cpu0);
line += ` | ${((cpu.user + cpu.system) / 1e6).toFixed(0)} s CPU`;
console.log(line);
await appendFile(path.join(os.tmpdir(), 'model-experiments.log'), `${line}\n`);
