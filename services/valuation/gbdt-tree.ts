/**
 * Growing one boosted tree on binned features, leaf-wise (the leaf whose best split gains most is
 * split next) under a leaf cap and a depth cap. The work is histograms: per leaf and feature, the
 * gradient, hessian and row count of each bin. Only the smaller child of a split is built from its
 * rows; the larger one is its parent's histogram minus the smaller's. The sampled rows sit in one
 * Int32Array, each leaf a contiguous range of it, and a leaf's gradients are gathered once into a
 * contiguous buffer before its features are counted. Histograms come from a pool: a tree allocates
 * nothing per row and (after the first tree) nothing per leaf.
 */
import type { BinnedColumn, FeatureBins } from './gbdt-bins.js';
import type { GbdtParams, Tree } from './gbdt-types.js';

export type Trainer = {
  bins: FeatureBins[];
  binned: BinnedColumn[];
  /** Histogram offset per feature (in bins). */
  offsets: Int32Array;
  totalBins: number;
  params: GbdtParams;
  /** Per feature: its monotone sign, 0 when free. */
  monotone: Int8Array;
  /** Every row's hessian is 1 (squared or Huber loss, unweighted): a bin's hessian is its count. */
  unitHessian: boolean;
};

/** Memory the trees of one training share (sized for every row). */
export type Workspace = {
  /** The sampled rows, partitioned so each leaf's rows are one range. */
  rows: Int32Array;
  scratch: Int32Array;
  orderedG: Float64Array;
  orderedH: Float64Array;
  pool: Float64Array[];
};

export function newWorkspace(rows: number): Workspace {
  return { rows: new Int32Array(rows), scratch: new Int32Array(rows), orderedG: new Float64Array(rows), orderedH: new Float64Array(rows), pool: [] };
}

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

/**
 * A grown tree in bin space (what training predicts its own rows with): node i splits on
 * `feature[i]` (−1 for a leaf), bins 1..binThreshold[i] or the mask `leftBins[i]` go left, bin 0
 * (missing) goes left when `defaultLeft[i]`.
 */
export type BinnedTree = {
  feature: Int32Array;
  binThreshold: Int32Array;
  leftBins: (Uint8Array | null)[];
  defaultLeft: Uint8Array;
  left: Int32Array;
  right: Int32Array;
  value: Float64Array;
};

/** The tree, the same tree in bin space, and each leaf's range of `workspace.rows` (start, end, node triples). */
export type GrownTree = { tree: Tree; binned: BinnedTree; leafRanges: Int32Array };

function takeHistogram(t: Trainer, ws: Workspace): Float64Array {
  return ws.pool.pop() ?? new Float64Array(t.totalBins * 3);
}

/** The histogram of rows[start, end) over `features` (other features' slots are left as they were). */
function buildHistogram(t: Trainer, ws: Workspace, hist: Float64Array, start: number, end: number, grad: Float64Array, hess: Float64Array, features: number[]): void {
  const { rows, orderedG, orderedH } = ws;
  const n = end - start;
  const unit = t.unitHessian;
  for (let k = 0; k < n; k++) {
    const i = rows[start + k]!;
    orderedG[k] = grad[i]!;
    if (!unit) orderedH[k] = hess[i]!;
  }
  for (const f of features) hist.fill(0, t.offsets[f]! * 3, (t.offsets[f]! + t.bins[f]!.count) * 3);
  // two features per pass over the rows: each row's index and gradient read once for both
  let q = 0;
  for (; q + 1 < features.length; q += 2) {
    const colA = t.binned[features[q]!]!;
    const colB = t.binned[features[q + 1]!]!;
    const baseA = t.offsets[features[q]!]! * 3;
    const baseB = t.offsets[features[q + 1]!]! * 3;
    for (let k = 0; k < n; k++) {
      const i = rows[start + k]!;
      const g = orderedG[k]!;
      const h = unit ? 1 : orderedH[k]!;
      const oa = baseA + colA[i]! * 3;
      hist[oa] = hist[oa]! + g;
      hist[oa + 1] = hist[oa + 1]! + h;
      hist[oa + 2] = hist[oa + 2]! + 1;
      const ob = baseB + colB[i]! * 3;
      hist[ob] = hist[ob]! + g;
      hist[ob + 1] = hist[ob + 1]! + h;
      hist[ob + 2] = hist[ob + 2]! + 1;
    }
  }
  for (; q < features.length; q++) {
    const col = t.binned[features[q]!]!;
    const base = t.offsets[features[q]!]! * 3;
    for (let k = 0; k < n; k++) {
      const o = base + col[rows[start + k]!]! * 3;
      hist[o] = hist[o]! + orderedG[k]!;
      hist[o + 1] = hist[o + 1]! + (unit ? 1 : orderedH[k]!);
      hist[o + 2] = hist[o + 2]! + 1;
    }
  }
}

function leafScore(g: number, h: number, lambda: number): number {
  return (g * g) / (h + lambda);
}

const clamp = (v: number, lo: number, hi: number) => (v < lo ? lo : v > hi ? hi : v);

/** The loss reduction of a leaf whose output is held at w (the optimum when w = −g/(h+λ)). */
function boundedLeafScore(g: number, h: number, lambda: number, w: number): number {
  return -(2 * g * w + (h + lambda) * w * w);
}

/** Reused by every categorical feature's split search: the order its bins are cut in, and their gradient ratios. */
let categoryOrder: number[] = [];
let categoryRatio = new Float64Array(256);

function findBestSplit(t: Trainer, leaf: Leaf, features: number[]): Split | null {
  const p = t.params;
  const count = leaf.end - leaf.start;
  if (leaf.depth >= p.maxDepth || count < 2 * p.minDataInLeaf) return null;
  const bounded = leaf.lo !== -Infinity || leaf.hi !== Infinity;
  const parentScore = bounded
    ? boundedLeafScore(leaf.g, leaf.h, p.lambda, clamp(-leaf.g / (leaf.h + p.lambda), leaf.lo, leaf.hi))
    : leafScore(leaf.g, leaf.h, p.lambda);
  const { lambda, minDataInLeaf: minData, minGain } = p;
  const { lo, hi } = leaf;
  const leafG = leaf.g;
  const leafH = leaf.h;
  // the best split so far, as scalars (an object only for the winner)
  let bestGain = -Infinity;
  let bestFeature = -1;
  let bestBin = 0;
  let bestK = 0;
  let bestMissingLeft = false;
  let bestLG = 0;
  let bestLH = 0;
  let bestLC = 0;
  let bestLeftOutput = 0;
  let bestRightOutput = 0;
  let bestOrder: number[] | null = null;
  const hist = leaf.hist;
  for (const f of features) {
    const bins = t.bins[f]!;
    const base = t.offsets[f]! * 3;
    const mg = hist[base]!;
    const mh = hist[base + 1]!;
    const mc = hist[base + 2]!;
    const sign = t.monotone[f]!;
    const categorical = bins.kind === 'categorical';
    // the order in which bins are cut: natural for numbers, by gradient ratio for categories
    let steps = bins.count - 1;
    if (categorical) {
      const order = categoryOrder;
      order.length = 0;
      if (categoryRatio.length < bins.count) categoryRatio = new Float64Array(bins.count * 2);
      const ratio = categoryRatio;
      for (let b = 1; b < bins.count; b++) {
        const o = base + b * 3;
        if (hist[o + 2]! > 0) {
          order.push(b);
          ratio[b] = hist[o]! / (hist[o + 1]! + p.catSmooth);
        }
      }
      order.sort((a, b) => ratio[a]! - ratio[b]!);
      steps = order.length;
    }
    const sides = mc > 0 ? 2 : 1;
    const constrained = bounded || sign !== 0;
    let ag = 0;
    let ah = 0;
    let ac = 0;
    for (let k = 0; k + 1 < steps; k++) {
      const b = categorical ? categoryOrder[k]! : k + 1;
      const o = base + b * 3;
      const bg = hist[o]!;
      const bh = hist[o + 1]!;
      const bc = hist[o + 2]!;
      // an empty bin cuts where the bin before it did: the same candidates, already weighed
      if (bg === 0 && bh === 0 && bc === 0 && k > 0) continue;
      ag += bg;
      ah += bh;
      ac += bc;
      if (ac === 0) continue;
      for (let side = 0; side < sides; side++) {
        const missingLeft = side === 1;
        const lg = ag + (missingLeft ? mg : 0);
        const lh = ah + (missingLeft ? mh : 0);
        const lc = ac + (missingLeft ? mc : 0);
        const rc = count - lc;
        if (lc < minData || rc < minData) continue;
        const rg = leafG - lg;
        const rh = leafH - lh;
        let leftOutput = -lg / (lh + lambda);
        let rightOutput = -rg / (rh + lambda);
        let gain: number;
        if (constrained) {
          leftOutput = clamp(leftOutput, lo, hi);
          rightOutput = clamp(rightOutput, lo, hi);
          // lower values go left: the right child must not sit below the left for +1, nor above for −1
          if (sign !== 0 && sign * (rightOutput - leftOutput) < 0) continue;
          gain = boundedLeafScore(lg, lh, lambda, leftOutput) + boundedLeafScore(rg, rh, lambda, rightOutput) - parentScore;
        } else {
          gain = leafScore(lg, lh, lambda) + leafScore(rg, rh, lambda) - parentScore;
        }
        if (gain > minGain && (bestFeature < 0 || gain > bestGain)) {
          bestGain = gain;
          bestFeature = f;
          bestBin = b;
          bestK = k;
          bestMissingLeft = missingLeft;
          bestLG = lg;
          bestLH = lh;
          bestLC = lc;
          bestLeftOutput = leftOutput;
          bestRightOutput = rightOutput;
          bestOrder = categorical ? categoryOrder : null;
        }
      }
    }
    // the winning cut of a categorical feature: its left bins before the order is reused
    if (bestFeature === f && bestOrder === categoryOrder) bestOrder = categoryOrder.slice(0, bestK + 1);
  }
  if (bestFeature < 0) return null;
  let leftBins: Uint8Array | null = null;
  if (bestOrder) {
    leftBins = new Uint8Array(t.bins[bestFeature]!.count);
    for (const b of bestOrder) leftBins[b] = 1;
  }
  return {
    gain: bestGain,
    feature: bestFeature,
    binThreshold: bestBin,
    leftBins,
    defaultLeft: bestMissingLeft,
    leftG: bestLG,
    leftH: bestLH,
    leftCount: bestLC,
    leftOutput: bestLeftOutput,
    rightOutput: bestRightOutput,
  };
}

/** Moves the leaf's rows that the split sends left to the front of its range; returns where the right ones start. */
function partition(t: Trainer, ws: Workspace, leaf: Leaf, split: Split): number {
  const { rows, scratch } = ws;
  const col = t.binned[split.feature]!;
  const mask = split.leftBins;
  const threshold = split.binThreshold;
  const missingLeft = split.defaultLeft;
  let l = leaf.start;
  let r = 0;
  for (let k = leaf.start; k < leaf.end; k++) {
    const i = rows[k]!;
    const bin = col[i]!;
    const left = bin === 0 ? missingLeft : mask ? mask[bin] === 1 : bin <= threshold;
    if (left) rows[l++] = i;
    else scratch[r++] = i;
  }
  rows.set(scratch.subarray(0, r), l);
  return l;
}

/**
 * Grows a tree on the first `sampled` rows of `ws.rows` (row indexes, ascending), with `features`
 * the ones this tree may split on.
 */
export function growTree(t: Trainer, ws: Workspace, sampled: number, grad: Float64Array, hess: Float64Array, features: number[]): GrownTree {
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
  const rows = ws.rows;
  let g = 0;
  let h = 0;
  for (let k = 0; k < sampled; k++) {
    const i = rows[k]!;
    g += grad[i]!;
    h += hess[i]!;
  }
  const rootHist = takeHistogram(t, ws);
  buildHistogram(t, ws, rootHist, 0, sampled, grad, hess, features);
  const root: Leaf = { node: addNode(), start: 0, end: sampled, depth: 0, g, h, hist: rootHist, split: null, lo: -Infinity, hi: Infinity };
  root.split = findBestSplit(t, root, features);
  const leaves: Leaf[] = [root];
  while (leaves.length < p.maxLeaves) {
    let bestIndex = -1;
    for (let k = 0; k < leaves.length; k++) {
      const s = leaves[k]!.split;
      if (s && (bestIndex < 0 || s.gain > leaves[bestIndex]!.split!.gain)) bestIndex = k;
    }
    if (bestIndex < 0) break;
    const leaf = leaves[bestIndex]!;
    const split = leaf.split!;
    const mid = partition(t, ws, leaf, split);
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
    small.hist = takeHistogram(t, ws);
    buildHistogram(t, ws, small.hist, small.start, small.end, grad, hess, features);
    // the sibling's histogram: the parent's minus the small child's, over the features in play
    const parentHist = leaf.hist;
    for (const f of features) {
      const from = t.offsets[f]! * 3;
      const to = from + t.bins[f]!.count * 3;
      for (let k = from; k < to; k++) parentHist[k] = parentHist[k]! - small.hist[k]!;
    }
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
  const leafRanges = new Int32Array(leaves.length * 3);
  leaves.forEach((leaf, k) => {
    tree.value[leaf.node] = clamp(-leaf.g / (leaf.h + p.lambda), leaf.lo, leaf.hi) * p.learningRate;
    leafRanges[k * 3] = leaf.start;
    leafRanges[k * 3 + 1] = leaf.end;
    leafRanges[k * 3 + 2] = leaf.node;
    ws.pool.push(leaf.hist);
  });
  return { tree, binned: binnedTree(tree, splits), leafRanges };
}

function binnedTree(tree: Tree, splits: (Split | null)[]): BinnedTree {
  const nodes = tree.feature.length;
  const out: BinnedTree = {
    feature: Int32Array.from(tree.feature),
    binThreshold: new Int32Array(nodes),
    leftBins: new Array<Uint8Array | null>(nodes).fill(null),
    defaultLeft: Uint8Array.from(tree.defaultLeft),
    left: Int32Array.from(tree.left),
    right: Int32Array.from(tree.right),
    value: Float64Array.from(tree.value),
  };
  splits.forEach((s, n) => {
    if (!s) return;
    out.binThreshold[n] = s.binThreshold;
    out.leftBins[n] = s.leftBins;
  });
  return out;
}

/** The tree's value for row i of binned columns: the same leaf as the raw values reach (bins keep their order). */
export function binnedTreeValue(tree: BinnedTree, binned: BinnedColumn[], i: number): number {
  const feature = tree.feature;
  let n = 0;
  for (let f = feature[0]!; f !== -1; f = feature[n]!) {
    const bin = binned[f]![i]!;
    let left: boolean;
    if (bin === 0) left = tree.defaultLeft[n] === 1;
    else {
      const mask = tree.leftBins[n];
      left = mask ? mask[bin] === 1 : bin <= tree.binThreshold[n]!;
    }
    n = left ? tree.left[n]! : tree.right[n]!;
  }
  return tree.value[n]!;
}
