/**
 * Comparables: the recent sales most like a listing — same type, same model (or family), near
 * in year and hours — shown as the explanation of its fair value.
 */
import { normaliseModel } from './features.js';

export type ComparableCandidate = {
  title: string;
  make?: string | null;
  model: string | null;
  modelFamily: string | null;
  year: number | null;
  hours: number | null;
  price: number;
  soldAt: Date;
  /** Shown to the buyer: the auction site, or the dataset for imported history. */
  source: string;
  url: string | null;
};

export type ComparableTarget = { make?: string | null; model: string | null; modelFamily: string | null; year: number | null; hours: number | null };

export type RankedComparable = ComparableCandidate & { distance: number; machineDistance: number; ageYears: number };

const YEAR_MS = 365.25 * 24 * 3600 * 1000;

/**
 * How unlike the listing a sale's machine is: a different exact model costs 1, each year of model
 * year 0.25, hours by their log ratio (an unknown value costs a fixed amount).
 */
export function machineDistance(target: ComparableTarget, sale: ComparableCandidate): number {
  const sameModel = normaliseModel(target.model) !== null && normaliseModel(target.model) === normaliseModel(sale.model);
  let d = sameModel ? 0 : 1;
  d += target.year !== null && sale.year !== null ? Math.abs(target.year - sale.year) * 0.25 : 0.75;
  d += target.hours !== null && sale.hours !== null ? Math.abs(Math.log((target.hours + 100) / (sale.hours + 100))) : 0.5;
  return d;
}

export function saleAgeYears(sale: ComparableCandidate, now: Date): number {
  return Math.max(0, (now.getTime() - sale.soldAt.getTime()) / YEAR_MS);
}

/** Ranking: the machine's distance plus 0.1 per year since the sale (a recent sale says more about today). */
export function comparableDistance(target: ComparableTarget, sale: ComparableCandidate, now: Date): number {
  return machineDistance(target, sale) + saleAgeYears(sale, now) * 0.1;
}

/**
 * The `limit` closest candidates that share the model or family, closest first. A listing that
 * names no model (a trailer, a forklift by its make only) compares with sales of the same make.
 */
export function selectComparables(target: ComparableTarget, candidates: ComparableCandidate[], now: Date, limit = 5): RankedComparable[] {
  const model = normaliseModel(target.model);
  const family = normaliseModel(target.modelFamily);
  const make = model === null && family === null ? normaliseModel(target.make) : null;
  return candidates
    .filter(
      (c) =>
        (family !== null && normaliseModel(c.modelFamily) === family) ||
        (model !== null && normaliseModel(c.model) === model) ||
        (make !== null && normaliseModel(c.make) === make),
    )
    .map((c) => ({ ...c, distance: comparableDistance(target, c, now), machineDistance: machineDistance(target, c), ageYears: saleAgeYears(c, now) }))
    .sort((a, b) => a.distance - b.distance || b.soldAt.getTime() - a.soldAt.getTime())
    .slice(0, limit);
}

/**
 * How much the comparables support a valuation, 0–1. Likeness: each comparable counts for less
 * the less alike its machine is; about five close ones give nearly full support. Age: support
 * falls as the comparables get older (median age), to half for very old sales.
 */
export function comparablesSupport(ranked: RankedComparable[]): number {
  if (ranked.length === 0) return 0;
  const likeness = comparablesLikeness(ranked);
  const ages = ranked.map((c) => c.ageYears).sort((a, b) => a - b);
  const medianAge = ages[Math.floor(ages.length / 2)]!;
  return likeness * (0.5 + 0.5 * Math.exp(-medianAge / 5));
}

/** A comparable's weight: 1 for the same model, year and hours, less the less alike its machine is. */
const likenessWeight = (c: { machineDistance: number }) => Math.exp(-c.machineDistance / 2);

/** How many comparables the listing has, each counted by its likeness (five of the same model, year and hours count 5). */
export function comparablesWeight(ranked: { machineDistance: number }[]): number {
  return ranked.reduce((sum, c) => sum + likenessWeight(c), 0);
}

/**
 * How alike the comparables are to the listing, 0–1: each counts for less the less alike its
 * machine is; five of the same model, year and hours give 0.92, one alone 0.39.
 */
export function comparablesLikeness(ranked: { machineDistance: number }[]): number {
  return 1 - Math.exp(-comparablesWeight(ranked) / 2);
}

/**
 * What the comparables say the listing is worth, as log(1 + price): the mean of their today prices
 * weighted by likeness, each first adjusted for how much older or newer its machine is than the
 * listing's (`ageRatio`: the listing's worth over the comparable's by age alone). Null without any.
 */
export function comparablesLogValue(comps: { today: number; machineDistance: number; ageRatio: number }[]): number | null {
  let weights = 0;
  let sum = 0;
  for (const c of comps) {
    if (!(c.today > 0) || !Number.isFinite(c.ageRatio)) continue;
    const w = likenessWeight(c);
    weights += w;
    sum += w * Math.log1p(c.today * c.ageRatio);
  }
  return weights > 0 ? sum / weights : null;
}
