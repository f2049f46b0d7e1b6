/**
 * Training the fair-value model: boosted trees on log(1 + price) in today's dollars, a time
 * holdout for the number of trees and the range, then a refit on everything.
 */
import { ATTRIBUTE_FEATURES, buildVocabulary, normaliseModel, type TrainingSale, type ValuationInput, type Vocabulary } from './features.js';
import { binMatrix, type BinnedMatrix, type GbdtParams } from './gbdt.js';
import { DEFAULT_TRAINING_THREADS, MemberFits } from './fair-value-members.js';
import { fitTitleWords } from './title-words.js';
import { fitLotNeighbours, listingLogShift, neighbourLogPrice } from './lot-neighbours.js';
import { estimatePriceIndex, inDollarsOf } from './price-index.js';
import { DEALER_AUCTION, saleMarket, sourceMarket } from './market.js';
import { seededRandom } from '../shared/seeded-random.js';
import { atLeastAsWide, baselineKnots, FEW_HELD_OUT, fitScaleModel, KNOT_PROBS, lotScale, residualKnots, scaleFeatures, type ScaleModel } from './market-distribution.js';
import { fitTargetEncoding, type TargetEncoding } from './target-encoding.js';
import {
  ALL_SPECS, averagePrediction, blendNeighbours, encodeFull, neighbourShare, NEIGHBOUR_BLEND, quantile, saleSource, SUPPORT_BUCKETS, supportBucket, supportKey, typicalHoursPerYear,
  type RangeQuantiles, type SerializedFairValueModel,
} from './fair-value-format.js';
import { FairValueModel } from './fair-value-predict.js';
import type { TrainOptions } from './fair-value-options.js';

export type { TrainOptions };

/**
 * Chosen on the time split in README ("Valuation and deal score"): strong column sampling
 * generalises best across the 2012 datasource shift; leaves of 15+ sales with L2 8 (issue #7's
 * experiment log) did no worse on the earlier holdout and better on the next-month stand-in.
 */
export const VALUATION_GBDT_PARAMS: Partial<GbdtParams> = {
  trees: 1500,
  learningRate: 0.04,
  maxLeaves: 31,
  maxDepth: 12,
  minDataInLeaf: 15,
  lambda: 8,
  catSmooth: 8,
  minCategoryCount: 2,
  subsample: 0.8,
  colsample: 0.3,
  earlyStoppingRounds: 100,
  seed: 42,
  // Huber loss: a sale more than 0.3 off in log price (±35%) pulls no harder than one that far —
  // Fast Iron has mislabelled rows (a 60–80 hp "L180") that squared loss chases. Won on the mean of
  // the four training-period holdouts over three seeds (0.2586 against 0.2596; README, issue #7).
  huberDelta: 0.3,
};

/**
 * The ranges with the deal score's distributions of another calibration (`from`): knots, per-type
 * scales and per-type floored knots from it, the 10–90% ranges and the sources' floors kept.
 */
function withKnotsOf(
  ranges: SerializedFairValueModel['ranges'],
  from: {
    overall: RangeQuantiles;
    byBucket: (RangeQuantiles | null)[];
    bySource: Record<string, RangeQuantiles>;
    typeScale: Record<string, number>;
    typeKnots: Record<string, number[]>;
    lotScale: Record<string, ScaleModel>;
  },
): SerializedFairValueModel['ranges'] {
  const knotsOf = (range: RangeQuantiles, other: RangeQuantiles | null | undefined): RangeQuantiles => ({ ...range, knots: other?.knots ?? range.knots });
  return {
    ...ranges,
    overall: knotsOf(ranges.overall, from.overall),
    byBucket: ranges.byBucket.map((b, i) => b && knotsOf(b, from.byBucket[i])),
    bySource: Object.fromEntries(Object.entries(ranges.bySource ?? {}).map(([k, r]) => [k, knotsOf(r, from.bySource[k])])),
    typeScale: from.typeScale,
    typeKnots: from.typeKnots,
    lotScale: from.lotScale,
  };
}

/** A type needs this many held-out sales of its source to get its own spread (typeScale). */
const MIN_TYPE_HOLDOUT = 150;

/** Interquartile range of values (any order). */
function spread(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return quantile(sorted, 0.75) - quantile(sorted, 0.25);
}


const DEFAULT_HALF_LIFE_YEARS = Infinity;
/**
 * The market level's periods: calendar years (price-index.ts). Quarters did better on the
 * Ritchie Bros. training-period fold (machines of Dec 2022–Feb 2023: RMSLE 0.5008 against 0.5036,
 * the six Fast Iron types 0.3844 against 0.3916), but moved Fast Iron's own years too: the Fast
 * Iron February split 0.2619 → 0.2627 and West from July 2025 1.1114 → 1.1379 against its per-type
 * median's 1.1195, which the no-regression rule forbids (2026-11-29; docs/valuation.md, "Today's
 * market"). Quarters only where the level market sells densely is the next step.
 */
export const INDEX_PERIOD_MONTHS = 12;
/** A sale of a new, never used machine (`unused` as the conversions and listings state it). */
const isUnused = (s: ValuationInput) => ['yes', 'true', '1'].includes(String(s.attributes.unused ?? '').toLowerCase());
export const SOURCE_WEIGHTS: Record<string, number> = {};
export const MIN_MARKET_PRICE = 0;
/**
 * Squared loss for online lots (no cap): chosen on two West folds of the training period (lots of
 * Jan–Mar and Apr–Jun 2025, trained on the lots before each), RMSLE 1.636 → 1.091 and 1.492 → 1.382
 * against Fast Iron's 0.3 (docs/valuation.md).
 */
export const ONLINE_HUBER_DELTA = Infinity;
export const ONLINE_RANGE_TAIL = 0.05;
/** Three boosted models averaged: 0.001–0.003 RMSLE over one, within a minute or two of CPU. */
const DEFAULT_MEMBERS = 3;
/**
 * Off: adding the time holdout's median error (trees cannot extrapolate a market rise) helped on
 * both holdouts from the training period but hurt on the Feb 2012 test month (README, experiment
 * log). The final refit trains on that holdout, so part of the shift is counted twice.
 */
const DEFAULT_DRIFT_SHARE = 0;
/**
 * One pseudo-sale (was 5): a model's own few sales say more about its price than its type's mean
 * does. Better on all four training-period holdouts averaged over two seeds and on 7 of 8 own time
 * holdouts; February unchanged (issue #7 follow-up in README). Stored models keep their smoothing.
 */
export const DEFAULT_TARGET_SMOOTHING = 1;

/**
 * Left out of the model (their columns stay, always missing, so stored models keep their layout).
 * Hours are in again (issue #18), under a monotone constraint: more hours never raise the value.
 * Hours per year and the model-by-age target encodings are out: both move against the year (a newer
 * machine with the same hours has more hours per year; an age bucket's mean can be lower than an
 * older one's), so with them a newer year could lower the value. Datasource and auctioneer: Fast
 * Iron's own codes, which no crawled listing carries.
 */
export const LEFT_OUT_FEATURES = ['hours_per_year', 'te_model_age', 'te_family_age', 'attr_UsageBand', 'attr_datasource', 'attr_auctioneerID'];
const DEFAULT_IMPUTE_HOURS = false;

function recencyWeights(rows: TrainingSale[], halfLifeYears: number): Float64Array {
  // a loop, not Math.max(...times): a million arguments overflow the stack
  let latest = -Infinity;
  for (const r of rows) latest = Math.max(latest, r.soldAt.getTime());
  const year = 365.25 * 24 * 3600 * 1000;
  return Float64Array.from(rows.map((r) => Math.pow(0.5, (latest - r.soldAt.getTime()) / year / halfLifeYears)));
}

function inverseSourceVariance(rows: TrainingSale[], y: Float64Array): Float64Array {
  const stats = new Map<string, [number, number, number]>();
  rows.forEach((r, i) => {
    const e = stats.get(saleSource(r)) ?? [0, 0, 0];
    e[0] += 1;
    e[1] += y[i]!;
    e[2] += y[i]! * y[i]!;
    stats.set(saleSource(r), e);
  });
  const variance = new Map([...stats].map(([k, [n, s, sq]]) => [k, Math.max(1e-3, sq / n - (s / n) ** 2)]));
  return Float64Array.from(rows.map((r) => 1 / variance.get(saleSource(r))!));
}

function sortedByDate<T extends { soldAt: Date }>(rows: T[]): T[] {
  return [...rows].sort((a, b) => a.soldAt.getTime() - b.soldAt.getTime());
}

const TYPICAL_ATTRIBUTES = [...ATTRIBUTE_FEATURES, 'ModelID'];

/**
 * Per source, at most this many held-out sales are valued as the scorer values them for the deal
 * score's calibration (TrainOptions.finalValues), evenly spaced in time: each costs a scoreListings
 * call with up to 400 comparables, and a distribution's knots need thousands of errors, not the
 * 150,000 a million sales hold out. The shipped histories (62,182 Ritchie Bros. lots: ~9,300 held
 * out; Fast Iron and West fewer) stay under it, so their calibration is unchanged
 * (docs/experiments/2026-11-29-training-at-scale.md).
 */
export const CALIBRATION_SALES_PER_SOURCE = 12_000;

/** Indices (into `holdout`, in order) of the held-out sales the deal score is calibrated on. */
function calibrationSample(holdout: TrainingSale[]): number[] {
  const bySource = new Map<string, number[]>();
  holdout.forEach((s, i) => {
    const key = saleSource(s);
    let list = bySource.get(key);
    if (!list) bySource.set(key, (list = []));
    list.push(i);
  });
  const keep = new Uint8Array(holdout.length);
  for (const idx of bySource.values()) {
    const take = Math.min(idx.length, CALIBRATION_SALES_PER_SOURCE);
    for (let k = 0; k < take; k++) keep[idx[Math.floor((k * idx.length) / take)]!] = 1;
  }
  return holdout.flatMap((_, i) => (keep[i] ? [i] : []));
}

/** A source needs this many sales in the holdout to get its own share of it and its own range. */
const MIN_SOURCE_HOLDOUT = 40;

function typicalAttributes(rows: TrainingSale[]): Record<string, Record<string, string>> {
  const counts = new Map<string, Map<string, Map<string, number>>>();
  for (const r of rows) {
    const keys: string[] = [];
    const model = normaliseModel(r.model);
    const family = normaliseModel(r.modelFamily);
    if (model) keys.push(`${r.categoryId}|${model}`);
    if (family) keys.push(`${r.categoryId}|F:${family}`);
    for (const key of keys) {
      let byAttr = counts.get(key);
      if (!byAttr) counts.set(key, (byAttr = new Map()));
      for (const name of TYPICAL_ATTRIBUTES) {
        const v = r.attributes[name];
        if (v === null || v === undefined || v === '') continue;
        let values = byAttr.get(name);
        if (!values) byAttr.set(name, (values = new Map()));
        values.set(String(v), (values.get(String(v)) ?? 0) + 1);
      }
    }
  }
  const out: Record<string, Record<string, string>> = {};
  for (const [key, byAttr] of counts) {
    const typical: Record<string, string> = {};
    for (const [name, values] of byAttr) typical[name] = [...values.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
    out[key] = typical;
  }
  return out;
}

function countSupport(rows: ValuationInput[]): Record<string, number> {
  const support: Record<string, number> = {};
  for (const r of rows) {
    const key = supportKey(r);
    support[key] = (support[key] ?? 0) + 1;
  }
  return support;
}

/** Trains on sales (any order); needs a few dozen at least. */
export function trainFairValueModel(sales: TrainingSale[], opts: TrainOptions = {}): { model: FairValueModel; seconds: number } {
  const started = performance.now();
  const minPrice = opts.minTrainingPrice ?? MIN_MARKET_PRICE;
  const asSold = sortedByDate(sales.filter((s) => Number.isFinite(s.price) && s.price > 0 && s.price >= minPrice));
  if (asSold.length < 30) throw new Error(`too few sales to train on (${asSold.length}; need 30)`);
  // today's dollars: every price brought to the latest sale's market before anything is learned
  const priceIndex =
    opts.priceIndex === false
      ? undefined
      : estimatePriceIndex(
          asSold.map((s) => ({ categoryId: s.categoryId, make: s.make, modelFamily: s.modelFamily, year: s.year, soldAt: s.soldAt, price: s.price, market: saleMarket(s), unused: isUnused(s) })),
          { periodMonths: opts.indexPeriodMonths ?? INDEX_PERIOD_MONTHS },
        );
  const latestSale = asSold[asSold.length - 1]!.soldAt;
  const usable = priceIndex ? asSold.map((s) => ({ ...s, price: inDollarsOf(priceIndex, s.price, s.soldAt, latestSale) })) : asSold;
  const progress = opts.onProgress ?? (() => {});
  progress(`${asSold.length} sales; price index: ${priceIndex ? priceIndex.method : 'off'}`);
  const params = { ...VALUATION_GBDT_PARAMS, ...opts.params };
  const coverage = opts.coverage ?? 0.8;
  const holdoutFraction = opts.holdoutFraction ?? 0.15;
  const holdoutRows = Math.max(10, Math.round(usable.length * holdoutFraction));
  // the latest sales of each source: one source's history must not all fall in the holdout
  // because it happens to be the newest (West Auctions' lots are all later than Fast Iron's)
  const latestOfEachSource = new Set<TrainingSale>();
  const bySource = new Map<string, TrainingSale[]>();
  for (const s of usable) {
    const key = saleSource(s);
    let list = bySource.get(key);
    if (!list) bySource.set(key, (list = []));
    list.push(s);
  }
  for (const list of bySource.values()) {
    const n = list.length >= MIN_SOURCE_HOLDOUT / holdoutFraction ? Math.round(list.length * holdoutFraction) : 0;
    for (const s of list.slice(list.length - n)) latestOfEachSource.add(s);
  }
  if (latestOfEachSource.size < 10) for (const s of usable.slice(usable.length - holdoutRows)) latestOfEachSource.add(s);
  let fit = usable.filter((s) => !latestOfEachSource.has(s));
  let holdout = usable.filter((s) => latestOfEachSource.has(s));
  if (opts.holdout === 'random') {
    const random = seededRandom(7);
    const inHoldout = usable.map(() => random() < holdoutRows / usable.length);
    fit = usable.filter((_, i) => !inHoldout[i]);
    holdout = usable.filter((_, i) => inHoldout[i]);
  }
  const drop = new Set(opts.dropFeatures ?? LEFT_OUT_FEATURES);
  const imputeHours = opts.imputeHours ?? DEFAULT_IMPUTE_HOURS;
  const fitHours = imputeHours ? typicalHoursPerYear(fit) : undefined;
  const fitTw = fitTitleWords(fit);
  const encode = (rows: ValuationInput[], vocab: Vocabulary, te: TargetEncoding, outOfFold?: TrainingSale[], hours = fitHours, tw = fitTw) => {
    const m = encodeFull(rows, vocab, te, outOfFold, hours, tw);
    ALL_SPECS.forEach((spec, f) => {
      if (drop.has(spec.name)) m.columns[f]!.fill(NaN);
    });
    return m;
  };

  /** Everything the refits learn from: every usable sale's encodings and binned matrix. */
  const fullEncoding = () => {
    progress(`encoding all ${usable.length} sales for the refits`);
    const vocabulary = buildVocabulary(usable);
    const targetEncoding = fitTargetEncoding(usable, opts.targetSmoothing ?? DEFAULT_TARGET_SMOOTHING);
    const usableHours = imputeHours ? typicalHoursPerYear(usable) : undefined;
    const usableTw = fitTitleWords(usable);
    let matrix: BinnedMatrix | undefined = binMatrix(ALL_SPECS, encode(usable, vocabulary, targetEncoding, usable, usableHours, usableTw), params, true);
    /** The matrix, handed over once (the members' fits hold it from then on). */
    const takeMatrix = () => {
      const m = matrix!;
      matrix = undefined;
      return m;
    };
    return { vocabulary, targetEncoding, usableHours, usableTw, takeMatrix };
  };

  // 1. fit on the earlier sales, stop on the latest ones, and measure the errors there
  const fitVocab = buildVocabulary(fit);
  const y = (rows: TrainingSale[]) => Float64Array.from(rows.map((r) => Math.log1p(r.price)));
  const holdoutY = y(holdout);
  const halfLife = opts.halfLifeYears ?? DEFAULT_HALF_LIFE_YEARS;
  const fitTe = fitTargetEncoding(fit, opts.targetSmoothing ?? DEFAULT_TARGET_SMOOTHING);
  const holdoutX = encode(holdout, fitVocab, fitTe);
  const memberCount = Math.max(1, Math.floor(opts.members ?? DEFAULT_MEMBERS));
  const memberParams = (k: number): Partial<GbdtParams> => ({ ...params, seed: (params.seed ?? 1) + k * 1000 });
  // binned once for every member, each raw column dropped once binned (a million rows' columns are ~650 MB)
  let fitX: BinnedMatrix | undefined = binMatrix(ALL_SPECS, encode(fit, fitVocab, fitTe, fit), params, true);
  // Early stopping: each held-out sale weighs by the inverse of its source's price variance, so an
  // online source's far wider spread of prices does not stop the trees that
  // Fast Iron still gains from: a few dozen online lots outweighed 2,400 Fast Iron sales and halted
  // training at ~300 trees (Fast Iron holdout 0.233 → 0.268).
  const holdoutWeights = inverseSourceVariance(holdout, holdoutY);
  const sourceWeights = opts.sourceWeights ?? SOURCE_WEIGHTS;
  const weigh = (rows: TrainingSale[], w: Float64Array) => {
    rows.forEach((r, i) => (w[i] = w[i]! * (sourceWeights[saleSource(r)] ?? 1)));
    return w;
  };
  const onlineDelta = opts.onlineHuberDelta ?? ONLINE_HUBER_DELTA;
  const huberDeltas = (rows: TrainingSale[]) =>
    Float64Array.from(rows.map((r) => (saleMarket(r) === DEALER_AUCTION ? (params.huberDelta ?? Infinity) : onlineDelta)));
  const fitWeights = weigh(fit, recencyWeights(fit, halfLife));
  // with two threads the second starts on the holdout fits while this one encodes every sale for the refits
  const members = new MemberFits({
    count: memberCount,
    threads: opts.threads ?? DEFAULT_TRAINING_THREADS,
    holdout: { features: ALL_SPECS, matrix: fitX!, y: y(fit), weights: fitWeights, deltas: huberDeltas(fit), valid: { x: holdoutX, y: holdoutY, weights: holdoutWeights } },
    params: memberParams,
    progress,
  });
  fitX = undefined;
  const full = opts.holdoutOnly ? undefined : members.meanwhile(fullEncoding);
  const firstMembers = members.fitHoldouts(
    full && { data: { features: ALL_SPECS, matrix: full.takeMatrix(), y: y(usable), weights: weigh(usable, recencyWeights(usable, halfLife)), deltas: huberDeltas(usable) }, fixedTrees: opts.fixedTrees, factor: 1.1 },
  );
  const neighbourBlend = opts.neighbourBlend ?? NEIGHBOUR_BLEND;
  const fitNeighbours = fitLotNeighbours(fit);
  const holdoutTrees = averagePrediction(firstMembers.map((f) => f.model), holdoutX);
  const holdoutNeighbours = holdout.map((r) => neighbourLogPrice(fitNeighbours, r));
  const holdoutPred = holdoutTrees.map((l, i) => blendNeighbours(l, holdoutNeighbours[i]!, neighbourShare(holdout[i]!, neighbourBlend)) + listingLogShift(fitNeighbours, holdout[i]!));
  const fitSupport = countSupport(fit);
  const all = holdout.map((_, i) => holdoutY[i]! - holdoutPred[i]!);
  const se = all.reduce((a, e) => a + e * e, 0);
  opts.onHoldout?.(holdout, all, { trees: [...holdoutTrees], neighbours: holdoutNeighbours });
  const tail = (1 - coverage) / 2;
  const quantiles = (values: number[]): RangeQuantiles => {
    const sorted = [...values].sort((a, b) => a - b);
    return { low: quantile(sorted, tail), high: quantile(sorted, 1 - tail), samples: sorted.length, knots: residualKnots(sorted) ?? undefined };
  };
  // the range is the same band of errors around the shifted prediction
  const sortedAll = [...all].sort((a, b) => a - b);
  const logOffset = (opts.driftShare ?? DEFAULT_DRIFT_SHARE) * quantile(sortedAll, 0.5);
  const shifted = (values: number[]) => values.map((v) => v - logOffset);
  // an online source's range spans its held-out errors' 5–95% (ONLINE_RANGE_TAIL): on the two West
  // folds of the training period a 10–90% range held only 34–47% of the next quarter's lots, as an
  // online auction's later lots differ from its latest ones more than its latest from its earlier
  const onlineTail = opts.onlineRangeTail ?? ONLINE_RANGE_TAIL;
  /** The ranges and the deal score's distributions from one log residual per held-out sale. */
  const calibrate = (residuals: number[], rows: TrainingSale[] = holdout) => {
    const residualsByBucket: number[][] = SUPPORT_BUCKETS.map(() => []);
    rows.forEach((r, i) => residualsByBucket[supportBucket(fitSupport[supportKey(r)] ?? 0)]!.push(residuals[i]!));
    const overall = quantiles(shifted(residuals));
    const byBucket = residualsByBucket.map((values) => (values.length >= 40 ? quantiles(shifted(values)) : null));
    const indicesBySource = new Map<string, number[]>();
    rows.forEach((r, i) => {
      const key = saleSource(r);
      let idx = indicesBySource.get(key);
      if (!idx) indicesBySource.set(key, (idx = []));
      idx.push(i);
    });
    const residualsBySource = new Map([...indicesBySource].map(([k, idx]) => [k, idx.map((i) => residuals[i]!)]));
    // A spread per lot where the source's window is large enough to tell (FEW_HELD_OUT): the lower
    // tail's knots and the type scales are read from each error divided by its lot's scale (around
    // the source's median), so a listing's lower tail times its own scale is its distribution
    // there — the side every Good and Excellent claim rests on. The upper tail (Poor's side) stays
    // the source's one spread: on the training-period folds both months sold above their values
    // (the price level drifted), and a sharper upper tail for well-known lots turned that drift into
    // more Poor claims (January 2012 14.9% → 15.9%, May–June 2011 10.6% → 12.7%; lower tail only:
    // 13.4%, 9.8%; docs/valuation.md, "Deal flags"). The 10–90% range stays the source's (accuracy's).
    const lotScales: Record<string, ScaleModel> = {};
    const standardised = [...residuals];
    for (const [source, idx] of indicesBySource) {
      if (opts.lotScale !== true || idx.length < FEW_HELD_OUT) continue;
      const values = idx.map((i) => residuals[i]!);
      const model = fitScaleModel(
        idx.map((i) => scaleFeatures(rows[i]!, fitSupport[supportKey(rows[i]!)] ?? 0)),
        values,
      );
      if (!model) continue;
      lotScales[source] = { ...model, rows: fit.length };
      const median = quantile([...values].sort((a, b) => a - b), 0.5);
      for (const i of idx) standardised[i] = median + (residuals[i]! - median) / lotScale(model, scaleFeatures(rows[i]!, fitSupport[supportKey(rows[i]!)] ?? 0));
    }
    const standardisedBySource = new Map([...indicesBySource].map(([k, idx]) => [k, idx.map((i) => standardised[i]!)]));
    // A source with few held-out sales (FEW_HELD_OUT) claims no more than the per-type median price
    // would: each type's distribution is at least as wide as the spread of the source's own earlier
    // lots of that type around their median (types with under MIN_BASELINE_LOTS lots: all types
    // pooled). Chosen on the training-period fold (West lots of Apr–Jun 2025): its 49 held-out lots
    // spread ±0.1 log in their middle half, and the next quarter's lots were called good 1 time in 9
    // at their own price; floored per type, 1 in 50 (docs/valuation.md, "Deal flags").
    const typeKnots: Record<string, number[]> = {};
    const sourceQuantiles = (source: string, values: number[]): RangeQuantiles => {
      if (lotScales[source]) {
        const own = quantiles(shifted(values));
        const std = residualKnots(shifted(standardisedBySource.get(source)!));
        return { ...own, knots: std && own.knots ? std.map((k, i) => (KNOT_PROBS[i]! < 0.5 ? k : own.knots![i]!)) : own.knots };
      }
      // a dealer auction's range is its held-out errors' 10–90%, as Fast Iron's: the online tail is for surplus lots
      if (sourceMarket(source) === DEALER_AUCTION) return quantiles(shifted(values));
      const sorted = shifted(values).sort((a, b) => a - b);
      let own = residualKnots(sorted);
      if (own && values.length < FEW_HELD_OUT) {
        const baseline = baselineKnots(fit.filter((r) => saleSource(r) === source).map((r) => ({ type: String(r.categoryId), logPrice: Math.log1p(r.price) })));
        for (const [type, floor] of Object.entries(baseline.byType)) typeKnots[`${source}|${type}`] = atLeastAsWide(own, floor);
        if (baseline.pooled) own = atLeastAsWide(own, baseline.pooled);
      }
      return { low: quantile(sorted, onlineTail), high: quantile(sorted, 1 - onlineTail), samples: sorted.length, knots: own ?? undefined };
    };
    const bySource = Object.fromEntries([...residualsBySource].filter(([, v]) => v.length >= MIN_SOURCE_HOLDOUT).map(([k, v]) => [k, sourceQuantiles(k, v)]));
    // per type, how much wider or narrower its errors spread than its source's: Fast Iron's backhoe
    // loaders land within ±0.19 log of the value, its graders ±0.31 — one spread for both over-claims
    // graders and under-claims backhoes
    const residualsByType = new Map<string, number[]>();
    rows.forEach((r, i) => {
      const key = `${saleSource(r)}|${r.categoryId}`;
      let list = residualsByType.get(key);
      if (!list) residualsByType.set(key, (list = []));
      list.push(standardised[i]!);
    });
    const typeScale: Record<string, number> = {};
    for (const [key, values] of residualsByType) {
      const source = key.slice(0, key.lastIndexOf('|'));
      if (values.length < MIN_TYPE_HOLDOUT || !bySource[source]) continue;
      const ratio = spread(values) / Math.max(1e-6, spread(standardisedBySource.get(source)!));
      typeScale[key] = Math.round(Math.min(1.6, Math.max(0.6, ratio)) * 1000) / 1000;
    }
    return { overall, byBucket, bySource, typeScale, typeKnots, lotScale: lotScales, residualsBySource };
  };
  const onTrees = calibrate(all);
  // A source with sold lots but too few for its own calibration window borrows the support buckets'
  // distribution, learned mostly on Fast Iron's dealer sales: on the training-period fold of
  // Jan–Mar 2025 (129 West lots in training, none held out) it called 23% of West lots at their own
  // price good or better. Floored by the source's own lots' spread around their type's median, as
  // a source with a small window is (docs/valuation.md, "Deal flags").
  const sourceFloor: Record<string, number[]> = {};
  for (const [source, list] of bySource) {
    if (source === 'fastiron' || onTrees.bySource[source]) continue;
    const baseline = baselineKnots(list.map((r) => ({ type: String(r.categoryId), logPrice: Math.log1p(r.price) })));
    for (const [type, knots] of Object.entries(baseline.byType)) sourceFloor[`${source}|${type}`] = knots;
    if (baseline.pooled) sourceFloor[source] = baseline.pooled;
  }
  const typeSales: Record<string, number> = {};
  for (const s of usable) typeSales[String(s.categoryId)] = (typeSales[String(s.categoryId)] ?? 0) + 1;

  const holdoutBySource = Object.fromEntries(
    [...onTrees.residualsBySource].map(([k, v]) => [k, { rows: v.length, rmsle: Math.sqrt(v.reduce((a, e) => a + e * e, 0) / v.length), medianLogError: -quantile([...v].sort((a, b) => a - b), 0.5) }]),
  );
  const holdoutFigures = { rows: holdout.length, rmsle: Math.sqrt(se / holdout.length), trees: firstMembers[0]!.report.bestIteration, bySource: holdoutBySource };
  let ranges: SerializedFairValueModel['ranges'] = {
    overall: onTrees.overall,
    byBucket: onTrees.byBucket,
    bySource: onTrees.bySource,
    typeScale: onTrees.typeScale,
    typeKnots: onTrees.typeKnots,
    sourceFloor,
    lotScale: onTrees.lotScale,
  };
  const holdoutModel = () =>
    new FairValueModel({
      format: 'fair-value-v1',
      vocabulary: fitVocab,
      targetEncoding: fitTe,
      gbdt: firstMembers[0]!.model.toJSON(),
      extraGbdts: firstMembers.slice(1).map((f) => f.model.toJSON()),
      ranges,
      modelSupport: fitSupport,
      typeSales,
      priceIndex,
      titleWords: fitTw,
      coverage,
      trainedRows: fit.length,
      latestSaleAt: fit[fit.length - 1]!.soldAt.toISOString(),
      typicalAttributes: typicalAttributes(fit),
      typicalHoursPerYear: fitHours,
      holdout: holdoutFigures,
      logOffset,
      lotNeighbours: fitNeighbours,
      neighbourBlend,
    });
  if (opts.finalValues) {
    // The claims calibrated on the errors of the value a buyer is shown: each held-out sale valued
    // by the holdout fit as the scorer values a listing (comparables only from the earlier sales,
    // the value resting on them), at its own price as sold. The range stays the trees' (accuracy's).
    const sample = calibrationSample(holdout);
    progress(`calibrating the deal score on the scorer's values of ${sample.length < holdout.length ? `${sample.length} of ` : ''}the ${holdout.length} held-out sales`);
    const raw = new Map(usable.map((s, i) => [s, asSold[i]!]));
    const heldOut = sample.map((i) => raw.get(holdout[i]!) ?? holdout[i]!);
    const values = opts.finalValues(holdoutModel(), fit.map((s) => raw.get(s) ?? s), heldOut);
    raw.clear();
    const residuals = heldOut.map((s, j) => {
      const v = values[j];
      return v !== null && v !== undefined && v > 0 ? Math.log1p(s.price) - Math.log1p(v) : all[sample[j]!]!;
    });
    ranges = withKnotsOf(ranges, calibrate(residuals, sample.map((i) => holdout[i]!)));
  }
  if (opts.holdoutOnly) return { model: holdoutModel(), seconds: (performance.now() - started) / 1000 };

  // 2. refit on everything with a few more trees than the holdout fit needed (more data)
  const { vocabulary, targetEncoding, usableHours, usableTw } = full!;
  const finals = members.fitRefits();
  const model = new FairValueModel({
    format: 'fair-value-v1',
    vocabulary,
    targetEncoding,
    gbdt: finals[0]!.toJSON(),
    extraGbdts: finals.slice(1).map((m) => m.toJSON()),
    ranges,
    modelSupport: countSupport(usable),
    typeSales,
    priceIndex,
    titleWords: usableTw,
    coverage,
    trainedRows: usable.length,
    latestSaleAt: usable[usable.length - 1]!.soldAt.toISOString(),
    typicalAttributes: typicalAttributes(usable),
    typicalHoursPerYear: usableHours,
    holdout: holdoutFigures,
    logOffset,
    lotNeighbours: fitLotNeighbours(usable),
    neighbourBlend,
  });
  return { model, seconds: (performance.now() - started) / 1000 };
}
