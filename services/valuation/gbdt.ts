/**
 * A compact histogram-binned gradient-boosted regression tree learner (squared or Huber loss), in the
 * manner of LightGBM: features are binned once (quantile edges for numbers, one bin per frequent
 * category), trees grow leaf-wise with a leaf cap and a depth cap, a child's histogram is the
 * parent's minus its sibling's, missing values get their own bin and each split learns which
 * side they go to, and categorical splits sort the node's categories by gradient ratio and cut
 * that order (many-vs-many). No maintained GBDT exists on npm; this one is pure and deterministic
 * (seeded sampling), so a trained model serialises to JSON and predicts identically after loading.
 */
import { seededRandom } from '../shared/seeded-random.js';
import { binColumn, categoricalBins, isTrivial, numericBins, type BinnedColumn, type FeatureBins } from './gbdt-bins.js';
import { GbdtModel } from './gbdt-model.js';
import { binnedTreeValue, growTree, newWorkspace, type Trainer } from './gbdt-tree.js';
import { DEFAULT_GBDT_PARAMS, type FeatureMatrix, type FeatureSpec, type GbdtParams, type Tree, type TrainReport } from './gbdt-types.js';

export { DEFAULT_GBDT_PARAMS, GbdtModel };
export type { FeatureKind, FeatureMatrix, FeatureSpec, GbdtParams, SerializedGbdt, Tree, TrainReport } from './gbdt-types.js';

function mse(pred: Float64Array, y: Float64Array, weights?: Float64Array): number {
  let s = 0;
  let n = 0;
  for (let i = 0; i < y.length; i++) {
    const w = weights ? weights[i]! : 1;
    const r = pred[i]! - y[i]!;
    s += w * (r * r);
    n += w;
  }
  return n ? s / n : 0;
}

/** A training matrix binned once (binMatrix): the boosted models of a fit share it, and the raw columns can go. */
export type BinnedMatrix = {
  rows: number;
  bins: FeatureBins[];
  binned: BinnedColumn[];
  /** The binning parameters it was made with: a training with others must bin afresh. */
  binning: Pick<GbdtParams, 'maxBins' | 'maxCategories' | 'minCategoryCount'>;
};

/**
 * A matrix's bins, as trainGbdt makes them from `params` (defaults where absent). With `release`,
 * each raw column is dropped from the matrix once binned: a million rows' Float64 columns (~650 MB)
 * need not outlive their bins (~80 MB).
 */
export function binMatrix(features: FeatureSpec[], train: FeatureMatrix, paramsIn: Partial<GbdtParams> = {}, release = false): BinnedMatrix {
  const { maxBins, maxCategories, minCategoryCount } = { ...DEFAULT_GBDT_PARAMS, ...paramsIn };
  if (features.length !== train.columns.length) throw new Error('feature specs and columns differ in length');
  const bins: FeatureBins[] = [];
  const binned: BinnedColumn[] = [];
  features.forEach((spec, f) => {
    const column = train.columns[f]!;
    const b = spec.kind === 'numeric' ? numericBins(column, maxBins) : categoricalBins(column, maxCategories, minCategoryCount);
    bins.push(b);
    binned.push(binColumn(b, column));
    if (release) train.columns[f] = new Float64Array(0);
  });
  return { rows: train.rows, bins, binned, binning: { maxBins, maxCategories, minCategoryCount } };
}

const isBinned = (m: FeatureMatrix | BinnedMatrix): m is BinnedMatrix => 'binned' in m;

/**
 * Fits boosted trees to `y` under squared loss (Huber with `huberDelta`). With `valid`, tracks its loss per tree and
 * keeps the trees up to the best iteration (early stopping).
 */
export function trainGbdt(
  features: FeatureSpec[],
  /** Raw columns, or binned once (binMatrix) with these params' binning. */
  train: FeatureMatrix | BinnedMatrix,
  y: Float64Array,
  paramsIn: Partial<GbdtParams> = {},
  /** Early-stopping rows, optionally weighted (the stopping loss is their weighted mean squared error). */
  valid?: { x: FeatureMatrix; y: Float64Array; weights?: Float64Array },
  /** Per-row weights (e.g. favouring recent sales); default 1. */
  weights?: Float64Array,
  /** Per-row Huber deltas, overriding `huberDelta` (a noisier market's rows may pull harder); default none. */
  deltas?: Float64Array,
): { model: GbdtModel; report: TrainReport } {
  const started = performance.now();
  const params: GbdtParams = { ...DEFAULT_GBDT_PARAMS, ...paramsIn };
  if (y.length !== train.rows || train.rows === 0) throw new Error('need one target per row and at least one row');
  const n = train.rows;
  if (weights && weights.length !== n) throw new Error('one weight per row');
  if (deltas && deltas.length !== n) throw new Error('one Huber delta per row');
  if (isBinned(train)) {
    const b = train.binning;
    if (train.bins.length !== features.length) throw new Error('feature specs and binned columns differ in length');
    if (b.maxBins !== params.maxBins || b.maxCategories !== params.maxCategories || b.minCategoryCount !== params.minCategoryCount) {
      throw new Error('the matrix was binned with other binning parameters');
    }
  }
  const { bins, binned } = isBinned(train) ? train : binMatrix(features, train, params);
  const offsets = new Int32Array(bins.length);
  let totalBins = 0;
  bins.forEach((b, f) => {
    offsets[f] = totalBins;
    totalBins += b.count;
  });
  const monotone = Int8Array.from(features.map((spec) => (spec.kind === 'numeric' ? (spec.monotone ?? 0) : 0)));
  const hess = weights ? Float64Array.from(weights) : new Float64Array(n).fill(1);
  const trainer: Trainer = { bins, binned, offsets, totalBins, params, monotone, unitHessian: hess.every((v) => v === 1) };
  // a feature with at most one bin of values can never be split on (its column is never read)
  const usable = bins.map((b) => !(isTrivial(b) && params.minDataInLeaf >= 1));
  let base = 0;
  let weightSum = 0;
  for (let i = 0; i < y.length; i++) {
    const w = weights ? weights[i]! : 1;
    base += w * y[i]!;
    weightSum += w;
  }
  base /= weightSum;

  const pred = new Float64Array(n).fill(base);
  const grad = new Float64Array(n);
  const random = seededRandom(params.seed);
  const trees: Tree[] = [];
  const report: TrainReport = { trainLoss: [], validLoss: [], bestIteration: 0, seconds: 0 };
  const knownCategories = bins.map((b) => (b.kind === 'categorical' ? b.binToCode.slice(1) : null));
  // the validation rows in the training bins: a tree sends a row's bin where it sends its value
  const validBinned: BinnedColumn[] | undefined = valid && bins.map((b, f) => (usable[f] ? binColumn(b, valid.x.columns[f]!) : new Uint8Array(0)));
  const validPred = valid ? new Float64Array(valid.y.length).fill(base) : undefined;
  let bestLoss = Infinity;
  let sinceBest = 0;
  const delta = params.huberDelta ?? Infinity;
  const ws = newWorkspace(n);
  const inSample = new Uint8Array(n);
  const all = params.subsample >= 1;

  /** The (Huber-capped) gradient of row i at its current prediction. */
  const gradient = (i: number) => {
    const r = pred[i]! - y[i]!;
    const d = deltas ? deltas[i]! : delta;
    return (r > d ? d : r < -d ? -d : r) * hess[i]!;
  };
  for (let i = 0; i < n; i++) grad[i] = gradient(i);

  for (let t = 0; t < params.trees; t++) {
    // row and column samples drawn in the same order as ever, so a seed grows the same trees
    let sampled = 0;
    for (let i = 0; i < n; i++) {
      const take = all || random() < params.subsample;
      inSample[i] = take ? 1 : 0;
      if (take) ws.rows[sampled++] = i;
    }
    const featureSet: number[] = [];
    for (let f = 0; f < features.length; f++) if (params.colsample >= 1 || random() < params.colsample) featureSet.push(f);
    if (featureSet.length === 0) featureSet.push(Math.floor(random() * features.length));
    const grown = growTree(trainer, ws, sampled, grad, hess, featureSet.filter((f) => usable[f]));
    trees.push(grown.tree);
    // the sampled rows take their leaf's value; the others walk the tree in bin space
    const { leafRanges } = grown;
    const value = grown.tree.value;
    for (let k = 0; k < leafRanges.length; k += 3) {
      const v = value[leafRanges[k + 2]!]!;
      for (let j = leafRanges[k]!; j < leafRanges[k + 1]!; j++) {
        const i = ws.rows[j]!;
        pred[i] = pred[i]! + v;
      }
    }
    // one pass: the unsampled rows' predictions, the training loss, and the next tree's gradients
    // (the gradient inlined: this loop runs once per tree over every row)
    let loss = 0;
    for (let i = 0; i < n; i++) {
      let p = pred[i]!;
      if (inSample[i] === 0) pred[i] = p = p + binnedTreeValue(grown.binned, binned, i);
      const r = p - y[i]!;
      loss += r * r;
      const d = deltas ? deltas[i]! : delta;
      grad[i] = (r > d ? d : r < -d ? -d : r) * hess[i]!;
    }
    report.trainLoss.push(loss / n);
    if (valid && validPred && validBinned) {
      for (let i = 0; i < valid.y.length; i++) validPred[i] = validPred[i]! + binnedTreeValue(grown.binned, validBinned, i);
      const loss = mse(validPred, valid.y, valid.weights);
      report.validLoss.push(loss);
      if (loss < bestLoss - 1e-12) {
        bestLoss = loss;
        report.bestIteration = t + 1;
        sinceBest = 0;
      } else if (++sinceBest >= params.earlyStoppingRounds) break;
    }
  }
  if (valid) trees.length = Math.max(1, report.bestIteration);
  else report.bestIteration = trees.length;
  report.seconds = (performance.now() - started) / 1000;
  return { model: new GbdtModel({ format: 'gbdt-v1', features, knownCategories, base, trees, params }), report };
}
