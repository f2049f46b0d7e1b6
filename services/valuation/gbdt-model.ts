/**
 * A trained boosted model: its trees compiled into flat typed arrays for prediction, and its
 * serialised form (`gbdt-v1`, JSON). Prediction reads raw feature values (NaN = missing), so a
 * model predicts identically after loading, without the bins it was trained with.
 */
import type { FeatureMatrix, FeatureSpec, SerializedGbdt, Tree } from './gbdt-types.js';

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
