/**
 * How our claims fared on what the crawler saw close (issue 31): per source, of the lots that
 * closed in a window, the final price against the fair value we showed while the lot was open
 * and the deal level claimed then. Pure: rows in, figures out (the CLI reads the rows).
 */
import { badgeScore } from '../alerts/alert-matching.js';

export type OutcomeRow = {
  source: string;
  status: 'closed' | 'sold' | 'withdrawn' | 'open';
  finalPrice: number | null;
  fairValue: number | null;
  valueLow: number | null;
  valueHigh: number | null;
  dealScore: number | null;
};

export type SourceOutcomes = {
  source: string;
  closed: number;
  sold: number;
  unsold: number;
  withdrawn: number;
  /** Sold lots that carried a fair value when open. */
  valued: number;
  /** Median of final price / fair value over the valued sold lots (null when none). */
  medianFinalToFair: number | null;
  /** Share of valued sold lots whose final price fell in the 10–90% range shown. */
  inRange: number | null;
  /** Valued sold lots claimed good or better (badge ≥ 60) at the close, and the share of them that sold under the fair value. */
  goodOrBetter: number;
  goodOrBetterUnderFair: number | null;
  excellent: number;
  excellentUnderFair: number | null;
  /** The same share over every valued sold lot: what the claims are to beat. */
  allUnderFair: number | null;
};

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const share = (part: number, whole: number) => (whole === 0 ? null : part / whole);

function summarize(source: string, rows: OutcomeRow[]): SourceOutcomes {
  const sold = rows.filter((r) => r.status === 'sold' && r.finalPrice !== null && r.finalPrice > 0);
  const valued = sold.filter((r) => r.fairValue !== null && r.fairValue > 0);
  const under = (list: OutcomeRow[]) => list.filter((r) => r.finalPrice! < r.fairValue!).length;
  const ranged = valued.filter((r) => r.valueLow !== null && r.valueHigh !== null);
  const good = valued.filter((r) => r.dealScore !== null && badgeScore(r.dealScore) >= 60);
  const excellent = valued.filter((r) => r.dealScore !== null && badgeScore(r.dealScore) >= 80);
  return {
    source,
    closed: rows.length,
    sold: sold.length,
    unsold: rows.filter((r) => r.status === 'closed' || (r.status === 'sold' && !sold.includes(r))).length,
    withdrawn: rows.filter((r) => r.status === 'withdrawn').length,
    valued: valued.length,
    medianFinalToFair: median(valued.map((r) => r.finalPrice! / r.fairValue!)),
    inRange: share(ranged.filter((r) => r.finalPrice! >= r.valueLow! && r.finalPrice! <= r.valueHigh!).length, ranged.length),
    goodOrBetter: good.length,
    goodOrBetterUnderFair: share(under(good), good.length),
    excellent: excellent.length,
    excellentUnderFair: share(under(excellent), excellent.length),
    allUnderFair: share(under(valued), valued.length),
  };
}

/** One summary per source (by name), then `all` over every source. */
export function summarizeOutcomes(rows: OutcomeRow[]): SourceOutcomes[] {
  const bySource = new Map<string, OutcomeRow[]>();
  for (const r of rows) bySource.set(r.source, [...(bySource.get(r.source) ?? []), r]);
  const out = [...bySource.keys()].sort().map((s) => summarize(s, bySource.get(s)!));
  if (bySource.size > 0) out.push(summarize('all', rows));
  return out;
}

/** `30d`, `12h` or `2026-11-01` → the start of the window (relative ones from `now`). */
export function parseSince(value: string, now: Date): Date | null {
  const rel = /^(\d{1,4})([dh])$/.exec(value.trim());
  if (rel) return new Date(now.getTime() - Number(rel[1]) * (rel[2] === 'd' ? 86_400_000 : 3_600_000));
  if (/^\d{4}-\d{2}-\d{2}$/.test(value.trim())) {
    const d = new Date(`${value.trim()}T00:00:00Z`);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  return null;
}
