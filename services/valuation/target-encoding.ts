/**
 * Target encoding: for the model, the family and Fast Iron's ModelID, the smoothed mean log
 * price of their past sales, as numeric features. Trees find "this model sells high" from one
 * number instead of carving hundreds of categories. Training rows get out-of-fold values (five
 * folds) so a row never sees its own price.
 */
import { normaliseModel, type TrainingSale, type ValuationInput } from './features.js';
import { type FeatureSpec } from './gbdt.js';
import { seededRandom } from '../shared/seeded-random.js';

type Table = Record<string, [sum: number, count: number]>;

export type TargetEncoding = {
  smoothing: number;
  /** Mean log price per equipment type, the value a rare key is pulled towards. */
  prior: Record<string, number>;
  globalMean: number;
  tables: Record<string, Table>;
};

const KEYS: Record<string, (r: ValuationInput) => string | null> = {
  te_model: (r) => {
    const m = normaliseModel(r.model);
    return m ? `${r.categoryId}|${m}` : null;
  },
  te_family: (r) => {
    const m = normaliseModel(r.modelFamily);
    return m ? `${r.categoryId}|${m}` : null;
  },
  te_model_id: (r) => {
    const id = r.attributes.ModelID;
    return id === null || id === undefined || id === '' ? null : `${r.categoryId}|${id}`;
  },
};

const YEAR_MS = 365.25 * 24 * 3600 * 1000;
const text = (v: unknown) => (v === null || v === undefined || v === '' ? '' : String(v).trim().toUpperCase());

/**
 * Later additions, placed after the count column so models stored before them keep their
 * column positions (their tables lack these keys, so the columns read as missing).
 */
const LATER_KEYS: Record<string, (r: ValuationInput) => string | null> = {
  // how a model holds its value: its sales grouped by age at sale (4-year steps)
  te_model_age: (r) => {
    const m = normaliseModel(r.model);
    if (!m || r.year === null) return null;
    const age = (r.soldAt.getTime() / YEAR_MS + 1970 - r.year) / 4;
    return `${r.categoryId}|${m}|${Math.max(0, Math.floor(age))}`;
  },
  te_family_age: (r) => {
    const m = normaliseModel(r.modelFamily);
    if (!m || r.year === null) return null;
    const age = (r.soldAt.getTime() / YEAR_MS + 1970 - r.year) / 4;
    return `${r.categoryId}|${m}|${Math.max(0, Math.floor(age))}`;
  },
  // fiModelDesc's parts: the family with its secondary designation (e.g. 950 + F), and the size class
  te_family_secondary: (r) => {
    const m = normaliseModel(r.modelFamily);
    const secondary = text(r.attributes.fiSecondaryDesc);
    return m && secondary ? `${r.categoryId}|${m}|${secondary}` : null;
  },
  te_class: (r) => {
    const c = text(r.attributes.fiProductClassDesc);
    return c ? `${r.categoryId}|${c}` : null;
  },
};

const ALL_KEYS = { ...KEYS, ...LATER_KEYS };

export const TARGET_FEATURE_SPECS: FeatureSpec[] = [
  ...Object.keys(KEYS).map((name) => ({ name, kind: 'numeric' as const })),
  { name: 'te_model_count', kind: 'numeric' },
  ...Object.keys(LATER_KEYS).map((name) => ({ name, kind: 'numeric' as const })),
];

const FOLDS = 5;

function addTo(table: Table, key: string, value: number) {
  const entry = table[key];
  if (entry) {
    entry[0] += value;
    entry[1] += 1;
  } else table[key] = [value, 1];
}

export function fitTargetEncoding(rows: TrainingSale[], smoothing = 5): TargetEncoding {
  const tables: Record<string, Table> = {};
  const categorySums: Table = {};
  let total = 0;
  for (const r of rows) {
    const y = Math.log1p(r.price);
    total += y;
    addTo(categorySums, String(r.categoryId), y);
    for (const [name, key] of Object.entries(ALL_KEYS)) {
      const k = key(r);
      if (k) addTo((tables[name] ??= {}), k, y);
    }
  }
  const prior = Object.fromEntries(Object.entries(categorySums).map(([c, [s, n]]) => [c, s / n]));
  return { smoothing, prior, globalMean: rows.length ? total / rows.length : 0, tables };
}

/**
 * The target-encoded columns for `rows`. With `outOfFold` (training rows, in the same order as
 * fitted), each row's own fold is left out of its statistics.
 */
export function targetColumns(rows: ValuationInput[], te: TargetEncoding, outOfFold?: TrainingSale[]): Float64Array[] {
  const names = Object.keys(ALL_KEYS);
  const columns = names.map(() => new Float64Array(rows.length));
  const countColumn = new Float64Array(rows.length);
  // per-fold tables, subtracted from the totals for out-of-fold values
  let foldOf: Int32Array | undefined;
  let foldTables: Record<string, Table>[] | undefined;
  if (outOfFold) {
    const random = seededRandom(99);
    foldOf = Int32Array.from(outOfFold.map(() => Math.floor(random() * FOLDS)));
    foldTables = Array.from({ length: FOLDS }, () => ({}));
    outOfFold.forEach((r, i) => {
      const y = Math.log1p(r.price);
      for (const name of names) {
        const k = ALL_KEYS[name]!(r);
        if (k) addTo((foldTables![foldOf![i]!]![name] ??= {}), k, y);
      }
    });
  }
  rows.forEach((r, i) => {
    const prior = te.prior[String(r.categoryId)] ?? te.globalMean;
    names.forEach((name, c) => {
      const k = ALL_KEYS[name]!(r);
      let [sum, count] = (k && te.tables[name]?.[k]) || [0, 0];
      if (k && foldTables && foldOf) {
        const own = foldTables[foldOf[i]!]![name]?.[k];
        if (own) {
          sum -= own[0];
          count -= own[1];
        }
      }
      columns[c]![i] = count > 0 ? (sum + te.smoothing * prior) / (count + te.smoothing) : NaN;
      if (c === 0) countColumn[i] = count;
    });
  });
  const early = Object.keys(KEYS).length;
  return [...columns.slice(0, early), countColumn, ...columns.slice(early)];
}
