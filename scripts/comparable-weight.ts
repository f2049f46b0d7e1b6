/**
 * `npm run model:comparable-weight -- --load-model <file> <model:eval data flags, or --protocol west|rbauction …> [--json]`
 *
 * Chooses how much a comparable counts against the trees (`COMPARABLE_WEIGHT` in
 * services/valuation/score-listing.ts) on a training-period fold, without re-training or
 * re-scoring per weight: a model saved by `npm run model:eval -- … --save-model <file>` on the same
 * data flags values each test sale as the scorer does (as a closed listing on the day it sold,
 * comparables from the training sales), keeping the two pieces the fair value is averaged from;
 * each candidate weight then gives the fair value and its range by the same average
 * (`comparablesShare`, `restOnComparables`). Prints RMSLE and range coverage per weight, for the
 * sources the model has measured (`measuredSite`) and those it has not (`otherSite`), per type,
 * and on West lots the blend towards the type's median price. Run it on the folds; the test period
 * is reported afterwards with the chosen weight, never chosen on.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from './cli/command.js';
import { dateFlag, loadSales, rbProtocolSales, westProtocolSales } from './cli/model-eval-command.js';
import { ComparablePool } from '../services/scorer/comparable-pool.js';
import { offerListing, saleAsSoldResult } from '../services/scorer/deal-flags.js';
import { closestCandidates } from '../services/scorer/score-batch.js';
import { CATEGORIES } from '../services/shared/categories.js';
import type { ComparableCandidate } from '../services/valuation/comparables.js';
import { FairValueModel, saleSource } from '../services/valuation/fair-value-model.js';
import type { TrainingSale } from '../services/valuation/features.js';
import { comparablesShare, restOnComparables, valuationEvidence, type ListingToScore, type ValuationEvidence } from '../services/valuation/score-listing.js';

const DAY_MS = 24 * 3600 * 1000;
const { flags } = parseArgs(process.argv.slice(2));
const str = (name: string) => (typeof flags[name] === 'string' ? (flags[name] as string) : undefined);

async function sales(): Promise<{ train: TrainingSale[]; test: TrainingSale[] }> {
  if (flags.protocol === 'west') return westProtocolSales(flags);
  if (flags.protocol === 'rbauction') return rbProtocolSales(flags);
  const trainBefore = dateFlag(flags, 'train-before');
  const testFrom = dateFlag(flags, 'test-from');
  const testBefore = dateFlag(flags, 'test-before');
  const train = await loadSales((str('train') ?? '').split(',').filter(Boolean), str('train-prices'), (d) => !trainBefore || d < trainBefore);
  const test = await loadSales([str('test') ?? ''], str('test-prices'), (d) => (!testFrom || d >= testFrom) && (!testBefore || d < testBefore));
  return { train: train.sales, test: test.sales };
}

/** Each test sale's evidence as the scorer gathers it: a closed listing at its price, on the day it sold. */
function evidence(model: FairValueModel, train: TrainingSale[], test: TrainingSale[]): (ValuationEvidence | null)[] {
  const pool = new ComparablePool(train.map((s, i) => saleAsSoldResult(s, i + 1)));
  const byDay = new Map<number, number[]>();
  test.forEach((s, i) => {
    const day = Math.floor(s.soldAt.getTime() / DAY_MS);
    const list = byDay.get(day);
    if (list) list.push(i);
    else byDay.set(day, [i]);
  });
  const out: (ValuationEvidence | null)[] = new Array(test.length).fill(null);
  for (const [day, indices] of byDay) {
    const now = new Date((day + 1) * DAY_MS);
    const listings = indices.map((i) => offerListing(test[i]!, i + 1, 1, now));
    const candidatesFor = (l: ListingToScore): ComparableCandidate[] => closestCandidates(l, pool.candidatesFor(l), now);
    valuationEvidence(listings, model, candidatesFor, now).forEach((e, j) => (out[indices[j]!] = e));
  }
  return out;
}

const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[s.length >> 1]! : (s[(s.length >> 1) - 1]! + s[s.length >> 1]!) / 2;
};

type Row = { sale: TrainingSale; e: ValuationEvidence; typeMedianLog: number; shift?: number };

/** RMSLE, range coverage and per-type median log error with comparables counting `weight(row)` each, blended `towardsMedian` of the way to the type's median. */
function figures(rows: Row[], weight: (r: Row) => number, towardsMedian = 0, sharpness = 1) {
  let se = 0;
  let inside = 0;
  const errors = new Map<string, number[]>();
  for (const r of rows) {
    // sharpness p: each comparable counts likeness^p (1: as the scorer counts)
    const ranked = sharpness === 1 ? r.e.ranked : r.e.ranked.map((c) => ({ machineDistance: c.machineDistance * sharpness }));
    const v = restOnComparables(r.e.tree, r.e.comparablesLog, comparablesShare(ranked, weight(r)));
    const log = (1 - towardsMedian) * v.logPrice + towardsMedian * r.typeMedianLog + (r.shift ?? 0);
    const f = Math.expm1(log) / v.fairValue;
    const truth = Math.log1p(r.sale.price);
    se += (log - truth) ** 2;
    if (r.sale.price >= v.low * f && r.sale.price <= v.high * f) inside++;
    const type = CATEGORIES.find((c) => c.id === r.sale.categoryId)?.slug ?? String(r.sale.categoryId);
    const list = errors.get(type);
    if (list) list.push(log - truth);
    else errors.set(type, [log - truth]);
  }
  const perType = Object.fromEntries([...errors].filter(([, e]) => e.length >= 30).map(([t, e]) => [t, Math.round(median(e) * 1000) / 1000]));
  return { rows: rows.length, rmsle: Math.sqrt(se / Math.max(1, rows.length)), coverage: inside / Math.max(1, rows.length), perType };
}

const model = FairValueModel.fromJSON(JSON.parse(await readFile(str('load-model') ?? '', 'utf8')));
const { train, test } = await sales();
const all = evidence(model, train, test);
const typeMedians = new Map<string, number>();
for (const s of train) {
  const key = `${saleSource(s)}|${s.categoryId}`;
  if (!typeMedians.has(key)) typeMedians.set(key, Math.log1p(median(train.filter((t) => saleSource(t) === saleSource(s) && t.categoryId === s.categoryId).map((t) => t.price))));
}
const rows: Row[] = test.flatMap((sale, i) => {
  const e = all[i];
  // the type's median on the sale's source, else the source's (as model:eval's baseline)
  const sourceMedian = () => Math.log1p(median(train.filter((t) => saleSource(t) === saleSource(sale)).map((t) => t.price)));
  return e ? [{ sale, e, typeMedianLog: typeMedians.get(`${saleSource(sale)}|${sale.categoryId}`) ?? sourceMedian() }] : [];
});
const measured = rows.filter((r) => r.e.tree.ownMarket);
const other = rows.filter((r) => !r.e.tree.ownMarket);
const out: Record<string, unknown> = { rows: test.length, valued: rows.length, measured: measured.length, other: other.length };
const WEIGHTS = [0, 1 / 24, 1 / 12, 1 / 8, 1 / 6, 1 / 4, 1 / 3, 1 / 2, 1, 2, 5, 10, 20, 1000];
const label = (w: number) => (w > 0 && w < 1 ? `1/${Math.round(1 / w)}` : String(w));
for (const [name, part] of [['measuredSite', measured], ['otherSite', other]] as const) {
  if (part.length === 0) continue;
  out[name] = Object.fromEntries(WEIGHTS.map((w) => [label(w), figures(part, () => w)]));
  // comparables counted by how alike they are, more (p > 1) or less (p < 1) sharply
  out[`${name}BySharpness`] = Object.fromEntries(
    [0.5, 2, 4].flatMap((p) => [1 / 8, 1 / 6, 1 / 4, 1 / 3, 1 / 2, 1].map((w) => [`p${p} ${label(w)}`, Math.round(figures(part, () => w, 0, p).rmsle * 10000) / 10000])),
  );
  // per type, for a weight per type
  const types = [...new Set(part.map((r) => r.sale.categoryId))];
  out[`${name}ByType`] = Object.fromEntries(
    types.map((t) => {
      const of = part.filter((r) => r.sale.categoryId === t);
      const slug = CATEGORIES.find((c) => c.id === t)?.slug ?? String(t);
      return [`${slug} (${of.length})`, Object.fromEntries(WEIGHTS.map((w) => [label(w), Math.round(figures(of, () => w).rmsle * 10000) / 10000]))];
    }),
  );
}
if (rows.some((r) => saleSource(r.sale) !== 'fastiron')) {
  const current = (r: Row) => (r.e.tree.ownMarket ? Number(str('measured') ?? 1 / 4) : Number(str('other') ?? 10));
  out.towardsTypeMedian = Object.fromEntries([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1].map((b) => [String(b), figures(rows, current, b)]));
}
if (rows.some((r) => saleSource(r.sale) !== 'fastiron')) {
  // A recent-level correction: each type's median log price on its source over the last `days` of
  // the training period against its median over all of it, `share` of it added (5 lots at least).
  const current = (r: Row) => (r.e.tree.ownMarket ? Number(str('measured') ?? 1 / 4) : Number(str('other') ?? 10));
  const recent: Record<string, unknown> = {};
  // each source's training sales by type, and its latest sale, gathered once (not per row and window)
  const byType = new Map<string, TrainingSale[]>();
  const latestOf = new Map<string, number>();
  for (const t of train) {
    const key = `${saleSource(t)}|${t.categoryId}`;
    const list = byType.get(key);
    if (list) list.push(t);
    else byType.set(key, [t]);
    latestOf.set(saleSource(t), Math.max(latestOf.get(saleSource(t)) ?? -Infinity, t.soldAt.getTime()));
  }
  for (const days of [30, 60, 90, 180]) {
    const shiftOf = new Map<string, number>();
    for (const [key, own] of byType) {
      const latest = latestOf.get(key.slice(0, key.lastIndexOf('|')))!;
      const window = own.filter((t) => t.soldAt.getTime() > latest - days * DAY_MS);
      shiftOf.set(key, window.length >= 5 ? Math.log1p(median(window.map((t) => t.price))) - Math.log1p(median(own.map((t) => t.price))) : 0);
    }
    for (const share of [0.5, 1]) {
      const shifted = rows.map((r) => ({ ...r, shift: share * (shiftOf.get(`${saleSource(r.sale)}|${r.sale.categoryId}`) ?? 0) }));
      recent[`${days}d×${share}`] = figures(shifted, current);
    }
  }
  out.recentLevel = recent;
}
if (flags.json) console.log(JSON.stringify(out));
else console.log(JSON.stringify(out, null, 1));
