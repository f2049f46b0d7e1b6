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
import { cosineIndex, nearestByCosine, type CosineIndex } from './cosine-nearest.js';

export type TitleWords = {
  smoothing: number;
  /** Mean log price per type: what a rare word is pulled towards. */
  prior: Record<string, number>;
  globalMean: number;
  /** `type|word` → [sum of log prices, count]; words seen at least MIN_COUNT times. */
  table: Record<string, [number, number]>;
  /** The titled lots of sources other than Fast Iron, for the nearest-title price (absent in older models). */
  neighbours?: Neighbours;
};

/**
 * Lots of online auctions, by title: an idf weight per word and each lot's type, words (indexes into
 * `words`) and log price. A lot's nearest titles of its type say more than its words' averages: three
 * "3-Stall Stainless Steel Restroom Trailer" lots sell near each other, while "steel" and "trailer"
 * alone cover $50 pipe trailers and $17,000 carton trailers.
 */
export type Neighbours = { words: string[]; idf: number[]; lots: { type: string; words: number[]; logPrice: number }[] };

export const TITLE_WORD_SPECS: FeatureSpec[] = [
  { name: 'title_words_mean', kind: 'numeric' },
  { name: 'title_words_min', kind: 'numeric' },
  { name: 'title_words_max', kind: 'numeric' },
  // the similarity-weighted mean log price of the nearest titles, and how near the nearest is
  { name: 'title_nearest_price', kind: 'numeric' },
  { name: 'title_nearest_similarity', kind: 'numeric' },
];

const NEIGHBOURS = 5;
/** Below this cosine a lot shares too little of a title (one common word) to say what it is worth. */
const MIN_SIMILARITY = 0.25;
const NEAR_SHARE = 0.75;

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

function fitNeighbours(rows: TrainingSale[]): Neighbours {
  const titled = rows.filter((r) => isOnlineLot(r) && titleWords(r.title).length > 0);
  const df = new Map<string, number>();
  for (const r of titled) for (const w of titleWords(r.title)) df.set(w, (df.get(w) ?? 0) + 1);
  const words = [...df.keys()].sort();
  const index = new Map(words.map((w, i) => [w, i]));
  return {
    words,
    idf: words.map((w) => Math.log((1 + titled.length) / (1 + df.get(w)!)) + 1),
    lots: titled.map((r) => ({ type: String(r.categoryId), words: titleWords(r.title).map((w) => index.get(w)!), logPrice: Math.log1p(r.price) })),
  };
}

/** Fast Iron's titles are made from its model columns (the target encodings carry those); online lots' are the seller's words. */
function isOnlineLot(r: ValuationInput): boolean {
  return typeof r.attributes.source === 'string' && r.attributes.source !== '' && r.attributes.source !== 'fastiron';
}

type NeighbourIndex = { index: CosineIndex; wordIndex: Map<string, number> };
const neighbourIndexes = new WeakMap<Neighbours, NeighbourIndex>();

function neighbourIndex(n: Neighbours): NeighbourIndex {
  let found = neighbourIndexes.get(n);
  if (!found) neighbourIndexes.set(n, (found = { index: cosineIndex(n.lots, n.idf), wordIndex: new Map(n.words.map((w, i) => [w, i])) }));
  return found;
}

/**
 * [similarity-weighted mean log price of the nearest lots of the same type, top similarity], or
 * NaNs; `skip(i)` leaves lot i out. The nearest are found rarest word first (cosine-nearest.ts):
 * a type's ten thousand lots that share "excavator" are not all scored.
 */
function nearestPrice(n: Neighbours, r: ValuationInput, skip?: (i: number) => boolean): [number, number] {
  const { index, wordIndex } = neighbourIndex(n);
  const words: number[] = [];
  const weights: number[] = [];
  let sq = 0;
  for (const w of titleWords(r.title)) {
    const wi = wordIndex.get(w);
    if (wi === undefined) continue;
    const idf = n.idf[wi]!;
    sq += idf * idf;
    words.push(wi);
    weights.push(idf * idf);
  }
  if (sq === 0) return [NaN, NaN];
  const best = nearestByCosine(index, String(r.categoryId), words, weights, Math.sqrt(sq), NEIGHBOURS, MIN_SIMILARITY, skip);
  if (best.length === 0) return [NaN, NaN];
  // only the lots nearly as near as the nearest: two shared common words must not outvote the lots that share the whole title
  const cutoff = best[0]![1] * NEAR_SHARE;
  while (best.length > 1 && best[best.length - 1]![1] < cutoff) best.pop();
  let sum = 0;
  let weight = 0;
  for (const [lot, sim] of best) {
    sum += sim * n.lots[lot]!.logPrice;
    weight += sim;
  }
  return [sum / weight, best[0]![1]];
}

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
    neighbours: fitNeighbours(rows),
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
  // training rows: each neighbour lot carries the fold of the training row it came from (same filter, same order)
  const neighbours = tw.neighbours;
  let neighbourFold: Int32Array | undefined;
  if (neighbours && outOfFold && foldOf) {
    const folds: number[] = [];
    outOfFold.forEach((r, i) => {
      if (isOnlineLot(r) && titleWords(r.title).length > 0) folds.push(foldOf![i]!);
    });
    if (folds.length !== neighbours.lots.length) throw new Error('out-of-fold title neighbours need the rows they were fitted on');
    neighbourFold = Int32Array.from(folds);
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
    if (neighbours) {
      const fold = foldOf && neighbourFold ? foldOf[i]! : -1;
      const [price, similarity] = nearestPrice(neighbours, r, fold >= 0 ? (lot) => neighbourFold![lot] === fold : undefined);
      columns[3]![i] = price;
      columns[4]![i] = similarity;
    }
    if (values.length === 0) return;
    columns[0]![i] = values.reduce((a, b) => a + b, 0) / values.length;
    columns[1]![i] = Math.min(...values);
    columns[2]![i] = Math.max(...values);
  });
  return columns;
}
