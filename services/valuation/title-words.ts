/**
 * Title words as numbers for the trees: for each word of a lot's title, the smoothed mean log
 * price (in today's dollars) of the training lots of the same type whose title has it; a lot's
 * features are the mean, lowest and highest of its words' values. Online lots say what they are
 * in their titles ("53' Dry Van Trailer", "Restroom Trailer", "Mini Excavator (Unused)"), and a
 * handful of words separate a $1,500 trailer from a $9,000 one. Training rows get out-of-fold
 * values (five folds) so a row never sees its own price. Years are not words here (the year
 * feature carries them), so the title cannot make a newer machine worth less.
 */
import type { FeatureSpec } from './gbdt.js';
import type { TrainingSale, ValuationInput } from './features.js';
import { seededRandom } from '../shared/seeded-random.js';

export type TitleWords = {
  smoothing: number;
  /** Mean log price per type: what a rare word is pulled towards. */
  prior: Record<string, number>;
  globalMean: number;
  /** `type|word` → [sum of log prices, count]; words seen at least MIN_COUNT times. */
  table: Record<string, [number, number]>;
};

export const TITLE_WORD_SPECS: FeatureSpec[] = [
  { name: 'title_words_mean', kind: 'numeric' },
  { name: 'title_words_min', kind: 'numeric' },
  { name: 'title_words_max', kind: 'numeric' },
];

const MIN_COUNT = 2;
const FOLDS = 5;
const MAX_WORDS = 24;
const STOP = new Set(['and', 'with', 'the', 'for', 'of', 'in', 'a', 'w', 'to', 'lot', 'ca', 'california', 'nevada', 'located']);

/** The distinct words of a title: lower case, letters and digits, no years, no stop words. */
export function titleWords(title: string | null | undefined): string[] {
  if (!title) return [];
  const words = title
    .toLowerCase()
    .replace(/[’']/g, "'")
    .split(/[^a-z0-9']+/)
    .map((w) => w.replace(/'/g, ''))
    .filter((w) => w.length >= 2 && !STOP.has(w) && !/^(19|20)\d\d$/.test(w) && !/^\d{5,}$/.test(w));
  return [...new Set(words)].slice(0, MAX_WORDS);
}

const keyOf = (r: ValuationInput, word: string) => `${r.categoryId}|${word}`;

export function fitTitleWords(rows: TrainingSale[], smoothing = 3): TitleWords {
  const table: Record<string, [number, number]> = {};
  const typeSums: Record<string, [number, number]> = {};
  let total = 0;
  for (const r of rows) {
    const y = Math.log1p(r.price);
    total += y;
    const t = (typeSums[String(r.categoryId)] ??= [0, 0]);
    t[0] += y;
    t[1] += 1;
    for (const w of titleWords(r.title)) {
      const e = (table[keyOf(r, w)] ??= [0, 0]);
      e[0] += y;
      e[1] += 1;
    }
  }
  for (const [k, [, n]] of Object.entries(table)) if (n < MIN_COUNT) delete table[k];
  return {
    smoothing,
    prior: Object.fromEntries(Object.entries(typeSums).map(([c, [s, n]]) => [c, s / n])),
    globalMean: rows.length ? total / rows.length : 0,
    table,
  };
}

/** The title-word columns for `rows`; with `outOfFold` (the training rows, as fitted) each row's own fold is left out. */
export function titleWordColumns(rows: ValuationInput[], tw: TitleWords | undefined, outOfFold?: TrainingSale[]): Float64Array[] {
  const columns = TITLE_WORD_SPECS.map(() => new Float64Array(rows.length).fill(NaN));
  if (!tw) return columns;
  let foldOf: Int32Array | undefined;
  let foldTables: Map<string, [number, number]>[] | undefined;
  if (outOfFold) {
    const random = seededRandom(77);
    foldOf = Int32Array.from(outOfFold.map(() => Math.floor(random() * FOLDS)));
    foldTables = Array.from({ length: FOLDS }, () => new Map());
    outOfFold.forEach((r, i) => {
      const y = Math.log1p(r.price);
      const fold = foldTables![foldOf![i]!]!;
      for (const w of titleWords(r.title)) {
        const k = keyOf(r, w);
        if (!tw.table[k]) continue;
        const e = fold.get(k) ?? [0, 0];
        e[0] += y;
        e[1] += 1;
        fold.set(k, e);
      }
    });
  }
  rows.forEach((r, i) => {
    const prior = tw.prior[String(r.categoryId)] ?? tw.globalMean;
    const values: number[] = [];
    for (const w of titleWords(r.title)) {
      const k = keyOf(r, w);
      const entry = tw.table[k];
      if (!entry) continue;
      let [sum, count] = entry;
      const own = foldTables && foldOf ? foldTables[foldOf[i]!]!.get(k) : undefined;
      if (own) {
        sum -= own[0];
        count -= own[1];
      }
      if (count > 0) values.push((sum + tw.smoothing * prior) / (count + tw.smoothing));
    }
    if (values.length === 0) return;
    columns[0]![i] = values.reduce((a, b) => a + b, 0) / values.length;
    columns[1]![i] = Math.min(...values);
    columns[2]![i] = Math.max(...values);
  });
  return columns;
}
