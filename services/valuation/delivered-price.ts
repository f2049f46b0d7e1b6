/**
 * The price delivered: what a lot costs the buyer at their door — the bid (or asking price), the
 * buyer's premium when the source states one, and the haul estimated from the machine's weight
 * class and the distance (freight.ts) — as a low–high range. The deal score is untouched by it (it
 * compares a lot with its market); "worth the trip" compares the discount with the haul. Pure.
 */
import { FREIGHT_RATES, haulEstimate, weightClass, type WeightClass } from '../shared/rules/freight-rates.js';

export type DeliveredPrice = {
  /** What the buyer pays the seller now before premium (current bid, else asking price); null: price on request. */
  price: number | null;
  /** The buyer's premium in USD, when the source states its rate; null when not stated. */
  premium: number | null;
  haul_low: number;
  haul_high: number;
  /** price + premium + haul; null without a price. */
  total_low: number | null;
  total_high: number | null;
  distance_miles: number;
  weight_class: WeightClass;
  /** How the haul was estimated, in a sentence a buyer reads. */
  basis: string;
};

const usd = (n: number) => `$${n.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;

export function deliveredPrice(lot: {
  price: number | null;
  buyersPremiumPct: number | null;
  categoryId: number;
  title: string;
  distanceMiles: number;
  /** How exactly the lot is placed: a state centroid makes the distance rough, and the basis says so. */
  precision?: 'zip' | 'city' | 'state';
}): DeliveredPrice {
  const weight = weightClass(lot.categoryId, lot.title);
  const haul = haulEstimate(weight, lot.distanceMiles);
  const rate = FREIGHT_RATES[weight];
  const premium = lot.price !== null && lot.buyersPremiumPct !== null ? Math.round(lot.price * lot.buyersPremiumPct) / 100 : null;
  const base = lot.price === null ? null : lot.price + (premium ?? 0);
  const where = lot.precision === 'state' ? " (the lot's state only is known: the distance is rough)" : '';
  return {
    price: lot.price,
    premium,
    haul_low: haul.low,
    haul_high: haul.high,
    total_low: base === null ? null : Math.round((base + haul.low) * 100) / 100,
    total_high: base === null ? null : Math.round((base + haul.high) * 100) / 100,
    distance_miles: lot.distanceMiles,
    weight_class: weight,
    basis:
      `A ${rate.label} machine on a ${rate.trailer}: about ${haul.roadMiles.toLocaleString('en-US')} road miles${where} ` +
      `at ${usd(rate.perMile[0])}–${usd(rate.perMile[1])} a mile, at least ${usd(rate.minimum[0])}–${usd(rate.minimum[1])}; ` +
      `published heavy-haul rates of 2025. An estimate, not a quote.` +
      (premium === null && lot.price !== null ? " The source states no buyer's premium: check its terms." : ''),
  };
}

/**
 * "Worth the trip": the lot's discount under its fair value exceeds the haul's high estimate, so
 * the bargain survives bringing it home. False without a fair value or a price. Counted in whole
 * cents, as prices are stored (numeric(14,2)): in floats, $1,100.13 − $100.13 is
 * 1000.0000000000001, "more" than a $1,000 haul. The list (delivered-total.ts) and the alert
 * matcher's SQL (numeric) decide the same way.
 */
export function worthTheTrip(lot: { price: number | null; fairValue: number | null }, haulHigh: number): boolean {
  if (lot.price === null || lot.fairValue === null) return false;
  return Math.round(lot.fairValue * 100) - Math.round(lot.price * 100) > Math.round(haulHigh * 100);
}
