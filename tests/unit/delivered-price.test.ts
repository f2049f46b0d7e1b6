import { describe, expect, it } from 'vitest';
import { deliveredPrice, worthTheTrip } from '../../services/valuation/delivered-price.js';
import { excavatorTons, FREIGHT_RATES, haulEstimate, ROAD_FACTOR, weightClass, WEIGHT_CLASSES } from '../../services/shared/rules/freight-rates.js';

describe('weight class from type and size words', () => {
  const cases: Array<[number, string, string]> = [
    [1, '2019 Kubota KX040-4 Mini Excavator', 'compact'],
    [1, 'Bobcat E35 Compact Excavator', 'compact'],
    [1, 'John Deere 35G Excavator', 'compact'],
    [1, '2016 Caterpillar 308E2 CR Excavator', 'mid'],
    [1, '2016 Caterpillar 320FL Hydraulic Excavator', 'heavy'],
    [1, 'Komatsu PC200-8 Excavator', 'heavy'],
    [1, 'Hitachi ZX210LC-5', 'heavy'],
    [1, 'Volvo EC460CL Excavator', 'oversize'],
    [1, 'CAT 349F L Excavator', 'oversize'],
    [1, 'Hydraulic Excavator', 'heavy'],
    [2, 'Caterpillar D3K2 XL Dozer', 'mid'],
    [2, 'Caterpillar D6T LGP Crawler Dozer', 'heavy'],
    [2, '2012 CAT D8T Dozer', 'oversize'],
    [2, 'Komatsu D61PX-23', 'heavy'],
    [2, 'John Deere 650K XLT', 'mid'],
    [2, 'John Deere 850K', 'heavy'],
    [3, 'Caterpillar 950M Wheel Loader', 'heavy'],
    [3, 'John Deere 544K Wheel Loader', 'mid'],
    [3, 'Compact Wheel Loader', 'compact'],
    [4, 'John Deere 310SJ Backhoe', 'mid'],
    [5, 'Bobcat S650 Skid Steer', 'compact'],
    [6, 'Grove RT890E Rough Terrain Crane', 'heavy'],
    [6, 'Manitowoc 999 Crawler Crane', 'oversize'],
    [7, 'Mack Granite Dump Truck', 'mid'],
    [7, 'CAT 740 Articulated Dump Truck', 'heavy'],
    [8, 'Generac 20KW Diesel Generator', 'compact'],
    [8, 'CAT 750 kW Generator Set', 'heavy'],
    [9, 'Wacker Plate Compactor', 'compact'],
    [10, 'Caterpillar 140M Motor Grader', 'heavy'],
    [11, 'Pallet of parts', 'mid'],
  ];
  it.each(cases)('category %i, "%s" → %s', (category, title, expected) => {
    expect(weightClass(category, title)).toBe(expected);
  });

  it('reads excavator tons from model numbers', () => {
    expect(excavatorTons('CAT 320E L')).toBe(20);
    expect(excavatorTons('Komatsu PC35MR')).toBe(3.5);
    expect(excavatorTons('2015 Deere 350G LC')).toBe(35);
    expect(excavatorTons('Excavator')).toBeNull();
  });
});

describe('haul estimate', () => {
  it('is road miles × the class rates, never under its minimum, rising with class and distance', () => {
    for (const c of WEIGHT_CLASSES) {
      const rate = FREIGHT_RATES[c];
      expect(rate.perMile[0]).toBeLessThan(rate.perMile[1]);
      expect(rate.minimum[0]).toBeLessThan(rate.minimum[1]);
      const near = haulEstimate(c, 5);
      expect(near.low).toBe(rate.minimum[0]);
      expect(near.high).toBe(rate.minimum[1]);
      const far = haulEstimate(c, 1000);
      expect(far.roadMiles).toBe(1000 * ROAD_FACTOR);
      expect(far.low).toBe(Math.round((1200 * rate.perMile[0]) / 10) * 10);
      expect(far.high).toBe(Math.round((1200 * rate.perMile[1]) / 10) * 10);
      expect(far.low).toBeLessThan(far.high);
    }
    // A heavier class never costs less over the same distance.
    for (const miles of [10, 100, 500, 2000]) {
      const lows = WEIGHT_CLASSES.map((c) => haulEstimate(c, miles).low);
      const highs = WEIGHT_CLASSES.map((c) => haulEstimate(c, miles).high);
      expect(lows).toEqual([...lows].sort((a, b) => a - b));
      expect(highs).toEqual([...highs].sort((a, b) => a - b));
    }
    // A 20-ton excavator 1,000 road miles away: $4–6 a mile on a lowboy.
    expect(haulEstimate('heavy', 1000 / ROAD_FACTOR)).toMatchObject({ roadMiles: 1000, low: 4000, high: 6000 });
  });
});

describe('price delivered', () => {
  it('adds the stated premium and the haul range to the price', () => {
    const d = deliveredPrice({ price: 50_000, buyersPremiumPct: 10, categoryId: 1, title: 'CAT 320E Excavator', distanceMiles: 250 });
    expect(d.weight_class).toBe('heavy');
    expect(d.premium).toBe(5000);
    expect(d.haul_low).toBe(1200);
    expect(d.haul_high).toBe(2500);
    expect(d.total_low).toBe(50_000 + 5000 + 1200);
    expect(d.total_high).toBe(50_000 + 5000 + 2500);
    expect(d.distance_miles).toBe(250);
    expect(d.basis).toContain('lowboy');
    expect(d.basis).toContain('300 road miles');
  });

  it('without a stated premium: none added, and the basis says to check the terms', () => {
    const d = deliveredPrice({ price: 3000, buyersPremiumPct: null, categoryId: 5, title: 'Bobcat S650', distanceMiles: 40 });
    expect(d.premium).toBeNull();
    expect(d.total_low).toBe(3000 + d.haul_low);
    expect(d.total_high).toBe(3000 + d.haul_high);
    expect(d.haul_low).toBe(300);
    expect(d.basis).toMatch(/no buyer's premium/);
    // cents of a premium are kept
    expect(deliveredPrice({ price: 1234, buyersPremiumPct: 12.5, categoryId: 5, title: 'x', distanceMiles: 0 }).premium).toBe(154.25);
  });

  it('a lot on request has a haul but no total; a state-only place says the distance is rough', () => {
    const d = deliveredPrice({ price: null, buyersPremiumPct: 10, categoryId: 2, title: 'CAT D8T', distanceMiles: 100, precision: 'state' });
    expect(d).toMatchObject({ price: null, premium: null, total_low: null, total_high: null, weight_class: 'oversize' });
    expect(d.basis).toMatch(/state only/);
  });

  it('worth the trip: the discount under fair value must exceed the haul', () => {
    expect(worthTheTrip({ price: 3000, fairValue: 30_000 }, 13_000)).toBe(true);
    expect(worthTheTrip({ price: 20_000, fairValue: 30_000 }, 13_000)).toBe(false);
    expect(worthTheTrip({ price: 3000, fairValue: null }, 100)).toBe(false);
    expect(worthTheTrip({ price: null, fairValue: 30_000 }, 100)).toBe(false);
  });
});
