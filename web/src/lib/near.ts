/**
 * Where the buyer is, on the screens: a distance as we can honestly state it ("about 40 mi", or
 * "~300 mi, state only" when the lot's source gives only its state), and the ZIP code the buyer
 * last searched near, remembered in this browser so the deal page can show the price delivered.
 */
import type { LocationPrecision } from './listing-types.js';

export const RADIUS_OPTIONS = [25, 50, 100, 150, 300, 500, 1000] as const;

export function distanceText(miles: number | null | undefined, precision: LocationPrecision | null | undefined): string | null {
  if (miles === null || miles === undefined || !precision) return null;
  const rounded = miles < 10 ? Math.max(1, Math.round(miles)) : Math.round(miles / 5) * 5;
  return precision === 'state' ? `~${rounded.toLocaleString('en-US')} mi, state only` : `about ${rounded.toLocaleString('en-US')} mi`;
}

/** A card's delivered total as a range of whole dollars ("≈ $58,300–$60,000 delivered"); null without one. */
export function deliveredRangeText(low: number | null | undefined, high: number | null | undefined): string | null {
  if (typeof low !== 'number' || typeof high !== 'number' || !Number.isFinite(low) || !Number.isFinite(high)) return null;
  const usd = (n: number) => `$${Math.round(n).toLocaleString('en-US')}`;
  return Math.round(low) === Math.round(high) ? `≈ ${usd(high)} delivered` : `≈ ${usd(low)}–${usd(high)} delivered`;
}

const KEY = 'dealradar.nearZip';

export function rememberNearZip(zip: string): void {
  try {
    if (zip) localStorage.setItem(KEY, zip);
    else localStorage.removeItem(KEY);
  } catch {
    // storage unavailable (private mode): the URL still carries it
  }
}

export function rememberedNearZip(): string {
  try {
    const zip = localStorage.getItem(KEY) ?? '';
    return /^\d{5}$/.test(zip) ? zip : '';
  } catch {
    return '';
  }
}
