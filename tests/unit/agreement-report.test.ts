import { describe, expect, it } from 'vitest';
import { AgreementTally, assessListing, noteKinds, summarizeAgreement, type AgreementRow } from '../../services/valuation/agreement-report.js';
import { valuationAgreement } from '../../services/valuation/agreement.js';

/** Comparables as the scorer stores them (the detail route keeps only those with a sale date). */
const comp = (price: number, extra: Record<string, unknown> = {}) => ({ title: 'Sale', price, original_price: price, sold_at: '2026-01-02', source: 'x', year: 2010, hours: 5000, ...extra });
const comps = [comp(20_000), comp(24_000), comp(30_000)];

const row = (over: Partial<AgreementRow>): AgreementRow => ({
  source: 'alpha',
  status: 'open',
  title: 'Excavator',
  description: '',
  year: 2010,
  hours: 5000,
  fairValue: 24_000,
  dealScore: 500,
  comparables: comps,
  ...over,
});

describe('agreement report: one listing as the deal page shows it', () => {
  it('places the fair value against the span, with the page rule\u2019s half-percent rounding at its edges', () => {
    expect(assessListing(row({ fairValue: 30_000 })).position).toBe('within');
    expect(assessListing(row({ fairValue: 30_149 })).position).toBe('within'); // the edge: 30,000 × 1.005
    expect(assessListing(row({ fairValue: 30_151 })).position).toBe('above');
    expect(assessListing(row({ fairValue: 19_900 })).position).toBe('within'); // 20,000 × 0.995
    expect(assessListing(row({ fairValue: 19_899 })).position).toBe('below');
    expect(assessListing(row({ fairValue: 24_000, comparables: [] })).position).toBe('none');
    expect(assessListing(row({ fairValue: null })).position).toBeNull();
  });

  it('uses the comparables the detail route returns: one without a sale date, or past the tenth, is not shown so not counted', () => {
    // a stored comparable with no sold_at is dropped by the route: 50,000 does not widen the span
    expect(assessListing(row({ fairValue: 40_000, comparables: [...comps, { price: 50_000 }] })).position).toBe('above');
    // only the first ten are shown
    const eleven = [...Array.from({ length: 10 }, () => comp(20_000)), comp(60_000)];
    expect(assessListing(row({ fairValue: 40_000, comparables: eleven })).position).toBe('above');
    // not an array (a row scored before comparables were stored): no comparables
    expect(assessListing(row({ comparables: null })).position).toBe('none');
  });

  it('takes ln(fair value / median comparable today price)', () => {
    expect(assessListing(row({ fairValue: 24_000 })).logRatio).toBeCloseTo(0, 12);
    expect(assessListing(row({ fairValue: 48_000 })).logRatio).toBeCloseTo(Math.log(2), 12);
    // even count: the median is the mean of the middle two
    expect(assessListing(row({ fairValue: 22_000, comparables: [comp(20_000), comp(24_000)] })).logRatio).toBeCloseTo(0, 12);
    expect(assessListing(row({ comparables: [] })).logRatio).toBeNull();
  });

  it('reads the note kinds from the words agreement.ts writes', () => {
    const c = [{ price: 20_000, year: 2008, hours: 6000 }, { price: 24_000, year: 2009, hours: 5200 }];
    expect(noteKinds(valuationAgreement({ year: 2009, hours: 5500 }, 22_000, c).note)).toEqual([]);
    expect(noteKinds(valuationAgreement({ year: 2014, hours: 1200 }, 38_000, c).note)).toEqual(['unlike']);
    expect(noteKinds(valuationAgreement({ year: 2004, hours: 5500 }, 12_000, c).note)).toEqual(['unlike']);
    expect(noteKinds(valuationAgreement({ year: 2009, hours: 5500 }, 38_000, c).note)).toEqual(['alsoWeighs']);
    expect(noteKinds(valuationAgreement({ year: 2009, hours: 5500, impaired: true }, 4_000, c).note)).toEqual(['impaired']);
    expect(noteKinds(valuationAgreement({ year: 2009, hours: 5500, reserve: true }, 38_000, c).note)).toEqual(['reserve']);
    expect(noteKinds(valuationAgreement({ year: null, hours: 5500 }, 22_000, c).note)).toEqual(['noYear']);
    expect(noteKinds(valuationAgreement({ year: null, hours: 5500 }, 38_000, c).note)).toEqual(['noYear', 'alsoWeighs']);
    expect(noteKinds(valuationAgreement({ year: 2009, hours: 5500 }, 22_000, []).note)).toEqual(['noComparables']);
    expect(noteKinds(null)).toEqual([]);
  });

  it('takes the note the page shows: an impaired title gives the impaired note below its comparables', () => {
    expect(assessListing(row({ title: 'Loader, for parts', fairValue: 5_000 })).kinds).toEqual(['impaired']);
    expect(assessListing(row({ title: 'Loader', fairValue: 5_000 })).kinds).toEqual(['alsoWeighs']);
    expect(assessListing(row({ title: 'Loader', description: "The sale of this item is subject to the seller's confirmation.", fairValue: 60_000 })).kinds).toEqual(['reserve']);
    expect(assessListing(row({ year: 2016, hours: 900, fairValue: 45_000 })).kinds).toEqual(['unlike']);
  });
});

describe('agreement report: per source and over all', () => {
  it('counts positions, shares, the median ratio, notes and levels per source, then all', () => {
    const report = summarizeAgreement([
      row({ fairValue: 24_000, dealScore: 500 }), // within, fair
      row({ fairValue: 26_400, dealScore: 450 }), // within, fair, +10%
      row({ fairValue: 60_000, dealScore: 850 }), // above (also weighs), excellent
      row({ fairValue: 24_000, dealScore: 650, year: null }), // within, good, no-year note
      row({ fairValue: 18_000, dealScore: 200, comparables: [] }), // none: no comparables note, poor
      row({ fairValue: null, dealScore: null }), // not valued, unscored
      row({ source: 'beta', fairValue: 10_000, dealScore: 420 }), // below (also weighs), fair
    ]);
    expect(report.map((r) => r.source)).toEqual(['alpha', 'beta', 'all']);
    const [alpha, beta, all] = report;
    expect(alpha).toMatchObject({
      listings: 6,
      scored: 5,
      valued: 5,
      withComparables: 4,
      within: 3,
      above: 1,
      below: 0,
      withinShare: 0.75,
      aboveShare: 0.25,
      belowShare: 0,
      notes: { total: 3, noYear: 1, unlike: 0, alsoWeighs: 1, impaired: 0, reserve: 0, noComparables: 1 },
      levels: { excellent: 1, good: 1, fair: 2, poor: 1, unscored: 1 },
      fairShare: 0.4,
    });
    // ln ratios 0, ln 1.1, ln 2.5, 0: the median is (0 + ln 1.1) / 2
    expect(alpha!.medianLogRatio).toBeCloseTo(Math.log(1.1) / 2, 12);
    expect(alpha!.medianPercent).toBeCloseTo(Math.sqrt(1.1) - 1, 12);
    expect(beta).toMatchObject({ listings: 1, withComparables: 1, below: 1, belowShare: 1, withinShare: 0, notes: { total: 1, alsoWeighs: 1 }, levels: { fair: 1 } });
    expect(beta!.medianLogRatio).toBeCloseTo(Math.log(10_000 / 24_000), 12);
    expect(all).toMatchObject({ listings: 7, scored: 6, valued: 6, withComparables: 5, within: 3, above: 1, below: 1, withinShare: 0.6, levels: { excellent: 1, good: 1, fair: 3, poor: 1, unscored: 1 }, fairShare: 0.5 });
    // ln ratios: alpha 0, ln 1.1, ln 2.5, 0 and beta ln(10/24): the median is 0
    expect(all!.medianLogRatio).toBeCloseTo(0, 12);
  });

  it('is the same fed page by page as all at once; nothing in, nothing out', () => {
    const rows = [row({ fairValue: 30_000 }), row({ fairValue: 40_000, source: 'beta' }), row({ fairValue: 21_000 }), row({ fairValue: null, dealScore: null })];
    const tally = new AgreementTally();
    tally.add(rows.slice(0, 1));
    tally.add(rows.slice(1, 3));
    tally.add(rows.slice(3));
    expect(tally.summaries()).toEqual(summarizeAgreement(rows));
    expect(summarizeAgreement([])).toEqual([]);
    const scoredNone = summarizeAgreement([row({ fairValue: null, dealScore: null })])[0]!;
    expect(scoredNone).toMatchObject({ withinShare: null, medianLogRatio: null, medianPercent: null, fairShare: null });
  });
});
