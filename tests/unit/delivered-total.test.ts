import { describe, expect, it } from 'vitest';
import { deliveredTotals, discountDollarsUp, worthTheTripExact } from '../../services/listings/delivered-total.js';
import { packFreight, premiumOf } from '../../services/listings/listing-index/slot-store.js';
import { seededRandom } from '../../services/shared/seeded-random.js';
import { deliveredPrice, worthTheTrip } from '../../services/valuation/delivered-price.js';
import { WEIGHT_CLASSES, weightClass } from '../../services/shared/rules/freight-rates.js';

const TITLES = ['Kubota KX040 mini excavator', 'Caterpillar 320 excavator', 'CAT D8T dozer', 'Deere 310SJ backhoe', 'CAT 349 excavator', 'Grove RT530E crane'];

describe('the list’s delivered totals', () => {
  it('are the detail’s total_low / total_high to the cent, with and without a premium, on random lots', () => {
    const random = seededRandom(30);
    for (let i = 0; i < 5000; i++) {
      const title = TITLES[Math.floor(random() * TITLES.length)]!;
      const categoryId = 1 + Math.floor(random() * 10);
      const price = random() < 0.05 ? null : Math.floor(random() * 300_000_00) / 100;
      const buyersPremiumPct = random() < 0.5 ? null : Math.floor(random() * 25_000) / 1000;
      const distance = Math.floor(random() * 30_000) / 10;
      const detail = deliveredPrice({ price, buyersPremiumPct, categoryId, title, distanceMiles: distance });
      const totals = deliveredTotals({ price, buyersPremiumPct, weight: weightClass(categoryId, title), distanceMiles: distance });
      if (price === null) expect(totals).toBeNull();
      else expect(totals).toEqual({ low: detail.total_low, high: detail.total_high });
    }
    expect(deliveredTotals({ price: 1000, buyersPremiumPct: null, weight: 'mid', distanceMiles: null })).toBeNull();
  });

  it('worth the trip: the discount must exceed the haul, exactly in cents (a cent over is worth it, equal is not)', () => {
    expect(worthTheTripExact(10_000, 12_500, 2_500)).toBe(false);
    expect(worthTheTripExact(10_000, 12_500.01, 2_500)).toBe(true);
    // In dollars 5,348.31 − 2,848.31 comes out a hair above 2,500; in cents it is 2,500 (hauls are whole tens).
    expect(5_348.31 - 2_848.31 > 2_500).toBe(true);
    expect(worthTheTripExact(2_848.31, 5_348.31, 2_500)).toBe(false);
    expect(worthTheTripExact(2_848.31, 5_348.32, 2_500)).toBe(true);
    expect(worthTheTripExact(null, 12_500, 100)).toBe(false);
    expect(worthTheTripExact(10_000, null, 100)).toBe(false);
    expect(discountDollarsUp(100, 250.01)).toBe(151);
    expect(discountDollarsUp(100, 250)).toBe(150);
    expect(discountDollarsUp(300, 250.5)).toBe(-49);
    // Away from the cent boundary it is worthTheTrip() itself.
    const random = seededRandom(31);
    for (let i = 0; i < 2000; i++) {
      const price = Math.floor(random() * 100_000);
      const fair = price + Math.floor((random() - 0.3) * 20_000) + 0.5;
      const haul = Math.floor(random() * 1000) * 10;
      expect(worthTheTripExact(price, fair, haul)).toBe(worthTheTrip({ price, fairValue: fair }, haul));
    }
  });

  it('the index packs a weight class and a stated premium into one number and reads them back', () => {
    for (const weight of WEIGHT_CLASSES) {
      for (const pct of [null, 0, 10, 12.5, 7.125, 999.999]) {
        const packed = packFreight(weight, pct);
        expect(WEIGHT_CLASSES[packed & 3]).toBe(weight);
        expect(premiumOf(packed)).toBe(pct);
      }
    }
  });
});
