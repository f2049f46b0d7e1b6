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

export function priceLevel(index: PriceIndex | undefined, at: Date): number {
  const points = index?.points ?? [];
  if (points.length === 0) return 0;
  const t = at.getTime();
  const times = points.map((p) => Date.parse(p.at));
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

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
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
 */
export function estimatePriceIndex(sales: IndexSale[], opts: PriceIndexOptions = {}): PriceIndexEstimate {
  const iterations = opts.iterations ?? 12;
  const minGroup = opts.minGroup ?? 3;
  const periodMonths = Math.max(1, Math.floor(opts.periodMonths ?? 12));
  const usable = sales.filter((s) => s.price > 0 && Number.isFinite(s.price));
  if (usable.length === 0) return { points: [], years: [], method: 'no sales' };
  const marketCounts = new Map<string, number>();
  for (const s of usable) marketCounts.set(s.market ?? '', (marketCounts.get(s.market ?? '') ?? 0) + 1);
  const levelMarket = opts.levelMarket ?? [...marketCounts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
  const groupCounts = new Map<string, number>();
  const keysOf = (s: IndexSale) => {
    const c = `${s.market ?? ''}|${s.unused ? 'U' : ''}|${s.categoryId ?? 0}`;
    const keys: string[] = [];
    if (s.modelFamily) keys.push(`${c}|F:${s.modelFamily.toUpperCase()}`);
    if (s.make) keys.push(`${c}|M:${s.make.toUpperCase()}`);
    keys.push(c);
    return keys;
  };
  for (const s of usable) for (const k of keysOf(s)) groupCounts.set(k, (groupCounts.get(k) ?? 0) + 1);
  const periodOf = (d: Date) => Math.floor(monthOf(d) / periodMonths);
  const rows = usable.map((s) => {
    const group = keysOf(s).find((k) => (groupCounts.get(k) ?? 0) >= minGroup) ?? keysOf(s).at(-1)!;
    const age = s.year === null ? null : Math.max(0, s.soldAt.getTime() / YEAR_MS + 1970 - s.year);
    const inLevel = (s.market ?? '') === levelMarket;
    // a whole type is no like-for-like group (a 2025 unused mini excavator is not a 2006 CAT 320)
    const linking = inLevel && (group.includes('|F:') || group.includes('|M:'));
    return { y: Math.log(s.price), group, type: String(s.categoryId ?? 0), period: periodOf(s.soldAt), age, inLevel, linking, soldAt: s.soldAt };
  });
  const periodsOf = new Map<string, Set<number>>();
  for (const r of rows) {
    if (!r.linking) continue;
    let set = periodsOf.get(r.group);
    if (!set) periodsOf.set(r.group, (set = new Set()));
    set.add(r.period);
  }
  const allPeriods = [...new Set(rows.filter((r) => r.inLevel).map((r) => r.period))].sort((a, b) => a - b);
  const latestPeriod = allPeriods.at(-1)!;
  const level = new Map<number, number>(allPeriods.map((p) => [p, 0]));
  // another market's sale sits at the level market's nearest earlier period (carried flat), else its first
  const levelOf = (period: number) => {
    const own = level.get(period);
    if (own !== undefined) return own;
    let at = allPeriods[0]!;
    for (const p of allPeriods) if (p <= period) at = p;
    return level.get(at)!;
  };
  const groupLevel = new Map<string, number>();
  const slope = new Map<string, number>();
  const linked = new Map<number, number>();
  for (const r of rows) if ((periodsOf.get(r.group)?.size ?? 0) > 1) linked.set(r.period, (linked.get(r.period) ?? 0) + 1);
  type Row = (typeof rows)[number];
  const by = <K>(key: (r: Row) => K | null, value: (r: Row) => number) => {
    const out = new Map<K, number[]>();
    for (const r of rows) {
      const k = key(r);
      if (k === null) continue;
      let list = out.get(k);
      if (!list) out.set(k, (list = []));
      list.push(value(r));
    }
    return out;
  };
  const ageTerm = (r: Row) => (r.age === null ? 0 : (slope.get(r.type) ?? 0) * r.age);
  for (let it = 0; it < iterations; it++) {
    for (const [g, v] of by((r) => r.group, (r) => r.y - ageTerm(r) - levelOf(r.period))) groupLevel.set(g, median(v));
    // depreciation per type: least squares of what is left on age (rows that state a year)
    const sums = new Map<string, { sxy: number; sxx: number; sx: number; sy: number; n: number }>();
    for (const r of rows) {
      if (r.age === null) continue;
      const e = r.y - groupLevel.get(r.group)! - levelOf(r.period);
      const acc = sums.get(r.type) ?? { sxy: 0, sxx: 0, sx: 0, sy: 0, n: 0 };
      acc.sxy += r.age * e;
      acc.sxx += r.age * r.age;
      acc.sx += r.age;
      acc.sy += e;
      acc.n += 1;
      sums.set(r.type, acc);
    }
    for (const [t, a] of sums) {
      const den = a.sxx - (a.sx * a.sx) / a.n;
      if (a.n >= 20 && den > 0) slope.set(t, Math.min(0, (a.sxy - (a.sx * a.sy) / a.n) / den));
    }
    // a period's level from the groups that link it to other periods only
    const fitted = by(
      (r) => ((periodsOf.get(r.group)?.size ?? 0) > 1 ? r.period : null),
      (r) => r.y - groupLevel.get(r.group)! - ageTerm(r),
    );
    for (const p of allPeriods) {
      const v = fitted.get(p);
      if (v && v.length >= 10) level.set(p, median(v));
    }
    const anchor = level.get(latestPeriod)!;
    for (const p of allPeriods) level.set(p, level.get(p)! - anchor);
  }
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
  const bridging = (before: number) => {
    const sides = new Map<string, [number, number]>();
    for (const r of rows) {
      if (!periodsOf.has(r.group)) continue;
      const side = sides.get(r.group) ?? [0, 0];
      side[r.period <= before ? 0 : 1]++;
      sides.set(r.group, side);
    }
    let n = 0;
    for (const [early, late] of sides.values()) n += Math.min(early, late);
    return n;
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
    const shift = nextFirst - level.get(run.at(-1)!)!;
    for (const p of run) chained.set(p, round4(level.get(p)! + shift));
    nextFirst = chained.get(run[0]!)!;
  }
  // each period's level sits at its sales' median date (a period of data may cover only its first months)
  const timesOf = (p: number) => rows.filter((r) => r.inLevel && r.period === p).map((r) => r.soldAt.getTime());
  const points = linkedPeriods.map((p) => ({ at: new Date(median(timesOf(p))).toISOString(), log: chained.get(p)! }));
  const lastLinked = linkedPeriods.at(-1);
  const label = (p: number) => monthLabel(p * periodMonths);
  const runLabel = (run: number[]) => (periodMonths === 12 ? `${label(run[0]!).slice(0, 4)}–${label(run.at(-1)!).slice(0, 4)}` : `${label(run[0]!)}–${label(run.at(-1)!)}`);
  return {
    points,
    depreciation: Object.fromEntries([...slope].map(([t, v]) => [t, round4(v)])),
    ...(lastLinked !== undefined ? { marketAsOf: monthLabel(monthOf(new Date(Math.max(...timesOf(lastLinked))))), market: levelMarket || undefined } : {}),
    method:
      `hedonic time-dummy over ${periodMonths === 12 ? 'sale years' : `${periodMonths}-month periods`} of ${levelMarket || 'all'} sales: log price = group (family, else make, else type; within market, unused apart) + type depreciation × age + period level; alternating medians; ` +
      `linked runs ${runs.map(runLabel).join(', ')}, level carried flat between runs and after the last`,
    years: allPeriods.map((p) => ({
      year: Math.floor((p * periodMonths) / 12),
      period: label(p),
      log: chained.get(p) ?? NaN,
      sales: rows.filter((r) => r.period === p).length,
      linked: linked.get(p) ?? 0,
    })),
  };
}

/** Fewer like-for-like sales than this on both sides of a year boundary and the step there is not measured. */
const MIN_BRIDGING_SALES = 30;

const round4 = (v: number) => Math.round(v * 10_000) / 10_000;
