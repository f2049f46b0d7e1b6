/**
 * `npm run model:eval -- --train <csv>[,<csv>…] --test <csv> [--train-prices <solution.csv>]
 * [--test-prices <solution.csv>] [--train-before <date>] [--test-from <date>] [--test-before <date>]`
 *
 * Trains the fair-value model on Fast Iron files and prints how it does on the test file's
 * priced rows, next to the per-model-median baseline. Needs no database.
 */
import { readFastIron, readSalePrices } from '../../services/shared/datasets/fastiron.js';
import path from 'node:path';
import { CATEGORIES, OTHER_CATEGORY_ID } from '../../services/shared/categories.js';
import { readWestAuction } from '../../services/shared/datasets/westauction.js';
import { evaluate, modelMedianBaseline, protocolFigures, type EvaluationFigures, type ProtocolFigures, type ProtocolRow } from '../../services/valuation/evaluation.js';
import { FairValueModel, saleSource, trainFairValueModel, type TrainOptions } from '../../services/valuation/fair-value-model.js';
import { withFinalValueCalibration } from '../../services/scorer/final-value-calibration.js';
import { westAuctionToSale } from '../../services/valuation/westauction-sales.js';
import { fastIronToSale } from '../../services/valuation/fastiron-sales.js';
import { readRbAuction } from '../../services/shared/datasets/rbauction.js';
import { rbAuctionToSale } from '../../services/valuation/rbauction-sales.js';
import { normaliseModel } from '../../services/valuation/features.js';
import type { TrainingSale } from '../../services/valuation/features.js';
import { DEAL_FLAG_MULTIPLES, dealFlags, scorerValuations, type DealFlags, type WrittenValuation } from '../../services/scorer/deal-flags.js';
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs, type CliCommand } from './command.js';
import { textTable } from './table.js';

export const MODEL_EVAL_USAGE =
  'model:eval --train <csv>[,<csv>…] --test <csv> [--train-prices <csv>] [--test-prices <csv>] [--train-before YYYY-MM-DD] [--test-from YYYY-MM-DD] [--test-before YYYY-MM-DD] [--offers-for-hours <h>] [--calibrate-on values|trees] [--spread source|lot] [--save-model <file> | --load-model <file>] [--dump-errors <file>] [--json]\n' +
  '       model:eval --protocol rbauction [--data <shared data dir>] [--test <csv> | --test-from YYYY-MM-DD [--test-before YYYY-MM-DD]] [--no-fast-iron-alone] [--index-months <n>] [--save-model <file> | --load-model <file>] [--dump-errors <file>] [--json]\n' +
  '       model:eval --protocol west [--data <shared data dir>] [--test-from YYYY-MM-DD] [--test-before YYYY-MM-DD] [--offers-for-hours <h>] [--calibrate-on values|trees] [--spread source|lot] [--save-model <file> | --load-model <file>] [--dump-errors <file>] [--json]';

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

function protocolRows(train: TrainingSale[], test: TrainingSale[], valuations: (WrittenValuation | null)[]): ProtocolRow[] {
  const medianOf = (values: number[]) => {
    const s = [...values].sort((a, b) => a - b);
    return s.length === 0 ? NaN : s.length % 2 ? s[s.length >> 1]! : (s[(s.length >> 1) - 1]! + s[s.length >> 1]!) / 2;
  };
  // Baselines from the test's own market: the same source's training sales (per type, else all of
  // that source), falling back to every source. Fast Iron's dealer-auction prices would make a
  // baseline for online surplus lots far too easy to beat.
  const sourceTrain = (source: string) => train.filter((s) => saleSource(s) === source);
  const cache = new Map<string, { global: number; byType: Map<number | null, number> }>();
  const medians = (source: string) => {
    let found = cache.get(source);
    if (!found) {
      const own = sourceTrain(source);
      const rows = own.length >= 30 ? own : train;
      const byType = new Map<number | null, number>();
      for (const type of new Set(rows.map((r) => r.categoryId))) byType.set(type, medianOf(rows.filter((r) => r.categoryId === type).map((r) => r.price)));
      cache.set(source, (found = { global: medianOf(rows.map((r) => r.price)), byType }));
    }
    return found;
  };
  return test.map((s, i) => {
    const m = medians(saleSource(s));
    return {
      type: typeName(s),
      truth: s.price,
      valuation: valuations[i] ?? null,
      globalMedian: m.global,
      typeMedian: m.byType.get(s.categoryId) ?? m.global,
    };
  });
}

const typeName = (s: TrainingSale) => CATEGORIES.find((c) => c.id === s.categoryId)?.slug ?? String(s.categoryId);

function printProtocol(figures: ProtocolFigures, out: (line: string) => void) {
  const f = (v: number) => (Number.isFinite(v) ? v.toFixed(4) : 'n/a');
  out(`valued ${pct(figures.valued_share)} of ${figures.rows}; RMSLE ${f(figures.rmsle)} (baselines on the same lots: per-type median ${f(figures.baselines.per_type_median)}, global median ${f(figures.baselines.global_median)}; ratio ${f(figures.rmsle / figures.baselines.per_type_median)})`);
  out(`median APE ${pct(figures.median_ape)}; 10–90% range holds ${pct(figures.range_coverage)} (below ${pct(figures.below_range)}, above ${pct(figures.above_range)})`);
  for (const line of textTable(
    ['type', 'rows', 'valued', 'RMSLE', 'median log error'],
    Object.entries(figures.per_type).map(([type, t]) => [type, t.rows, pct(t.valued_share), t.valued_share > 0 ? f(t.rmsle) : '—', f(t.median_log_error ?? NaN)]),
  ))
    out(line);
}

/**
 * What the deal score's claims are calibrated on: the errors of the values the scorer writes for the
 * held-out sales (`values`, the default and what production trains with), or the trees' own errors
 * (`trees`, the calibration before 2026-11-27), to compare the two on the same split.
 */
function trainOptions(flags: Record<string, string | true>): TrainOptions {
  const v = flags['calibrate-on'];
  // a saved model keeps the calibration it was trained with: asking for another would be ignored
  if (v !== undefined && flags['load-model'] !== undefined) throw new UsageError('--calibrate-on applies to training; a model from --load-model keeps the calibration it was saved with');
  const spread = flags['spread'];
  if (spread !== undefined && flags['load-model'] !== undefined) throw new UsageError('--spread applies to training; a model from --load-model keeps the spread it was saved with');
  if (spread !== undefined && spread !== 'source' && spread !== 'lot') throw new UsageError('--spread takes source or lot');
  // --spread lot: the per-lot spread of the claims (TrainOptions.lotScale), off in production
  const lotScale: TrainOptions = spread === 'lot' ? { lotScale: true } : {};
  // --index-months <n>: the market level's period (TrainOptions.indexPeriodMonths), for choosing it on folds
  const months = flags['index-months'];
  if (months !== undefined) {
    const n = Number(months);
    if (!Number.isInteger(n) || n < 1 || n > 12) throw new UsageError('--index-months takes a whole number of months, 1 to 12');
    lotScale.indexPeriodMonths = n;
  }
  if (v === undefined || v === 'values') return withFinalValueCalibration(lotScale);
  if (v === 'trees') return lotScale;
  throw new UsageError('--calibrate-on takes values or trees');
}

function hoursFlag(flags: Record<string, string | true>): number | undefined {
  const v = flags['offers-for-hours'];
  if (v === undefined) return undefined;
  const h = typeof v === 'string' ? Number(v) : NaN;
  if (!Number.isFinite(h) || h < 0) throw new UsageError('--offers-for-hours needs a number of hours (0 or more)');
  return h;
}

/**
 * The deal levels on the test sales, each offered at k × its sold price (scorer/deal-flags.ts):
 * closed, or open auctions with `--offers-for-hours` left.
 */
function runDealFlags(model: FairValueModel, train: TrainingSale[], test: TrainingSale[], flags: Record<string, string | true>, out: (line: string) => void): DealFlags {
  const hoursLeft = hoursFlag(flags);
  const started = performance.now();
  const shares = dealFlags(model, train, test, { hoursLeft });
  out(`deal flags: every test sale offered at k × its sold price, ${hoursLeft === undefined ? 'as a closed listing' : `as an open auction with ${hoursLeft} h left`} (scored as the scorer scores; ${((performance.now() - started) / 1000).toFixed(1)} s)`);
  for (const line of textTable(
    ['k', 'scored', 'good or better', 'excellent', 'poor'],
    DEAL_FLAG_MULTIPLES.map((k) => {
      const f = shares[String(k)]!;
      return [String(k), pct(f.scored), pct(f.good_or_better), pct(f.excellent), pct(f.poor)];
    }),
  ))
    out(line);
  return shares;
}

/**
 * The measure before 2026-11-27, for comparison: the model asked directly for each test sale at
 * its sale date (later than any sale it knows), which no listing is valued as.
 */
function printAtSaleDate(model: FairValueModel, train: TrainingSale[], test: TrainingSale[], out: (line: string) => void) {
  const all = model.valueAll(test);
  const f = protocolFigures(protocolRows(train, test, test.map((s, i) => (model.valuesType(s.categoryId) ? all[i]! : null))));
  out(`(valued directly at each sale's date instead, as measured before 2026-11-27: RMSLE ${f.rmsle.toFixed(4)}, range holds ${pct(f.range_coverage)})`);
}

/**
 * `--dump-errors <file>`: one JSON line per test sale with what its listing says and the value the
 * scorer wrote (fair value, range, log error = log(1 + price) − log(1 + fair value)), to read which
 * lots land far from their value. The lot's own bid count is not in it: it is not known at listing time.
 */
export function errorRows(test: TrainingSale[], written: (WrittenValuation | null)[]): Record<string, unknown>[] {
  return test.map((s, i) => {
    const v = written[i] ?? null;
    return {
      type: typeName(s),
      kind: s.attributes.machine_kind ?? null,
      sold_at: s.soldAt.toISOString(),
      title: s.title ?? null,
      description: s.description ?? null,
      make: s.make,
      model: s.model,
      year: s.year,
      hours: s.hours,
      odometer: s.attributes.odometer ?? null,
      unused: s.attributes.unused ?? null,
      price: s.price,
      fair_value: v?.fairValue ?? null,
      low: v?.low ?? null,
      high: v?.high ?? null,
      log_error: v ? Math.log1p(s.price) - Math.log1p(v.fairValue) : null,
    };
  });
}

async function dumpErrors(test: TrainingSale[], written: (WrittenValuation | null)[], flags: Record<string, string | true>): Promise<void> {
  const file = flags['dump-errors'];
  if (file === undefined) return;
  if (typeof file !== 'string') throw new UsageError('--dump-errors needs a file name');
  await writeFile(file, errorRows(test, written).map((r) => JSON.stringify(r)).join('\n') + '\n');
}

async function saveModel(model: FairValueModel, flags: Record<string, string | true>): Promise<void> {
  if (typeof flags['save-model'] === 'string') await writeFile(flags['save-model'], JSON.stringify(model.toJSON()));
}

/**
 * The model: trained on `train`, or with `--load-model <file>` one saved by `--save-model` on the
 * same data flags (re-scoring after a change to the scoring path without re-training).
 */
async function trainOrLoad(train: TrainingSale[], flags: Record<string, string | true>): Promise<{ model: FairValueModel; seconds: number; loaded?: string }> {
  const file = flags['load-model'];
  if (file === undefined) return trainFairValueModel(train, trainOptions(flags));
  if (typeof file !== 'string') throw new UsageError('--load-model needs a file saved by --save-model');
  return { model: FairValueModel.fromJSON(JSON.parse(await readFile(file, 'utf8'))), seconds: 0, loaded: file };
}

const WEST_TEST_FROM = new Date('2025-07-01T00:00:00Z');

/** The West protocol's training and test sales (all Fast Iron + West lots before the test period; West lots in it). */
export async function westProtocolSales(flags: Record<string, string | true>): Promise<{ train: TrainingSale[]; test: TrainingSale[]; fastIron: number; testFrom: Date; testBefore: Date | undefined }> {
  const dir = typeof flags.data === 'string' ? flags.data : path.resolve('../shared/data');
  const fi = path.join(dir, 'bulldozers');
  const fastIron = [
    ...(await loadSales([path.join(fi, 'Train_first10931rows.csv.gz')], undefined, () => true)).sales,
    ...(await loadSales([path.join(fi, 'Valid.csv.gz')], path.join(fi, 'ValidSolution_2012-01_to_02.csv'), () => true)).sales,
  ];
  const west: TrainingSale[] = [];
  for await (const record of readWestAuction(path.join(dir, 'westauction_lots', 'westauction_lots.csv.gz'))) {
    const sale = westAuctionToSale(record);
    if (sale) west.push(sale);
  }
  // --test-from / --test-before pick another period (the training-period folds choices are made on)
  const testFrom = dateFlag(flags, 'test-from') ?? WEST_TEST_FROM;
  const testBefore = dateFlag(flags, 'test-before');
  const train = [...fastIron, ...west.filter((s) => s.soldAt < testFrom)];
  const test = west.filter((s) => s.soldAt >= testFrom && (!testBefore || s.soldAt < testBefore));
  if (test.length === 0) throw new UsageError('no West Auctions machine lots closed in the test period');
  return { train, test, fastIron: fastIron.length, testFrom, testBefore };
}

async function runWestProtocol(flags: Record<string, string | true>, out: (line: string) => void): Promise<number> {
  hoursFlag(flags);
  trainOptions(flags);
  const { train, test, fastIron, testFrom, testBefore } = await westProtocolSales(flags);
  out(`train: ${fastIron} Fast Iron sales + ${train.length - fastIron} West Auctions machine lots closed before ${testFrom.toISOString().slice(0, 10)}`);
  const counts = new Map<string, number>();
  for (const s of test) {
    const key = s.categoryId === OTHER_CATEGORY_ID ? `other (${String(s.attributes.machine_kind)})` : typeName(s);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  out(`test:  ${test.length} West Auctions machine lots closed from ${testFrom.toISOString().slice(0, 10)}${testBefore ? ` before ${testBefore.toISOString().slice(0, 10)}` : ''}: ${[...counts].sort().map(([k, n]) => `${k} ${n}`).join(', ')}`);
  const started = process.cpuUsage();
  const { model, seconds, loaded } = await trainOrLoad(train, flags);
  const cpu = process.cpuUsage(started);
  out(loaded ? `loaded the model from ${loaded}: ${model.treeCount} trees` : `trained in ${seconds.toFixed(1)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU: ${model.treeCount} trees`);
  for (const [source, h] of Object.entries(model.data.holdout.bySource ?? {})) {
    out(`training period, latest ${h.rows} ${source} sales held out: RMSLE ${h.rmsle.toFixed(4)}, median log error ${h.medianLogError.toFixed(4)}`);
  }
  await saveModel(model, flags);
  const written = scorerValuations(model, train, test);
  await dumpErrors(test, written, flags);
  const figures = protocolFigures(protocolRows(train, test, written));
  printProtocol(figures, out);
  printAtSaleDate(model, train, test, out);
  const deal_flags = runDealFlags(model, train, test, flags, out);
  if (flags.json) out(JSON.stringify({ ...figures, deal_flags }));
  return 0;
}

const RB_TEST_FROM = new Date('2023-03-01T00:00:00Z');
/** Fast Iron's Valid rows are read up to here: its solution prices cover January–February 2012 only. */
const FAST_IRON_VALID_BEFORE = new Date('2012-03-01T00:00:00Z');
/** The six types Fast Iron also covers: the target over them is its own (issue 37). */
export const FAST_IRON_TYPES = ['excavators', 'bulldozers', 'wheel-loaders', 'backhoe-loaders', 'skid-steers', 'graders'];
/** A machine of the test: a lot mapped to one of the ten types (not Other). */
const isMachine = (s: TrainingSale) => s.categoryId !== null && s.categoryId !== OTHER_CATEGORY_ID;

async function readRbSales(file: string): Promise<TrainingSale[]> {
  const out: TrainingSale[] = [];
  for await (const record of readRbAuction(file)) {
    const sale = rbAuctionToSale(record);
    if (sale) out.push(sale);
  }
  return out;
}

/**
 * The Ritchie Bros. protocol's sales: every shipped history (Fast Iron with its January–February
 * 2012 prices, Ritchie Bros. results, West Auctions lots) sold before the test period, and the
 * test's machines. Without `--test`: Ritchie Bros. machines sold from 2023-03-01 (the shipped file
 * ends in May 2023), or those of `--test-from`/`--test-before` (the training-period folds).
 * With `--test <csv>` (the shared file's format): its machines, trained on all sold before its first sale.
 */
export async function rbProtocolSales(flags: Record<string, string | true>): Promise<{ train: TrainingSale[]; test: TrainingSale[]; cutoff: Date; testBefore?: Date }> {
  const dir = typeof flags.data === 'string' ? flags.data : path.resolve('../shared/data');
  if (flags.test !== undefined && typeof flags.test !== 'string') throw new UsageError('--test needs a results file in the shared Ritchie Bros. format');
  if (typeof flags.test === 'string' && flags['test-from'] !== undefined) throw new UsageError('--test and --test-from are alternatives: a test file is tested from its first sale');
  const fi = path.join(dir, 'bulldozers');
  const history = [
    ...(await loadSales([path.join(fi, 'Train_first10931rows.csv.gz')], undefined, () => true)).sales,
    ...(await loadSales([path.join(fi, 'Valid.csv.gz')], path.join(fi, 'ValidSolution_2012-01_to_02.csv'), (d) => d < FAST_IRON_VALID_BEFORE)).sales,
    ...(await readRbSales(path.join(dir, 'rbauction_results', 'rbauction-results-2021-09-to-2023-05.csv.gz'))),
  ];
  for await (const record of readWestAuction(path.join(dir, 'westauction_lots', 'westauction_lots.csv.gz'))) {
    const sale = westAuctionToSale(record);
    if (sale) history.push(sale);
  }
  let test: TrainingSale[];
  let cutoff: Date;
  let testBefore: Date | undefined;
  if (typeof flags.test === 'string') {
    const all = await readRbSales(flags.test);
    if (all.length === 0) throw new UsageError(`${flags.test} holds no priced machine lots`);
    cutoff = new Date(Math.min(...all.map((s) => s.soldAt.getTime())));
    test = all.filter(isMachine);
  } else {
    cutoff = dateFlag(flags, 'test-from') ?? RB_TEST_FROM;
    testBefore = dateFlag(flags, 'test-before');
    test = history.filter((s) => saleSource(s) === 'rbauction' && isMachine(s) && s.soldAt >= cutoff && (!testBefore || s.soldAt < testBefore));
  }
  if (test.length === 0) throw new UsageError('no Ritchie Bros. machine lots in the test period');
  return { train: history.filter((s) => s.soldAt < cutoff), test, cutoff, testBefore };
}

/**
 * The per-model median baseline (make + model): each test lot at the median training price of its
 * make and model (normalised, same type), else of its type in its own source (the per-type
 * baseline's price), on the rows the model values.
 */
export function perModelMedianRmsle(train: TrainingSale[], test: TrainingSale[], typeMedians: number[], valued: boolean[]): number {
  const key = (s: TrainingSale) => `${s.categoryId}|${normaliseModel(s.make)}|${normaliseModel(s.model)}`;
  const prices = new Map<string, number[]>();
  for (const s of train) {
    if (!s.make || !s.model) continue;
    let list = prices.get(key(s));
    if (!list) prices.set(key(s), (list = []));
    list.push(s.price);
  }
  const median = (v: number[]) => {
    const x = [...v].sort((a, b) => a - b);
    return x.length % 2 ? x[x.length >> 1]! : (x[(x.length >> 1) - 1]! + x[x.length >> 1]!) / 2;
  };
  let se = 0;
  let n = 0;
  test.forEach((s, i) => {
    if (!valued[i]) return;
    const own = s.make && s.model ? prices.get(key(s)) : undefined;
    const guess = own ? median(own) : typeMedians[i]!;
    se += (Math.log1p(guess) - Math.log1p(s.price)) ** 2;
    n++;
  });
  return Math.sqrt(se / Math.max(1, n));
}

/** The protocol's figures for one model's written values: the issue's JSON shape (and the six Fast Iron types' RMSLE). */
function rbFigures(train: TrainingSale[], test: TrainingSale[], written: (WrittenValuation | null)[]) {
  const rows = protocolRows(train, test, written);
  const f = protocolFigures(rows);
  const six = rows.filter((r) => r.valuation !== null && FAST_IRON_TYPES.includes(r.type));
  const sixRmsle = Math.sqrt(six.reduce((a, r) => a + (Math.log1p(r.valuation!.fairValue) - Math.log1p(r.truth)) ** 2, 0) / Math.max(1, six.length));
  return {
    rows: f.rows,
    rmsle: f.rmsle,
    range_coverage: f.range_coverage,
    valued_share: f.valued_share,
    baselines: {
      per_type_median: f.baselines.per_type_median,
      per_model_median: perModelMedianRmsle(train, test, rows.map((r) => r.typeMedian), written.map((w) => w !== null)),
    },
    per_type: Object.fromEntries(Object.entries(f.per_type).map(([t, v]) => [t, { rows: v.rows, rmsle: v.rmsle, median_log_error: v.median_log_error }])),
    fast_iron_types: { rows: six.length, rmsle: sixRmsle },
    median_ape: f.median_ape,
    below_range: f.below_range,
    above_range: f.above_range,
  };
}

function printRbFigures(label: string, f: ReturnType<typeof rbFigures>, out: (line: string) => void) {
  const x = (v: number | null) => (v !== null && Number.isFinite(v) ? v.toFixed(4) : 'n/a');
  out(`${label}: valued ${pct(f.valued_share)} of ${f.rows}; RMSLE ${x(f.rmsle)} (per-model median ${x(f.baselines.per_model_median)}, ratio ${x(f.rmsle / f.baselines.per_model_median)}; per-type median ${x(f.baselines.per_type_median)}); six Fast Iron types ${x(f.fast_iron_types.rmsle)} on ${f.fast_iron_types.rows}; range holds ${pct(f.range_coverage)} (below ${pct(f.below_range)}, above ${pct(f.above_range)})`);
  for (const line of textTable(['type', 'rows', 'RMSLE', 'median log error'], Object.entries(f.per_type).map(([t, v]) => [t, v.rows, x(v.rmsle), x(v.median_log_error)]))) out(line);
}

async function runRbProtocol(flags: Record<string, string | true>, out: (line: string) => void): Promise<number> {
  hoursFlag(flags);
  trainOptions(flags);
  const { train, test, cutoff, testBefore } = await rbProtocolSales(flags);
  const bySource = new Map<string, number>();
  for (const s of train) bySource.set(saleSource(s), (bySource.get(saleSource(s)) ?? 0) + 1);
  out(`train: ${[...bySource].map(([k, n]) => `${n} ${k}`).join(' + ')} sales sold before ${cutoff.toISOString().slice(0, 10)}`);
  out(`test:  ${test.length} Ritchie Bros. machines sold from ${cutoff.toISOString().slice(0, 10)}${testBefore ? ` before ${testBefore.toISOString().slice(0, 10)}` : ''}`);
  const started = process.cpuUsage();
  const { model, seconds, loaded } = await trainOrLoad(train, flags);
  const cpu = process.cpuUsage(started);
  out(loaded ? `loaded the model from ${loaded}: ${model.treeCount} trees` : `trained in ${seconds.toFixed(1)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s CPU: ${model.treeCount} trees; market level of ${model.marketAsOf ?? 'n/a'}`);
  await saveModel(model, flags);
  const written = scorerValuations(model, train, test);
  await dumpErrors(test, written, flags);
  const figures = rbFigures(train, test, written);
  printRbFigures('every history', figures, out);
  const deal_flags = runDealFlags(model, train, test, flags, out);
  let fastIronAlone: ReturnType<typeof rbFigures> | undefined;
  if (flags['no-fast-iron-alone'] === undefined) {
    // the same model trained on Fast Iron alone (as the product shipped before), for comparison
    const fiTrain = train.filter((s) => saleSource(s) === 'fastiron');
    const { 'load-model': _loaded, ...trainingFlags } = flags;
    const fi = trainFairValueModel(fiTrain, trainOptions(trainingFlags));
    fastIronAlone = rbFigures(fiTrain, test, scorerValuations(fi.model, fiTrain, test));
    printRbFigures(`Fast Iron alone (${fiTrain.length} sales)`, fastIronAlone, out);
  }
  if (flags.json) out(JSON.stringify({ ...figures, market_as_of: model.marketAsOf, deal_flags, ...(fastIronAlone ? { fast_iron_alone: fastIronAlone } : {}) }));
  return 0;
}

export async function runModelEval(args: string[], out: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<number> {
  const { flags } = parseArgs(args);
  try {
    if (flags.protocol !== undefined) {
      if (flags.protocol === 'rbauction') return await runRbProtocol(flags, out);
      if (flags.protocol !== 'west') throw new UsageError('--protocol takes west or rbauction (or leave it out and pass --train and --test)');
      return await runWestProtocol(flags, out);
    }
    if (typeof flags.train !== 'string' || typeof flags.test !== 'string') throw new UsageError('--train and --test are required');
    hoursFlag(flags);
    trainOptions(flags);
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
    const { model, seconds, loaded } = await trainOrLoad(train.sales, flags);
    out(`${loaded ? `loaded from ${loaded}` : `trained in ${seconds.toFixed(1)} s`}: ${1 + (model.data.extraGbdts?.length ?? 0)} boosted models, ${model.treeCount} trees; time-holdout RMSLE ${model.data.holdout.rmsle.toFixed(4)} on the latest ${model.data.holdout.rows} training sales`);
    const started = performance.now();
    const written = scorerValuations(model, train.sales, test.sales);
    const predictSeconds = (performance.now() - started) / 1000;
    // accuracy on the values the scorer writes (a sale it does not value is left out of both rows)
    const valued = test.sales.flatMap((s, i) => (written[i] ? [{ sale: s, valuation: written[i]! }] : []));
    const truth = valued.map((v) => v.sale.price);
    const figures = evaluate(truth, valued.map((v) => v.valuation));
    const baseline = evaluate(truth, modelMedianBaseline(train.sales, valued.map((v) => v.sale)));
    const rows = [row('fair value as the scorer writes it', figures), row('baseline: per-model median', baseline)];
    for (const line of textTable(Object.keys(rows[0]!), rows.map((r) => Object.values(r)))) out(line);
    out(`scored ${test.sales.length} as listings in ${(predictSeconds * 1000).toFixed(0)} ms`);
    printAtSaleDate(model, train.sales, test.sales, out);
    await saveModel(model, flags);
    await dumpErrors(test.sales, written, flags);
    const protocol = protocolFigures(protocolRows(train.sales, test.sales, written));
    out(`below the range ${pct(protocol.below_range)}, above ${pct(protocol.above_range)}; valued ${pct(protocol.valued_share)}`);
    const deal_flags = runDealFlags(model, train.sales, test.sales, flags, out);
    if (flags.json) out(JSON.stringify({ ...protocol, deal_flags }));
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
