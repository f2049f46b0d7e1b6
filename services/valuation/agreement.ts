/**
 * One story on the deal page: the fair value, its range and the comparables shown beside it should
 * agree. The comparables are the evidence the value rests on; when the fair value falls outside the
 * span of their "today" prices, the page says why in one line (the lot is newer, or has fewer
 * hours, than those sales), and a lot without a year or without comparables says how it was valued.
 * Pure: the API calls it with what the scorer stored.
 */

/**
 * `impaired`: the listing says the machine does not work or is sold for parts (lot-neighbours.ts,
 * `impairedLot`); `reserve`: it is sold subject to the seller's confirmation (`reserveLot`).
 */
export type AgreementTarget = { year: number | null; hours: number | null; impaired?: boolean; reserve?: boolean };
/** A comparable as stored: its price today and, for those scored since it was stored, its machine's year and hours. */
export type AgreementComparable = { price: number; year?: number | null; hours?: number | null };
export type Agreement = { position: 'none' | 'below' | 'within' | 'above'; note: string | null };

function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** How unlike the comparables the lot is, in words: ['newer', 'fewer hours'] or ['older', 'more hours']. */
function differences(target: AgreementTarget, comparables: AgreementComparable[], direction: 'above' | 'below'): string[] {
  const years = comparables.flatMap((c) => (typeof c.year === 'number' ? [c.year] : []));
  const hours = comparables.flatMap((c) => (typeof c.hours === 'number' ? [c.hours] : []));
  const medianYear = median(years);
  const medianHours = median(hours);
  const out: string[] = [];
  if (target.year !== null && medianYear !== null) {
    if (direction === 'above' && target.year >= medianYear + 1) out.push('newer');
    if (direction === 'below' && target.year <= medianYear - 1) out.push('older');
  }
  if (target.hours !== null && medianHours !== null) {
    if (direction === 'above' && (target.hours + 100) * 1.25 <= medianHours + 100) out.push('fewer hours');
    if (direction === 'below' && (target.hours + 100) >= (medianHours + 100) * 1.25) out.push('more hours');
  }
  return out;
}

/**
 * Where the fair value lies against its comparables' today prices, and the one line the deal
 * page shows (null when there is nothing to explain).
 */
export function valuationAgreement(target: AgreementTarget, fairValue: number, comparables: AgreementComparable[]): Agreement {
  const prices = comparables.map((c) => c.price).filter((p) => Number.isFinite(p) && p > 0);
  const noYear = target.year === null ? 'No year given: valued from its model, hours and description, so the value is less certain.' : null;
  if (prices.length === 0) return { position: 'none', note: noYear ?? 'Valued from its type, make and description: no sales of this model to compare with yet.' };
  const low = Math.min(...prices);
  const high = Math.max(...prices);
  // rounding: the stored fair value and today prices are whole dollars
  const position = fairValue > high * 1.005 ? 'above' : fairValue < low * 0.995 ? 'below' : 'within';
  if (position === 'within') return { position, note: noYear };
  const why = differences(target, comparables, position);
  // an impaired lot is valued under working ones, a reserve lot over lots sold outright, each by its
  // source's measured shift (lot-neighbours.ts): say so first
  const line =
    position === 'below' && target.impaired
      ? 'The listing says it does not work, is sold for parts or with its contents, so valued below these sales.'
      : position === 'above' && target.reserve
      ? "Sold subject to the seller's confirmation (a reserve), as lots that fetch more are, so valued above these sales."
      : why.length > 0
      ? `${why.join(' and ').replace(/^./, (c) => c.toUpperCase())} than these sales, so valued ${position} them.`
      : `Valued ${position} these sales: the value also weighs the type's other sales and what the listing says.`;
  return { position, note: noYear ? `${noYear} ${line}` : line };
}
