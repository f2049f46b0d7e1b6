import { describe, expect, it } from 'vitest';
import { valuationAgreement } from '../../services/valuation/agreement.js';

const comps = [
  { price: 20_000, year: 2008, hours: 6000 },
  { price: 24_000, year: 2009, hours: 5200 },
  { price: 26_000, year: 2010, hours: 5000 },
];

describe('fair value and comparables agree, or the page says why', () => {
  it('says nothing when the fair value lies within the comparables\u2019 today prices', () => {
    expect(valuationAgreement({ year: 2009, hours: 5500 }, 23_000, comps)).toEqual({ position: 'within', note: null });
    // whole-dollar rounding at the ends is within
    expect(valuationAgreement({ year: 2009, hours: 5500 }, 26_050, comps).position).toBe('within');
  });

  it('explains a value above every comparable by a newer machine with fewer hours', () => {
    expect(valuationAgreement({ year: 2014, hours: 1200 }, 38_000, comps)).toEqual({ position: 'above', note: 'Newer and fewer hours than these sales, so valued above them.' });
    expect(valuationAgreement({ year: 2004, hours: 9000 }, 12_000, comps)).toEqual({ position: 'below', note: 'Older and more hours than these sales, so valued below them.' });
  });

  it('says plainly when the lot is not unlike them but the value still differs', () => {
    expect(valuationAgreement({ year: 2009, hours: 5500 }, 38_000, comps).note).toBe("Valued above these sales: the value also weighs the type's other sales and what the listing says.");
    // comparables stored before their year and hours were kept: no claimed reason
    expect(valuationAgreement({ year: 2014, hours: 1200 }, 38_000, comps.map((c) => ({ price: c.price }))).note).toMatch(/^Valued above these sales/);
  });

  it('says an impaired lot is valued below working ones because its listing says so', () => {
    expect(valuationAgreement({ year: 2009, hours: 5500, impaired: true }, 4_000, comps)).toEqual({
      position: 'below',
      note: 'The listing says it does not work, is sold for parts or with its contents, so valued below these sales.',
    });
    // within its comparables, or above them, its trouble explains nothing
    expect(valuationAgreement({ year: 2009, hours: 5500, impaired: true }, 23_000, comps).note).toBeNull();
    expect(valuationAgreement({ year: 2014, hours: 1200, impaired: true }, 38_000, comps).note).toBe('Newer and fewer hours than these sales, so valued above them.');
  });

  it("says a reserve lot is valued above lots sold outright because it is sold subject to the seller's confirmation", () => {
    expect(valuationAgreement({ year: 2009, hours: 5500, reserve: true }, 38_000, comps)).toEqual({
      position: 'above',
      note: "Sold subject to the seller's confirmation (a reserve), as lots that fetch more are, so valued above these sales.",
    });
    // below its comparables, a reserve explains nothing
    expect(valuationAgreement({ year: 2009, hours: 5500, reserve: true }, 4_000, comps).note).toMatch(/^Valued below these sales/);
  });

  it('a listing without a year, or without comparables, says how it was valued', () => {
    expect(valuationAgreement({ year: null, hours: 3370 }, 23_000, comps).note).toMatch(/^No year given: valued from its model, hours and description/);
    expect(valuationAgreement({ year: 2010, hours: null }, 23_000, [])).toEqual({ position: 'none', note: 'Valued from its type, make and description: no sales of this model to compare with yet.' });
  });
});
