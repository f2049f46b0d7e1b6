/**
 * The list's price delivered, as one number per lot: what the detail's `delivered` says
 * (services/valuation/delivered-price.ts) reduced to the totals a list filters and sorts by —
 * the same arithmetic, step by step, so a card, the index and the detail never disagree by a
 * cent. The list takes the **high** end of the haul (a buyer setting "at most $X delivered"
 * wants the lot to fit even if the carrier quotes high). And "worth the trip" the same way:
 * worthTheTrip() with the haul's high estimate, the discount counted in whole cents (so the
 * rule is exact, as PostgreSQL's numeric is). Pure.
 */
import { WEIGHT_CLASSES, haulEstimate, type WeightClass } from '../shared/rules/freight-rates.js';

/** A weight class as a small code (its place in WEIGHT_CLASSES), as the index stores it. */
export function weightCode(weight: WeightClass): number {
  return WEIGHT_CLASSES.indexOf(weight);
}

/** price + the stated buyer's premium (deliveredPrice's `price + premium`; the premium rounded to the cent). */
export function deliveredBase(price: number, buyersPremiumPct: number | null): number {
  const premium = buyersPremiumPct !== null ? Math.round(price * buyersPremiumPct) / 100 : 0;
  return price + premium;
}

/** base + haul, to the cent (deliveredPrice's total_low / total_high). */
export function deliveredTotal(base: number, haul: number): number {
  return Math.round((base + haul) * 100) / 100;
}

/** The delivered totals of a lot at a distance; null without a price or a place. */
export function deliveredTotals(lot: {
  price: number | null;
  buyersPremiumPct: number | null;
  weight: WeightClass;
  distanceMiles: number | null;
}): { low: number; high: number } | null {
  if (lot.price === null || lot.distanceMiles === null) return null;
  const haul = haulEstimate(lot.weight, lot.distanceMiles);
  const base = deliveredBase(lot.price, lot.buyersPremiumPct);
  return { low: deliveredTotal(base, haul.low), high: deliveredTotal(base, haul.high) };
}

/**
 * The discount under fair value in whole dollars, rounded up: `fair − price > haul` holds exactly
 * when this is > haul for a whole-dollar haul (hauls are whole tens). Computed in cents, so it is
 * exact for prices in cents. null without both.
 */
export function discountDollarsUp(price: number | null, fairValue: number | null): number | null {
  if (price === null || fairValue === null) return null;
  const cents = Math.round(fairValue * 100) - Math.round(price * 100);
  return Math.ceil(cents / 100);
}

/** Worth the trip (worthTheTrip() with the haul's high estimate), exact in cents. */
export function worthTheTripExact(price: number | null, fairValue: number | null, haulHigh: number): boolean {
  const discount = discountDollarsUp(price, fairValue);
  return discount !== null && discount > haulHigh;
}
