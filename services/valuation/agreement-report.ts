/**
 * Does the deal page tell one story (issue 28)? Per source and over all sources: of the scored
 * listings, how many have comparables, whether the fair value lies within, above or below the
 * span of those comparables' today prices, how far the fair value sits from the median
 * comparable, which notes the page shows, and the deal levels ("most lots are Fair").
 *
 * Measured on what the deal page shows: the comparables as the detail route returns them
 * (`toComparables`), placed by the rule the page's note uses (`valuationAgreement`), and the note
 * itself (`valuationNote`). Pure and incremental: the CLI feeds it pages of rows, so a million
 * listings' comparables are never held at once (it keeps one number per listing with comparables,
 * for the median).
 */
import { dealLevel, toComparables, valuationNote } from '../listings/listing-rules.js';
import { valuationAgreement } from './agreement.js';
import type { AgreementRow } from '../shared/repositories/agreement-repository.js';

export type { AgreementRow } from '../shared/repositories/agreement-repository.js';

/** The kinds of the page's one line (a note may be of two: no year, then why it lies outside). */
export const NOTE_KINDS = ['noYear', 'unlike', 'alsoWeighs', 'impaired', 'reserve', 'noComparables'] as const;
export type NoteKind = (typeof NOTE_KINDS)[number];

/**
 * The kinds of a note the page shows, read from its words (agreement.ts writes them):
 * `unlike` is "newer / older / fewer hours / more hours than these sales".
 */
export function noteKinds(note: string | null): NoteKind[] {
  if (!note) return [];
  const kinds: NoteKind[] = [];
  if (/^No year given\b/.test(note)) kinds.push('noYear');
  if (/ than these sales, so valued (above|below) them\./.test(note)) kinds.push('unlike');
  if (/the value also weighs/.test(note)) kinds.push('alsoWeighs');
  if (/The listing says it does not work/.test(note)) kinds.push('impaired');
  if (/Sold subject to the seller's confirmation/.test(note)) kinds.push('reserve');
  if (/no sales of this model to compare with/.test(note)) kinds.push('noComparables');
  return kinds;
}

export type SourceAgreement = {
  source: string;
  /** Listings in scope (open ones, or every status with `--all`). */
  listings: number;
  /** With a deal score (what carries a level). */
  scored: number;
  /** With a fair value (what the page shows a valuation for). */
  valued: number;
  /** Valued, with at least one comparable the page shows, priced. */
  withComparables: number;
  within: number;
  above: number;
  below: number;
  /** within / withComparables (null when none). */
  withinShare: number | null;
  aboveShare: number | null;
  belowShare: number | null;
  /** Median over listings with comparables of ln(fair value / median comparable today price). */
  medianLogRatio: number | null;
  /** The same as a percentage difference: e^median − 1 (0.006 → +0.6%). */
  medianPercent: number | null;
  /** Valued listings whose page shows a note, and how many notes of each kind. */
  notes: { total: number } & Record<NoteKind, number>;
  levels: { excellent: number; good: number; fair: number; poor: number; unscored: number };
  /** fair / scored (null when none scored). */
  fairShare: number | null;
};

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = Float64Array.from(values).sort();
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

const share = (part: number, whole: number) => (whole === 0 ? null : part / whole);

/** One listing as the deal page shows it: its position against its comparables, its log ratio to their median, its note's kinds, its level. */
export function assessListing(row: AgreementRow): {
  position: 'none' | 'below' | 'within' | 'above' | null;
  logRatio: number | null;
  kinds: NoteKind[];
  level: 'excellent' | 'good' | 'fair' | 'poor' | 'unscored';
} {
  const level = dealLevel(row.dealScore) ?? 'unscored';
  if (row.fairValue === null) return { position: null, logRatio: null, kinds: [], level };
  // the page's comparables, then the prices valuationAgreement counts (finite, positive)
  const prices = toComparables(row.comparables)
    .map((c) => c.price)
    .filter((p) => Number.isFinite(p) && p > 0);
  const { position } = valuationAgreement({ year: row.year, hours: row.hours }, row.fairValue, prices.map((price) => ({ price })));
  const mid = median(prices);
  const logRatio = mid !== null && row.fairValue > 0 ? Math.log(row.fairValue / mid) : null;
  return { position, logRatio, kinds: noteKinds(valuationNote(row)), level };
}

type Tally = {
  listings: number;
  scored: number;
  valued: number;
  within: number;
  above: number;
  below: number;
  logRatios: number[];
  noted: number;
  kinds: Record<NoteKind, number>;
  levels: SourceAgreement['levels'];
};

const emptyTally = (): Tally => ({
  listings: 0,
  scored: 0,
  valued: 0,
  within: 0,
  above: 0,
  below: 0,
  logRatios: [],
  noted: 0,
  kinds: { noYear: 0, unlike: 0, alsoWeighs: 0, impaired: 0, reserve: 0, noComparables: 0 },
  levels: { excellent: 0, good: 0, fair: 0, poor: 0, unscored: 0 },
});

function count(t: Tally, a: ReturnType<typeof assessListing>): void {
  t.listings++;
  t.levels[a.level]++;
  if (a.level !== 'unscored') t.scored++;
  if (a.position === null) return;
  t.valued++;
  if (a.position !== 'none') t[a.position]++;
  if (a.logRatio !== null) t.logRatios.push(a.logRatio);
  if (a.kinds.length > 0) t.noted++;
  for (const k of a.kinds) t.kinds[k]++;
}

function summary(source: string, t: Tally): SourceAgreement {
  const withComparables = t.within + t.above + t.below;
  const m = median(t.logRatios);
  return {
    source,
    listings: t.listings,
    scored: t.scored,
    valued: t.valued,
    withComparables,
    within: t.within,
    above: t.above,
    below: t.below,
    withinShare: share(t.within, withComparables),
    aboveShare: share(t.above, withComparables),
    belowShare: share(t.below, withComparables),
    medianLogRatio: m,
    medianPercent: m === null ? null : Math.exp(m) - 1,
    notes: { total: t.noted, ...t.kinds },
    levels: { ...t.levels },
    fairShare: share(t.levels.fair, t.scored),
  };
}

/** Rows in, page by page; `summaries()`: one per source (by name), then `all` when any row came. */
export class AgreementTally {
  private readonly bySource = new Map<string, Tally>();
  private readonly all = emptyTally();

  add(rows: Iterable<AgreementRow>): void {
    for (const row of rows) {
      const a = assessListing(row);
      let t = this.bySource.get(row.source);
      if (!t) this.bySource.set(row.source, (t = emptyTally()));
      count(t, a);
      count(this.all, a);
    }
  }

  summaries(): SourceAgreement[] {
    const out = [...this.bySource.keys()].sort().map((s) => summary(s, this.bySource.get(s)!));
    if (this.bySource.size > 0) out.push(summary('all', this.all));
    return out;
  }
}

/** The whole report of some rows at once (tests, small inputs). */
export function summarizeAgreement(rows: Iterable<AgreementRow>): SourceAgreement[] {
  const tally = new AgreementTally();
  tally.add(rows);
  return tally.summaries();
}
