/**
 * Today's dollars: how the market's price level moved over time, so a sale from 2011 and one from
 * 2025 can be compared. The index is a piecewise-linear log price level through dated points; a
 * price sold at `t` is in the dollars of `asOf` after × exp(level(asOf) − level(t)). Before the
 * first point and after the last the level is flat: nothing is extrapolated.
 */
export type PriceIndex = {
  /** Dated log price levels, oldest first; the level of the latest point is 0 by convention. */
  points: { at: string; log: number }[];
  /** Per type (category id): how log price falls per year of a machine's age (≤ 0), like for like. */
  depreciation?: Record<string, number>;
  /** How it was estimated, for the docs and the model's metrics. */
  method?: string;
  /**
   * The month (YYYY-MM) of the latest sales the level rests on: after it the level is carried flat
   * ("market level of May 2023, the latest sales we hold"). Absent in indexes estimated before it.
   */
  marketAsOf?: string;
  /** The market the level is measured in (market.ts); other markets' sales do not move it. */
  market?: string;
};

const YEAR_MS = 365.25 * 24 * 3600 * 1000;

/** Each index's point times, parsed once (a training brings a million prices to one date; a rescore values a million listings). */
const pointTimes = new WeakMap<PriceIndex['points'], Float64Array>();

export function priceLevel(index: PriceIndex | undefined, at: Date): number {
  const points = index?.points ?? [];
  if (points.length === 0) return 0;
  const t = at.getTime();
  let times = pointTimes.get(points);
  if (!times || times.length !== points.length) pointTimes.set(points, (times = Float64Array.from(points, (p) => Date.parse(p.at))));
  if (t <= times[0]!) return points[0]!.log;
  const last = points.length - 1;
  if (t >= times[last]!) return points[last]!.log;
  let i = 0;
  while (times[i + 1]! < t) i++;
  const share = (t - times[i]!) / (times[i + 1]! - times[i]!);
  return points[i]!.log + share * (points[i + 1]!.log - points[i]!.log);
}

/** A price sold at `soldAt` in the dollars of `asOf`. */
export function inDollarsOf(index: PriceIndex | undefined, price: number, soldAt: Date, asOf: Date): number {
  return price * Math.exp(priceLevel(index, asOf) - priceLevel(index, soldAt));
}

/**
 * Beyond this age a machine's price stops falling with age in the data (dozers and wheel loaders
 * of 25–40 years sell at one plateau): ageing a comparable stops here.
 */
export const DEPRECIATION_MAX_AGE = 25;
/** A sale's machine without a stated year is taken to be this old when it sold (Fast Iron's machines mostly sold at 3–12 years). */
const TYPICAL_AGE_AT_SALE = 8;

/**
 * A comparable sale in today's terms: its price in the dollars of `asOf` (the market's level) and
 * at the age its machine has at `asOf` (the type's like-for-like depreciation, up to
 * DEPRECIATION_MAX_AGE years of age). A 1998 excavator sold for $24,000 in 2012, aged 14, is not
 * worth $24,000 at 28: shown so, comparables read on the same footing as the fair value.
 */
export function comparableToday(index: PriceIndex | undefined, sale: { price: number; soldAt: Date; year: number | null; categoryId: number | null }, asOf: Date): number {
  return inDollarsOf(index, sale.price, sale.soldAt, asOf) * ageingFactor(index, sale, asOf);
}

/**
 * How much a machine sold at `soldAt` has lost by `asOf` with age alone: its type's like-for-like
 * depreciation over the years between, counted up to DEPRECIATION_MAX_AGE years of age (1 when the
 * index has no rate for the type). A machine without a stated year is taken to be
 * TYPICAL_AGE_AT_SALE years old when it sold.
 */
export function ageingFactor(index: PriceIndex | undefined, sale: { soldAt: Date; year: number | null; categoryId: number | null }, asOf: Date): number {
  const slope = index?.depreciation?.[String(sale.categoryId)] ?? 0;
  if (slope === 0) return 1;
  const soldYear = sale.soldAt.getTime() / YEAR_MS + 1970;
  const ageThen = sale.year !== null ? Math.max(0, soldYear - sale.year) : TYPICAL_AGE_AT_SALE;
  const ageNow = ageThen + Math.max(0, (asOf.getTime() - sale.soldAt.getTime()) / YEAR_MS);
  const aged = Math.min(ageNow, DEPRECIATION_MAX_AGE) - Math.min(ageThen, DEPRECIATION_MAX_AGE);
  return Math.exp(Math.min(0, slope) * aged);
}

/**
 * What a machine of `year` is worth against one of `otherYear`, both at `asOf`, by age alone: the
 * type's depreciation over the difference of their ages (each counted up to DEPRECIATION_MAX_AGE).
 * 1 when either year is unknown.
 */
export function ageRatio(index: PriceIndex | undefined, categoryId: number | null, year: number | null, otherYear: number | null, asOf: Date): number {
  const slope = Math.min(0, index?.depreciation?.[String(categoryId)] ?? 0);
  if (slope === 0 || year === null || otherYear === null) return 1;
  const t = asOf.getTime() / YEAR_MS + 1970;
  const age = (y: number) => Math.min(DEPRECIATION_MAX_AGE, Math.max(0, t - y));
  return Math.exp(slope * (age(year) - age(otherYear)));
}

export type IndexSale = {
  categoryId: number | null;
  make: string | null;
  modelFamily: string | null;
  year: number | null;
  soldAt: Date;
  price: number;
  /** The market it sold in (market.ts: dealer auction, online surplus); groups never link two markets. */
  market?: string | null;
  /** New, never used: its own group (an unused mini excavator is not a used one of the same model). */
  unused?: boolean;
};

export type PriceIndexEstimate = PriceIndex & {
  /**
   * Periods (a year, or `periodMonths` months) with their log level, sales and how many of them sit
   * in groups sold in other periods too. `year` is the period's first year, `period` its first month.
   */
  years: { year: number; period: string; log: number; sales: number; linked: number }[];
};

/** The median of `values[from, to)`, which it sorts in place (a typed array sorts natively, without a comparator). */
function medianOf(values: Float64Array, from: number, to: number): number {
  const s = values.subarray(from, to).sort();
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Row indices grouped by `keyOf(row)` (0 ≤ key < keys; −1 leaves a row out), each group in row order: a counting sort. */
function groupRows(n: number, keys: number, keyOf: (i: number) => number): { start: Int32Array; rows: Int32Array } {
  const start = new Int32Array(keys + 1);
  for (let i = 0; i < n; i++) {
    const k = keyOf(i);
    if (k >= 0) start[k + 1]!++;
  }
  for (let k = 0; k < keys; k++) start[k + 1]! += start[k]!;
  const next = start.slice(0, keys);
  const rows = new Int32Array(start[keys]!);
  for (let i = 0; i < n; i++) {
    const k = keyOf(i);
    if (k >= 0) rows[next[k]!++] = i;
  }
  return { start, rows };
}

export type PriceIndexOptions = {
  iterations?: number;
  minGroup?: number;
  /** Months per period whose level is estimated (default 12: calendar years). */
  periodMonths?: number;
  /**
   * The market whose sales the level rests on (default: the market with the most sales). Sales of
   * other markets enter as their own groups (never linking a period: one market's only years would
   * confound its premium with the period's level) and inform the depreciation only.
   */
  levelMarket?: string;
};

const monthOf = (d: Date) => d.getUTCFullYear() * 12 + d.getUTCMonth();
const monthLabel = (m: number) => `${Math.floor(m / 12)}-${String((m % 12) + 1).padStart(2, '0')}`;

/**
 * A hedonic time-dummy index, fitted robustly: log price = machine group + type's depreciation ×
 * age + the sale period's level. Groups are the family within its type (and market, and unused or
 * not) when known, else the make within its type, else the type, so a period's level is learned
 * only from groups that also sold in other periods: what both periods share — the same models sold
 * in 2004–2012 and in 2021–2023 bridge the gap between the eras. Fitted by alternating medians
 * (robust to the odd mislabelled sale); a period whose groups sold in no other period (nothing
 * links it) keeps the level of the linked run next to it. Levels are relative to the latest
 * period (0); after it the level is carried flat, and `marketAsOf` names the month of the latest
 * sales it rests on.
 *
 * Linear in the sales but for the medians' sorts: the rows are typed arrays (groups, types and
 * periods interned as integers once), grouped once by counting sort, and each iteration fills one
 * scratch array — a million sales fit in seconds, with nothing allocated per iteration.
 */
export function estimatePriceIndex(sales: IndexSale[], opts: PriceIndexOptions = {}): PriceIndexEstimate {
  const iterations = opts.iterations ?? 12;
  const minGroup = opts.minGroup ?? 3;
  const periodMonths = Math.max(1, Math.floor(opts.periodMonths ?? 12));
  const usable = sales.filter((s) => s.price > 0 && Number.isFinite(s.price));
  if (usable.length === 0) return { points: [], years: [], method: 'no sales' };
  const n = usable.length;
  const marketCounts = new Map<string, number>();
  for (const s of usable) marketCounts.set(s.market ?? '', (marketCounts.get(s.market ?? '') ?? 0) + 1);
  const levelMarket = opts.levelMarket ?? [...marketCounts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
  // a sale's group: the first of family, make, type (within market, unused apart) with minGroup sales
  const typeKey = (s: IndexSale) => `${s.market ?? ''}|${s.unused ? 'U' : ''}|${s.categoryId ?? 0}`;
  const familyKey = (s: IndexSale, c: string) => (s.modelFamily ? `${c}|F:${s.modelFamily.toUpperCase()}` : null);
  const makeKey = (s: IndexSale, c: string) => (s.make ? `${c}|M:${s.make.toUpperCase()}` : null);
  const groupCounts = new Map<string, number>();
  const count = (k: string | null) => k !== null && groupCounts.set(k, (groupCounts.get(k) ?? 0) + 1);
  for (const s of usable) {
    const c = typeKey(s);
    count(familyKey(s, c));
    count(makeKey(s, c));
    count(c);
  }
  const periodOf = (d: Date) => Math.floor(monthOf(d) / periodMonths);
  const groupIds = new Map<string, number>();
  /** Per group: a like-for-like group of the level market (a family or make, not a whole type), which links periods. */
  const linkingGroup: boolean[] = [];
  const typeIds = new Map<string, number>();
  const typeNames: string[] = [];
  const y = new Float64Array(n);
  const group = new Int32Array(n);
  const type = new Int32Array(n);
  const period = new Int32Array(n);
  const age = new Float64Array(n);
  const hasAge = new Uint8Array(n);
  const inLevel = new Uint8Array(n);
  const soldAt = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const s = usable[i]!;
    const c = typeKey(s);
    const candidates = [familyKey(s, c), makeKey(s, c)];
    let key = c;
    for (const k of candidates) {
      if (k !== null && (groupCounts.get(k) ?? 0) >= minGroup) {
        key = k;
        break;
      }
    }
    let g = groupIds.get(key);
    if (g === undefined) {
      groupIds.set(key, (g = linkingGroup.length));
      // a whole type is no like-for-like group (a 2025 unused mini excavator is not a 2006 CAT 320)
      linkingGroup.push((s.market ?? '') === levelMarket && (key.includes('|F:') || key.includes('|M:')));
    }
    const typeName = String(s.categoryId ?? 0);
    let t = typeIds.get(typeName);
    if (t === undefined) {
      typeIds.set(typeName, (t = typeNames.length));
      typeNames.push(typeName);
    }
    y[i] = Math.log(s.price);
    group[i] = g;
    type[i] = t;
    period[i] = periodOf(s.soldAt);
    hasAge[i] = s.year === null ? 0 : 1;
    age[i] = s.year === null ? 0 : Math.max(0, s.soldAt.getTime() / YEAR_MS + 1970 - s.year);
    inLevel[i] = (s.market ?? '') === levelMarket ? 1 : 0;
    soldAt[i] = s.soldAt.getTime();
  }
  groupCounts.clear();
  const groups = linkingGroup.length;
  const types = typeNames.length;
  // the periods each linking group sold in (a group sits in one market, so all its rows link or none do)
  const periodsOf = new Map<number, Set<number>>();
  for (let i = 0; i < n; i++) {
    if (!linkingGroup[group[i]!]) continue;
    let set = periodsOf.get(group[i]!);
    if (!set) periodsOf.set(group[i]!, (set = new Set()));
    set.add(period[i]!);
  }
  const multiPeriod = new Uint8Array(groups);
  for (const [g, set] of periodsOf) if (set.size > 1) multiPeriod[g] = 1;
  const levelPeriods = new Set<number>();
  for (let i = 0; i < n; i++) if (inLevel[i]) levelPeriods.add(period[i]!);
  const allPeriods = [...levelPeriods].sort((a, b) => a - b);
  const periodIndex = new Map(allPeriods.map((p, k) => [p, k]));
  const latest = allPeriods.length - 1;
  const level = new Float64Array(allPeriods.length);
  // the level each row reads: its period's, else (another market's sale) the level market's nearest earlier period's, else its first
  const slotOf = new Map<number, number>();
  const slot = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const p = period[i]!;
    let k = slotOf.get(p);
    if (k === undefined) {
      k = periodIndex.get(p);
      if (k === undefined) {
        k = 0;
        allPeriods.forEach((q, j) => q <= p && (k = j));
      }
      slotOf.set(p, k);
    }
    slot[i] = k;
  }
  const linked = new Map<number, number>();
  const salesIn = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    salesIn.set(period[i]!, (salesIn.get(period[i]!) ?? 0) + 1);
    if (multiPeriod[group[i]!]) linked.set(period[i]!, (linked.get(period[i]!) ?? 0) + 1);
  }
  const byGroup = groupRows(n, groups, (i) => group[i]!);
  // a period's level is learned from the rows of groups that link it to other periods only
  const byPeriod = groupRows(n, allPeriods.length, (i) => (multiPeriod[group[i]!] ? slot[i]! : -1));
  /** Types in the order their first aged sale comes (the order the depreciation is reported in). */
  const agedTypes: number[] = [];
  const seenType = new Uint8Array(types);
  for (let i = 0; i < n; i++) {
    if (hasAge[i] && !seenType[type[i]!]) {
      seenType[type[i]!] = 1;
      agedTypes.push(type[i]!);
    }
  }
  const groupLevel = new Float64Array(groups);
  const slope = new Float64Array(types);
  const slopeFitted = new Map<string, number>();
  const scratch = new Float64Array(n);
  const sxy = new Float64Array(types);
  const sxx = new Float64Array(types);
  const sx = new Float64Array(types);
  const sy = new Float64Array(types);
  const rowsOfType = new Float64Array(types);
  const ageTerm = (i: number) => (hasAge[i] ? slope[type[i]!]! * age[i]! : 0);
  for (let it = 0; it < iterations; it++) {
    for (let g = 0; g < groups; g++) {
      const from = byGroup.start[g]!;
      const to = byGroup.start[g + 1]!;
      for (let j = from; j < to; j++) {
        const i = byGroup.rows[j]!;
        scratch[j] = y[i]! - ageTerm(i) - level[slot[i]!]!;
      }
      groupLevel[g] = medianOf(scratch, from, to);
    }
    // depreciation per type: least squares of what is left on age (rows that state a year), summed in row order
    sxy.fill(0);
    sxx.fill(0);
    sx.fill(0);
    sy.fill(0);
    rowsOfType.fill(0);
    for (let i = 0; i < n; i++) {
      if (!hasAge[i]) continue;
      const t = type[i]!;
      const a = age[i]!;
      const e = y[i]! - groupLevel[group[i]!]! - level[slot[i]!]!;
      sxy[t] = sxy[t]! + a * e;
      sxx[t] = sxx[t]! + a * a;
      sx[t] = sx[t]! + a;
      sy[t] = sy[t]! + e;
      rowsOfType[t] = rowsOfType[t]! + 1;
    }
    for (const t of agedTypes) {
      const den = sxx[t]! - (sx[t]! * sx[t]!) / rowsOfType[t]!;
      if (rowsOfType[t]! >= 20 && den > 0) {
        slope[t] = Math.min(0, (sxy[t]! - (sx[t]! * sy[t]!) / rowsOfType[t]!) / den);
        slopeFitted.set(typeNames[t]!, slope[t]!);
      }
    }
    for (let k = 0; k < allPeriods.length; k++) {
      const from = byPeriod.start[k]!;
      const to = byPeriod.start[k + 1]!;
      if (to - from < 10) continue;
      for (let j = from; j < to; j++) {
        const i = byPeriod.rows[j]!;
        scratch[j] = y[i]! - groupLevel[group[i]!]! - ageTerm(i);
      }
      level[k] = medianOf(scratch, from, to);
    }
    const anchor = level[latest]!;
    for (let k = 0; k < allPeriods.length; k++) level[k] = level[k]! - anchor;
  }
  const levelAt = (p: number) => level[periodIndex.get(p)!]!;
  // Periods are comparable only within a run of periods that like-for-like groups link (union-find).
  // Between runs the data measure nothing: the level is carried flat across such a gap instead of
  // being guessed, and the gap is reported.
  const parent = new Map<number, number>(allPeriods.map((p) => [p, p]));
  const find = (p: number): number => (parent.get(p) === p ? p : find(parent.get(p)!));
  for (const periods of periodsOf.values()) {
    const list = [...periods];
    for (const p of list.slice(1)) parent.set(find(p), find(list[0]!));
  }
  const linkedPeriods = allPeriods.filter((p) => (linked.get(p) ?? 0) >= 10);
  // like-for-like pairs across `before` (per group, the smaller side): what measures the step there
  const early = new Int32Array(groups);
  const late = new Int32Array(groups);
  const bridging = (before: number) => {
    early.fill(0);
    late.fill(0);
    for (let i = 0; i < n; i++) {
      if (!linkingGroup[group[i]!]) continue;
      const g = group[i]!;
      if (period[i]! <= before) early[g] = early[g]! + 1;
      else late[g] = late[g]! + 1;
    }
    let pairs = 0;
    for (let g = 0; g < groups; g++) pairs += Math.min(early[g]!, late[g]!);
    return pairs;
  };
  const runs: number[][] = [];
  for (const p of linkedPeriods) {
    const run = runs.at(-1);
    if (run && find(run[0]!) === find(p) && bridging(run.at(-1)!) >= MIN_BRIDGING_SALES) run.push(p);
    else runs.push([p]);
  }
  // chain runs from the latest backwards: each run's last period sits at the next run's first level
  const chained = new Map<number, number>();
  let nextFirst = 0;
  for (let k = runs.length - 1; k >= 0; k--) {
    const run = runs[k]!;
    const shift = nextFirst - levelAt(run.at(-1)!);
    for (const p of run) chained.set(p, round4(levelAt(p) + shift));
    nextFirst = chained.get(run[0]!)!;
  }
  // each period's level sits at its sales' median date (a period of data may cover only its first months)
  const timesIn = groupRows(n, allPeriods.length, (i) => (inLevel[i] ? slot[i]! : -1));
  const timesOf = (p: number) => {
    const k = periodIndex.get(p)!;
    const from = timesIn.start[k]!;
    const to = timesIn.start[k + 1]!;
    const times = new Float64Array(to - from);
    for (let j = from; j < to; j++) times[j - from] = soldAt[timesIn.rows[j]!]!;
    return times;
  };
  const points = linkedPeriods.map((p) => {
    const times = timesOf(p);
    return { at: new Date(medianOf(times, 0, times.length)).toISOString(), log: chained.get(p)! };
  });
  const lastLinked = linkedPeriods.at(-1);
  const label = (p: number) => monthLabel(p * periodMonths);
  const runLabel = (run: number[]) => (periodMonths === 12 ? `${label(run[0]!).slice(0, 4)}–${label(run.at(-1)!).slice(0, 4)}` : `${label(run[0]!)}–${label(run.at(-1)!)}`);
  return {
    points,
    depreciation: Object.fromEntries([...slopeFitted].map(([t, v]) => [t, round4(v)])),
    ...(lastLinked !== undefined ? { marketAsOf: monthLabel(monthOf(new Date(timesOf(lastLinked).reduce((a, b) => (b > a ? b : a), -Infinity)))), market: levelMarket || undefined } : {}),
    method:
      `hedonic time-dummy over ${periodMonths === 12 ? 'sale years' : `${periodMonths}-month periods`} of ${levelMarket || 'all'} sales: log price = group (family, else make, else type; within market, unused apart) + type depreciation × age + period level; alternating medians; ` +
      `linked runs ${runs.map(runLabel).join(', ')}, level carried flat between runs and after the last`,
    years: allPeriods.map((p) => ({
      year: Math.floor((p * periodMonths) / 12),
      period: label(p),
      log: chained.get(p) ?? NaN,
      sales: salesIn.get(p) ?? 0,
      linked: linked.get(p) ?? 0,
    })),
  };
}

/** Fewer like-for-like sales than this on both sides of a year boundary and the step there is not measured. */
const MIN_BRIDGING_SALES = 30;

const round4 = (v: number) => Math.round(v * 10_000) / 10_000;
