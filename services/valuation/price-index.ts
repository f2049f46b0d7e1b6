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

export type IndexSale = { categoryId: number | null; make: string | null; modelFamily: string | null; year: number | null; soldAt: Date; price: number };

export type PriceIndexEstimate = PriceIndex & {
  /** Sale years with their log level, sales and how many of them sit in groups sold in other years too. */
  years: { year: number; log: number; sales: number; linked: number }[];
};

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/**
 * A hedonic time-dummy index, fitted robustly: log price = machine group + type's depreciation ×
 * age + the sale year's level. Groups are the family within its type when known, else the make
 * within its type, else the type, so a year's level is learned only from groups that also sold in
 * other years: what both periods share. Fitted by alternating medians (robust to the odd mislabelled
 * sale); each year's level is shrunk towards its neighbours' by `shrink` pseudo-sales, and a year
 * whose groups sold in no other year (nothing links it) keeps the level interpolated from the
 * years that are linked. Levels are relative to the latest sale year (0).
 */
export function estimatePriceIndex(sales: IndexSale[], opts: { iterations?: number; minGroup?: number } = {}): PriceIndexEstimate {
  const iterations = opts.iterations ?? 12;
  const minGroup = opts.minGroup ?? 3;
  const usable = sales.filter((s) => s.price > 0 && Number.isFinite(s.price));
  if (usable.length === 0) return { points: [], years: [], method: 'no sales' };
  const groupCounts = new Map<string, number>();
  const keysOf = (s: IndexSale) => {
    const c = s.categoryId ?? 0;
    const keys: string[] = [];
    if (s.modelFamily) keys.push(`${c}|F:${s.modelFamily.toUpperCase()}`);
    if (s.make) keys.push(`${c}|M:${s.make.toUpperCase()}`);
    keys.push(`${c}`);
    return keys;
  };
  for (const s of usable) for (const k of keysOf(s)) groupCounts.set(k, (groupCounts.get(k) ?? 0) + 1);
  const rows = usable.map((s) => {
    const saleYear = s.soldAt.getUTCFullYear();
    const group = keysOf(s).find((k) => (groupCounts.get(k) ?? 0) >= minGroup) ?? keysOf(s).at(-1)!;
    const age = s.year === null ? null : Math.max(0, s.soldAt.getTime() / YEAR_MS + 1970 - s.year);
    return { y: Math.log(s.price), group, type: String(s.categoryId ?? 0), saleYear, age };
  });
  // A whole type is no like-for-like group (a 2025 unused mini excavator is not a 2006 CAT 320):
  // type-level groups get their own level but never link years.
  const yearsOf = new Map<string, Set<number>>();
  for (const r of rows) {
    if (!r.group.includes('|')) continue;
    let set = yearsOf.get(r.group);
    if (!set) yearsOf.set(r.group, (set = new Set()));
    set.add(r.saleYear);
  }
  const allYears = [...new Set(rows.map((r) => r.saleYear))].sort((a, b) => a - b);
  const latestYear = allYears.at(-1)!;
  const level = new Map<number, number>(allYears.map((y) => [y, 0]));
  const groupLevel = new Map<string, number>();
  const slope = new Map<string, number>();
  const linked = new Map<number, number>();
  for (const r of rows) if ((yearsOf.get(r.group)?.size ?? 0) > 1) linked.set(r.saleYear, (linked.get(r.saleYear) ?? 0) + 1);
  const by = <K>(key: (r: (typeof rows)[number]) => K | null, value: (r: (typeof rows)[number]) => number) => {
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
  const ageTerm = (r: (typeof rows)[number]) => (r.age === null ? 0 : (slope.get(r.type) ?? 0) * r.age);
  for (let it = 0; it < iterations; it++) {
    for (const [g, v] of by((r) => r.group, (r) => r.y - ageTerm(r) - level.get(r.saleYear)!)) groupLevel.set(g, median(v));
    // depreciation per type: least squares of what is left on age (rows that state a year)
    const sums = new Map<string, { sxy: number; sxx: number; sx: number; sy: number; n: number }>();
    for (const r of rows) {
      if (r.age === null) continue;
      const e = r.y - groupLevel.get(r.group)! - level.get(r.saleYear)!;
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
    // a year's level from the groups that link it to other years only
    const fitted = by(
      (r) => ((yearsOf.get(r.group)?.size ?? 0) > 1 ? r.saleYear : null),
      (r) => r.y - groupLevel.get(r.group)! - ageTerm(r),
    );
    for (const y of allYears) {
      const v = fitted.get(y);
      if (v && v.length >= 10) level.set(y, median(v));
    }
    const anchor = level.get(latestYear)!;
    for (const y of allYears) level.set(y, level.get(y)! - anchor);
  }
  // Years are comparable only within a run of years that like-for-like groups link (union-find).
  // Between runs the data measure nothing (e.g. Fast Iron 2004–2012 and West Auctions 2024–2025
  // share 14 lots of 6 families, and those are different machines): the level is carried flat
  // across such a gap instead of being guessed, and the gap is reported.
  const parent = new Map<number, number>(allYears.map((y) => [y, y]));
  const find = (y: number): number => (parent.get(y) === y ? y : find(parent.get(y)!));
  for (const years of yearsOf.values()) {
    const list = [...years];
    for (const y of list.slice(1)) parent.set(find(y), find(list[0]!));
  }
  const linkedYears = allYears.filter((y) => (linked.get(y) ?? 0) >= 10);
  // like-for-like pairs across `before` (per group, the smaller side): what measures the step there
  const bridging = (before: number) => {
    const sides = new Map<string, [number, number]>();
    for (const r of rows) {
      if (!yearsOf.has(r.group)) continue;
      const side = sides.get(r.group) ?? [0, 0];
      side[r.saleYear <= before ? 0 : 1]++;
      sides.set(r.group, side);
    }
    let n = 0;
    for (const [early, late] of sides.values()) n += Math.min(early, late);
    return n;
  };
  const runs: number[][] = [];
  for (const y of linkedYears) {
    const run = runs.at(-1);
    if (run && find(run[0]!) === find(y) && bridging(run.at(-1)!) >= MIN_BRIDGING_SALES) run.push(y);
    else runs.push([y]);
  }
  // chain runs from the latest backwards: each run's last year sits at the next run's first level
  const chained = new Map<number, number>();
  let nextFirst = 0;
  for (let k = runs.length - 1; k >= 0; k--) {
    const run = runs[k]!;
    const shift = nextFirst - level.get(run.at(-1)!)!;
    for (const y of run) chained.set(y, round4(level.get(y)! + shift));
    nextFirst = chained.get(run[0]!)!;
  }
  // each year's level sits at its sales' median date (a year of data may cover only its first months)
  const medianDate = (y: number) => {
    const times = usable.filter((s) => s.soldAt.getUTCFullYear() === y).map((s) => s.soldAt.getTime());
    return new Date(median(times)).toISOString();
  };
  const points = linkedYears.map((y) => ({ at: medianDate(y), log: chained.get(y)! }));
  return {
    points,
    depreciation: Object.fromEntries([...slope].map(([t, v]) => [t, round4(v)])),
    method:
      'hedonic time-dummy: log price = group (family, else make, else type) + type depreciation × age + sale-year level; alternating medians; ' +
      `linked runs ${runs.map((r) => `${r[0]}–${r.at(-1)}`).join(', ')}, level carried flat between runs`,
    years: allYears.map((y) => ({ year: y, log: chained.get(y) ?? NaN, sales: rows.filter((r) => r.saleYear === y).length, linked: linked.get(y) ?? 0 })),
  };
}

/** Fewer like-for-like sales than this on both sides of a year boundary and the step there is not measured. */
const MIN_BRIDGING_SALES = 30;

const round4 = (v: number) => Math.round(v * 10_000) / 10_000;
