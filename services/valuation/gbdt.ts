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

export type FeatureKind = 'numeric' | 'categorical';

/**
 * `monotone`: 1 when the prediction may only rise with this (numeric) feature, −1 when it may only
 * fall, all else equal. Enforced as LightGBM's basic method does: a split that would order its
 * children against the sign is rejected, and each child's leaf values are bounded by the midpoint
 * of the two, so no deeper split can reverse the order.
 */
export type FeatureSpec = { name: string; kind: FeatureKind; monotone?: 1 | -1 };

/** Column-major features: `columns[f][i]` is feature f of row i; NaN = missing; categories are integer codes ≥ 0. */
export type FeatureMatrix = { columns: Float64Array[]; rows: number };

export type GbdtParams = {
  trees: number;
  learningRate: number;
  maxLeaves: number;
  maxDepth: number;
  minDataInLeaf: number;
  /** L2 regularisation on leaf values. */
  lambda: number;
  minGain: number;
  /** Bins per numeric feature (excluding the missing bin). */
  maxBins: number;
  /** Categories kept per categorical feature (the most frequent); the rest count as missing. */
  maxCategories: number;
  /** A category needs this many training rows to get its own bin. */
  minCategoryCount: number;
  /** Added to a category's hessian when ordering categories, so rare ones sort towards neutral. */
  catSmooth: number;
  /** Fraction of rows each tree sees. */
  subsample: number;
  /** Fraction of features each tree may split on. */
  colsample: number;
  seed: number;
  /** Stop when the validation loss has not improved for this many trees (needs a validation set). */
  earlyStoppingRounds: number;
  /**
   * Huber loss: a residual beyond this (in target units) pulls with this much and no more, so a
   * few mislabelled or odd sales do not drag a leaf. Absent: squared loss.
   */
  huberDelta?: number;
};

export const DEFAULT_GBDT_PARAMS: GbdtParams = {
  trees: 400,
  learningRate: 0.05,
  maxLeaves: 31,
  maxDepth: 10,
  minDataInLeaf: 10,
  lambda: 1,
  minGain: 0,
  maxBins: 255,
  maxCategories: 2000,
  minCategoryCount: 2,
  catSmooth: 10,
  subsample: 0.8,
  colsample: 0.8,
  seed: 1,
  earlyStoppingRounds: 50,
};

/** A trained tree in flat arrays: node i is a leaf when `feature[i] === -1`. */
export type Tree = {
  feature: number[];
  /** Numeric split: go left when value ≤ threshold. */
  threshold: number[];
  /** Categorical split: the category codes that go left (null for numeric nodes and leaves). */
  leftCategories: (number[] | null)[];
  /** 1 when missing (or unknown category) goes left. */
  defaultLeft: number[];
  left: number[];
  right: number[];
  value: number[];
};

export type SerializedGbdt = {
  format: 'gbdt-v1';
  features: FeatureSpec[];
  /** Per categorical feature, the codes that had their own bin; anything else predicts as missing. */
  knownCategories: (number[] | null)[];
  base: number;
  trees: Tree[];
  params: GbdtParams;
};

export type TrainReport = {
  trainLoss: number[];
  validLoss: number[];
  bestIteration: number;
  seconds: number;
};

// ---------- binning ----------

type FeatureBins =
  | { kind: 'numeric'; edges: Float64Array; count: number }
  | { kind: 'categorical'; codeToBin: Map<number, number>; binToCode: number[]; count: number };

function upperBoundCount(edges: Float64Array, v: number): number {
  // number of edges strictly below v
  let lo = 0;
  let hi = edges.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (edges[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function numericBins(column: Float64Array, maxBins: number): FeatureBins {
  const values: number[] = [];
  for (const v of column) if (!Number.isNaN(v)) values.push(v);
  values.sort((a, b) => a - b);
  const distinct: number[] = [];
  for (const v of values) if (distinct.length === 0 || distinct[distinct.length - 1] !== v) distinct.push(v);
  const edges: number[] = [];
  if (distinct.length <= maxBins) {
    for (let i = 0; i + 1 < distinct.length; i++) edges.push((distinct[i]! + distinct[i + 1]!) / 2);
  } else {
    const sortedDistinct = Float64Array.from(distinct);
    for (let k = 1; k < maxBins; k++) {
      const v = values[Math.floor((k * values.length) / maxBins)]!;
      // the edge sits halfway to the next distinct value, so equal values share a bin
      const next = distinct[upperBoundCount(sortedDistinct, v) + 1];
      const edge = next === undefined ? v : (v + next) / 2;
      if (edges.length === 0 || edge > edges[edges.length - 1]!) edges.push(edge);
    }
  }
  // bins: 0 missing, 1..edges.length+1 values
  return { kind: 'numeric', edges: Float64Array.from(edges), count: edges.length + 2 };
}

function categoricalBins(column: Float64Array, maxCategories: number, minCount: number): FeatureBins {
  const counts = new Map<number, number>();
  for (const v of column) if (!Number.isNaN(v)) counts.set(v, (counts.get(v) ?? 0) + 1);
  const frequent = [...counts.entries()]
    .filter(([, c]) => c >= minCount)
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, maxCategories)
    .map(([code]) => code)
    .sort((a, b) => a - b);
  const codeToBin = new Map<number, number>();
  frequent.forEach((code, i) => codeToBin.set(code, i + 1));
  return { kind: 'categorical', codeToBin, binToCode: [-1, ...frequent], count: frequent.length + 1 };
}

function binOf(bins: FeatureBins, v: number): number {
  if (Number.isNaN(v)) return 0;
  if (bins.kind === 'numeric') return 1 + upperBoundCount(bins.edges, v);
  return bins.codeToBin.get(v) ?? 0;
}

// ---------- tree growth ----------

type Split = {
  gain: number;
  feature: number;
  /** numeric: bins 1..binThreshold go left; categorical: leftBins mask */
  binThreshold: number;
  leftBins: Uint8Array | null;
  defaultLeft: boolean;
  leftG: number;
  leftH: number;
  leftCount: number;
  /** The children's (bounded) outputs, unscaled: the midpoint bounds them under a monotone split. */
  leftOutput: number;
  rightOutput: number;
};

type Leaf = {
  node: number;
  start: number;
  end: number;
  depth: number;
  g: number;
  h: number;
  hist: Float64Array; // per bin: [g, h, count] interleaved
  split: Split | null;
  /** Bounds on this leaf's output from monotone splits above it (±Infinity when none). */
  lo: number;
  hi: number;
};

type Trainer = {
  bins: FeatureBins[];
  binned: Uint16Array[]; // per feature, per row
  offsets: number[]; // histogram offset per feature (in bins)
  totalBins: number;
  params: GbdtParams;
  /** Per feature: its monotone sign, 0 when free. */
  monotone: Int8Array;
};

function buildHistogram(t: Trainer, rows: Int32Array, start: number, end: number, grad: Float64Array, hess: Float64Array, features: number[]): Float64Array {
  const hist = new Float64Array(t.totalBins * 3);
  for (const f of features) {
    const col = t.binned[f]!;
    const base = t.offsets[f]! * 3;
    for (let k = start; k < end; k++) {
      const i = rows[k]!;
      const o = base + col[i]! * 3;
      hist[o] = hist[o]! + grad[i]!;
      hist[o + 1] = hist[o + 1]! + hess[i]!;
      hist[o + 2] = hist[o + 2]! + 1;
    }
  }
  return hist;
}

function leafScore(g: number, h: number, lambda: number): number {
  return (g * g) / (h + lambda);
}

const clamp = (v: number, lo: number, hi: number) => (v < lo ? lo : v > hi ? hi : v);

/** The loss reduction of a leaf whose output is held at w (the optimum when w = −g/(h+λ)). */
function boundedLeafScore(g: number, h: number, lambda: number, w: number): number {
  return -(2 * g * w + (h + lambda) * w * w);
}

function findBestSplit(t: Trainer, leaf: Leaf, features: number[]): Split | null {
  const p = t.params;
  const count = leaf.end - leaf.start;
  if (leaf.depth >= p.maxDepth || count < 2 * p.minDataInLeaf) return null;
  const bounded = leaf.lo !== -Infinity || leaf.hi !== Infinity;
  const parentScore = bounded
    ? boundedLeafScore(leaf.g, leaf.h, p.lambda, clamp(-leaf.g / (leaf.h + p.lambda), leaf.lo, leaf.hi))
    : leafScore(leaf.g, leaf.h, p.lambda);
  let best: Split | null = null;
  const hist = leaf.hist;
  for (const f of features) {
    const bins = t.bins[f]!;
    const base = t.offsets[f]! * 3;
    const mg = hist[base]!;
    const mh = hist[base + 1]!;
    const mc = hist[base + 2]!;
    const sign = t.monotone[f]!;
    // the order in which bins are cut: natural for numbers, by gradient ratio for categories
    let order: number[];
    if (bins.kind === 'numeric') {
      order = [];
      for (let b = 1; b < bins.count; b++) order.push(b);
    } else {
      order = [];
      for (let b = 1; b < bins.count; b++) if (hist[base + b * 3 + 2]! > 0) order.push(b);
      const ratio = (b: number) => hist[base + b * 3]! / (hist[base + b * 3 + 1]! + p.catSmooth);
      order.sort((a, b) => ratio(a) - ratio(b));
    }
    let ag = 0;
    let ah = 0;
    let ac = 0;
    for (let k = 0; k + 1 < order.length; k++) {
      const b = order[k]!;
      const o = base + b * 3;
      ag += hist[o]!;
      ah += hist[o + 1]!;
      ac += hist[o + 2]!;
      if (ac === 0) continue;
      for (let side = 0; side < (mc > 0 ? 2 : 1); side++) {
        const missingLeft = side === 1;
        const lg = ag + (missingLeft ? mg : 0);
        const lh = ah + (missingLeft ? mh : 0);
        const lc = ac + (missingLeft ? mc : 0);
        const rc = count - lc;
        if (lc < p.minDataInLeaf || rc < p.minDataInLeaf) continue;
        const rg = leaf.g - lg;
        const rh = leaf.h - lh;
        let leftOutput = -lg / (lh + p.lambda);
        let rightOutput = -rg / (rh + p.lambda);
        let gain: number;
        if (bounded || sign !== 0) {
          leftOutput = clamp(leftOutput, leaf.lo, leaf.hi);
          rightOutput = clamp(rightOutput, leaf.lo, leaf.hi);
          // lower values go left: the right child must not sit below the left for +1, nor above for −1
          if (sign !== 0 && sign * (rightOutput - leftOutput) < 0) continue;
          gain = boundedLeafScore(lg, lh, p.lambda, leftOutput) + boundedLeafScore(rg, rh, p.lambda, rightOutput) - parentScore;
        } else {
          gain = leafScore(lg, lh, p.lambda) + leafScore(rg, rh, p.lambda) - parentScore;
        }
        if (gain > p.minGain && (best === null || gain > best.gain)) {
          let leftBins: Uint8Array | null = null;
          if (bins.kind === 'categorical') {
            leftBins = new Uint8Array(bins.count);
            for (let j = 0; j <= k; j++) leftBins[order[j]!] = 1;
          }
          best = { gain, feature: f, binThreshold: b, leftBins, defaultLeft: missingLeft, leftG: lg, leftH: lh, leftCount: lc, leftOutput, rightOutput };
        }
      }
    }
  }
  return best;
}

function goesLeftBinned(split: Split, bin: number): boolean {
  if (bin === 0) return split.defaultLeft;
  return split.leftBins ? split.leftBins[bin] === 1 : bin <= split.binThreshold;
}

function growTree(t: Trainer, rows: Int32Array, grad: Float64Array, hess: Float64Array, features: number[]): Tree {
  const p = t.params;
  const tree: Tree = { feature: [], threshold: [], leftCategories: [], defaultLeft: [], left: [], right: [], value: [] };
  const splits: (Split | null)[] = [];
  const addNode = () => {
    tree.feature.push(-1);
    tree.threshold.push(0);
    tree.leftCategories.push(null);
    tree.defaultLeft.push(0);
    tree.left.push(-1);
    tree.right.push(-1);
    tree.value.push(0);
    splits.push(null);
    return tree.feature.length - 1;
  };
  let g = 0;
  let h = 0;
  for (const i of rows) {
    g += grad[i]!;
    h += hess[i]!;
  }
  const root: Leaf = { node: addNode(), start: 0, end: rows.length, depth: 0, g, h, hist: buildHistogram(t, rows, 0, rows.length, grad, hess, features), split: null, lo: -Infinity, hi: Infinity };
  root.split = findBestSplit(t, root, features);
  const leaves: Leaf[] = [root];
  const scratch = new Int32Array(rows.length);
  while (leaves.length < p.maxLeaves) {
    let bestIndex = -1;
    for (let k = 0; k < leaves.length; k++) {
      const s = leaves[k]!.split;
      if (s && (bestIndex < 0 || s.gain > leaves[bestIndex]!.split!.gain)) bestIndex = k;
    }
    if (bestIndex < 0) break;
    const leaf = leaves[bestIndex]!;
    const split = leaf.split!;
    // partition rows of this leaf: left ones first
    const col = t.binned[split.feature]!;
    let l = leaf.start;
    let r = 0;
    for (let k = leaf.start; k < leaf.end; k++) {
      const i = rows[k]!;
      if (goesLeftBinned(split, col[i]!)) rows[l++] = i;
      else scratch[r++] = i;
    }
    rows.set(scratch.subarray(0, r), l);
    const mid = l;
    const leftLeaf: Leaf = { node: addNode(), start: leaf.start, end: mid, depth: leaf.depth + 1, g: split.leftG, h: split.leftH, hist: leaf.hist, split: null, lo: leaf.lo, hi: leaf.hi };
    const rightLeaf: Leaf = { node: addNode(), start: mid, end: leaf.end, depth: leaf.depth + 1, g: leaf.g - split.leftG, h: leaf.h - split.leftH, hist: leaf.hist, split: null, lo: leaf.lo, hi: leaf.hi };
    const sign = t.monotone[split.feature]!;
    if (sign !== 0) {
      const midpoint = (split.leftOutput + split.rightOutput) / 2;
      if (sign > 0) {
        leftLeaf.hi = Math.min(leftLeaf.hi, midpoint);
        rightLeaf.lo = Math.max(rightLeaf.lo, midpoint);
      } else {
        leftLeaf.lo = Math.max(leftLeaf.lo, midpoint);
        rightLeaf.hi = Math.min(rightLeaf.hi, midpoint);
      }
    }
    const [small, large] = mid - leaf.start <= leaf.end - mid ? [leftLeaf, rightLeaf] : [rightLeaf, leftLeaf];
    small.hist = buildHistogram(t, rows, small.start, small.end, grad, hess, features);
    const parentHist = leaf.hist;
    for (let k = 0; k < parentHist.length; k++) parentHist[k] = parentHist[k]! - small.hist[k]!;
    large.hist = parentHist;
    small.split = findBestSplit(t, small, features);
    large.split = findBestSplit(t, large, features);
    splits[leaf.node] = split;
    tree.feature[leaf.node] = split.feature;
    tree.defaultLeft[leaf.node] = split.defaultLeft ? 1 : 0;
    tree.left[leaf.node] = leftLeaf.node;
    tree.right[leaf.node] = rightLeaf.node;
    const bins = t.bins[split.feature]!;
    if (bins.kind === 'numeric') {
      tree.threshold[leaf.node] = bins.edges[split.binThreshold - 1]!;
    } else {
      const codes: number[] = [];
      split.leftBins!.forEach((on, b) => {
        if (on) codes.push(bins.binToCode[b]!);
      });
      tree.leftCategories[leaf.node] = codes.sort((a, b) => a - b);
    }
    leaves.splice(bestIndex, 1, leftLeaf, rightLeaf);
  }
  for (const leaf of leaves) tree.value[leaf.node] = clamp(-leaf.g / (leaf.h + p.lambda), leaf.lo, leaf.hi) * p.learningRate;
  return tree;
}

// ---------- the model ----------

/** Category code sets as bitmaps: prediction does a typed-array read instead of a hash lookup. */
type CodeSet = Uint8Array;

function toCodeSet(codes: number[]): CodeSet {
  let max = -1;
  for (const c of codes) if (c > max) max = c;
  const set = new Uint8Array(max + 1);
  for (const c of codes) if (c >= 0) set[c] = 1;
  return set;
}

function hasCode(set: CodeSet, v: number): boolean {
  return v >= 0 && v < set.length && set[v] === 1;
}

/** One tree on row i of a column-major matrix, without copying the row out (the training loop's hot path). */
function evalTreeAt(tree: Tree, sets: (CodeSet | null)[], known: (CodeSet | null)[], columns: Float64Array[], i: number): number {
  const feature = tree.feature;
  let n = 0;
  while (feature[n] !== -1) {
    const f = feature[n]!;
    const v = columns[f]![i]!;
    let left: boolean;
    const knownCodes = known[f];
    if (Number.isNaN(v) || (knownCodes && !hasCode(knownCodes, v))) left = tree.defaultLeft[n] === 1;
    else if (knownCodes) left = hasCode(sets[n]!, v);
    else left = v <= tree.threshold[n]!;
    n = left ? tree.left[n]! : tree.right[n]!;
  }
  return tree.value[n]!;
}

/** All trees in flat typed arrays (node ids offset per tree): monomorphic, cache-friendly prediction. */
type CompiledForest = {
  roots: Int32Array;
  feature: Int32Array;
  threshold: Float64Array;
  defaultLeft: Uint8Array;
  left: Int32Array;
  right: Int32Array;
  value: Float64Array;
  sets: (CodeSet | null)[];
};

function compileForest(trees: Tree[]): CompiledForest {
  const total = trees.reduce((n, t) => n + t.feature.length, 0);
  const forest: CompiledForest = {
    roots: new Int32Array(trees.length),
    feature: new Int32Array(total),
    threshold: new Float64Array(total),
    defaultLeft: new Uint8Array(total),
    left: new Int32Array(total),
    right: new Int32Array(total),
    value: new Float64Array(total),
    sets: new Array<CodeSet | null>(total).fill(null),
  };
  let offset = 0;
  trees.forEach((tree, t) => {
    forest.roots[t] = offset;
    for (let n = 0; n < tree.feature.length; n++) {
      const i = offset + n;
      forest.feature[i] = tree.feature[n]!;
      forest.threshold[i] = tree.threshold[n]!;
      forest.defaultLeft[i] = tree.defaultLeft[n]!;
      forest.left[i] = tree.left[n]! + offset;
      forest.right[i] = tree.right[n]! + offset;
      forest.value[i] = tree.value[n]!;
      const codes = tree.leftCategories[n];
      forest.sets[i] = codes ? toCodeSet(codes) : null;
    }
    offset += tree.feature.length;
  });
  return forest;
}

/** The child of split node n that value v of its feature f goes to; missing values and unseen categories take the learned side. */
function childOf(forest: CompiledForest, known: (CodeSet | null)[], n: number, f: number, v: number): number {
  const knownCodes = known[f];
  let goLeft: boolean;
  if (v !== v || (knownCodes !== null && knownCodes !== undefined && !hasCode(knownCodes, v))) goLeft = forest.defaultLeft[n] === 1;
  else if (knownCodes) goLeft = hasCode(forest.sets[n]!, v);
  else goLeft = v <= forest.threshold[n]!;
  return goLeft ? forest.left[n]! : forest.right[n]!;
}

function evalCompiled(forest: CompiledForest, t: number, known: (CodeSet | null)[], x: ArrayLike<number>): number {
  const feature = forest.feature;
  let n = forest.roots[t]!;
  for (let f = feature[n]!; f !== -1; f = feature[n]!) n = childOf(forest, known, n, f, x[f]!);
  return forest.value[n]!;
}

/** Rows per block in batch prediction: their feature values (~60 columns) stay in the L2 cache. */
const PREDICT_BLOCK = 256;

const categorySets = (tree: Tree) => tree.leftCategories.map((codes) => (codes ? toCodeSet(codes) : null));

export class GbdtModel {
  private readonly known: (CodeSet | null)[];
  private readonly forest: CompiledForest;

  constructor(readonly data: SerializedGbdt) {
    if (data.format !== 'gbdt-v1') throw new Error(`unknown model format ${String(data.format)}`);
    this.known = data.knownCategories.map((codes) => (codes ? toCodeSet(codes) : null));
    this.forest = compileForest(data.trees);
  }

  get features(): FeatureSpec[] {
    return this.data.features;
  }

  get treeCount(): number {
    return this.data.trees.length;
  }

  /** Prediction for one row given as a feature vector (NaN = missing). */
  predictRow(x: ArrayLike<number>, trees = this.data.trees.length): number {
    let sum = this.data.base;
    for (let t = 0; t < trees; t++) sum += evalCompiled(this.forest, t, this.known, x);
    return sum;
  }

  treeValue(t: number, x: ArrayLike<number>): number {
    return evalCompiled(this.forest, t, this.known, x);
  }

  /**
   * Predictions for every row. Rows go in blocks, and each tree runs over a whole block before the
   * next: a model of thousands of trees does not fit in the CPU caches, so walking every tree for
   * one row and then the next re-reads the model from memory for each row.
   */
  predict(m: FeatureMatrix): Float64Array {
    const out = new Float64Array(m.rows).fill(this.data.base);
    const { columns } = m;
    const forest = this.forest;
    const { roots, feature, value } = forest;
    const known = this.known;
    for (let start = 0; start < m.rows; start += PREDICT_BLOCK) {
      const end = Math.min(m.rows, start + PREDICT_BLOCK);
      for (let t = 0; t < roots.length; t++) {
        const root = roots[t]!;
        for (let i = start; i < end; i++) {
          let n = root;
          for (let f = feature[n]!; f !== -1; f = feature[n]!) n = childOf(forest, known, n, f, columns[f]![i]!);
          out[i] = out[i]! + value[n]!;
        }
      }
    }
    return out;
  }

  toJSON(): SerializedGbdt {
    return this.data;
  }

  static fromJSON(data: unknown): GbdtModel {
    return new GbdtModel(data as SerializedGbdt);
  }
}

function mse(pred: Float64Array, y: Float64Array, weights?: Float64Array): number {
  let s = 0;
  let n = 0;
  for (let i = 0; i < y.length; i++) {
    const w = weights ? weights[i]! : 1;
    s += w * (pred[i]! - y[i]!) ** 2;
    n += w;
  }
  return n ? s / n : 0;
}

/**
 * Fits boosted trees to `y` under squared loss (Huber with `huberDelta`). With `valid`, tracks its loss per tree and
 * keeps the trees up to the best iteration (early stopping).
 */
export function trainGbdt(
  features: FeatureSpec[],
  train: FeatureMatrix,
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
  if (features.length !== train.columns.length) throw new Error('feature specs and columns differ in length');
  if (y.length !== train.rows || train.rows === 0) throw new Error('need one target per row and at least one row');
  const bins = features.map((spec, f) =>
    spec.kind === 'numeric'
      ? numericBins(train.columns[f]!, params.maxBins)
      : categoricalBins(train.columns[f]!, params.maxCategories, params.minCategoryCount),
  );
  const binned = bins.map((b, f) => {
    const col = train.columns[f]!;
    const out = new Uint16Array(train.rows);
    for (let i = 0; i < train.rows; i++) out[i] = binOf(b, col[i]!);
    return out;
  });
  const offsets: number[] = [];
  let totalBins = 0;
  for (const b of bins) {
    offsets.push(totalBins);
    totalBins += b.count;
  }
  const monotone = Int8Array.from(features.map((spec) => (spec.kind === 'numeric' ? (spec.monotone ?? 0) : 0)));
  const trainer: Trainer = { bins, binned, offsets, totalBins, params, monotone };
  let base = 0;
  let weightSum = 0;
  for (let i = 0; i < y.length; i++) {
    const w = weights ? weights[i]! : 1;
    base += w * y[i]!;
    weightSum += w;
  }
  base /= weightSum;

  const n = train.rows;
  const pred = new Float64Array(n).fill(base);
  const grad = new Float64Array(n);
  if (weights && weights.length !== n) throw new Error('one weight per row');
  if (deltas && deltas.length !== n) throw new Error('one Huber delta per row');
  const hess = weights ? Float64Array.from(weights) : new Float64Array(n).fill(1);
  const random = seededRandom(params.seed);
  const trees: Tree[] = [];
  const report: TrainReport = { trainLoss: [], validLoss: [], bestIteration: 0, seconds: 0 };
  const knownCategories = bins.map((b) => (b.kind === 'categorical' ? b.binToCode.slice(1) : null));
  const knownSets = knownCategories.map((codes) => (codes ? toCodeSet(codes) : null));
  const validPred = valid ? new Float64Array(valid.y.length).fill(base) : undefined;
  let bestLoss = Infinity;
  let sinceBest = 0;
  const delta = params.huberDelta ?? Infinity;

  for (let t = 0; t < params.trees; t++) {
    for (let i = 0; i < n; i++) {
      const r = pred[i]! - y[i]!;
      const d = deltas ? deltas[i]! : delta;
      grad[i] = (r > d ? d : r < -d ? -d : r) * hess[i]!;
    }
    const sampled: number[] = [];
    for (let i = 0; i < n; i++) if (params.subsample >= 1 || random() < params.subsample) sampled.push(i);
    const featureSet: number[] = [];
    for (let f = 0; f < features.length; f++) if (params.colsample >= 1 || random() < params.colsample) featureSet.push(f);
    if (featureSet.length === 0) featureSet.push(Math.floor(random() * features.length));
    const tree = growTree(trainer, Int32Array.from(sampled), grad, hess, featureSet);
    trees.push(tree);
    const sets = categorySets(tree);
    for (let i = 0; i < n; i++) pred[i] = pred[i]! + evalTreeAt(tree, sets, knownSets, train.columns, i);
    report.trainLoss.push(mse(pred, y));
    if (valid && validPred) {
      for (let i = 0; i < valid.y.length; i++) validPred[i] = validPred[i]! + evalTreeAt(tree, sets, knownSets, valid.x.columns, i);
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
