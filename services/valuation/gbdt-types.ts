/**
 * The gradient-boosted trees' shapes: feature specs, the column-major matrix they read, the
 * training parameters and the serialised model (format `gbdt-v1`, which stored models keep).
 * Shared by the binning, tree growth, training and prediction modules (gbdt.ts re-exports them).
 */
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
