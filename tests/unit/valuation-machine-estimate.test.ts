import { describe, expect, it } from 'vitest';
import { ESTIMATE_MARKET, knownModel, machineListing, machineTitle, unknownModelNote } from '../../services/valuation/machine-estimate.js';

describe('What is it worth: a machine as the listing the scorer would value', () => {
  const facts = { categoryId: 4, make: 'Caterpillar', model: '416D', year: 2002, hours: 4000, state: 'TX' };
  it('is a fixed-price, open lot with no price and no premium, titled from its facts, on the estimate market', () => {
    expect(machineTitle(facts)).toBe('2002 Caterpillar 416D');
    expect(machineTitle({ make: null, model: null, year: null })).toBe('');
    expect(machineListing(facts)).toMatchObject({
      categoryId: 4, make: 'Caterpillar', model: '416D', year: 2002, hours: 4000, state: 'TX', priceUsd: null, buyersPremiumPct: null,
      status: 'open', auctionEndAt: null, bidCount: 0, title: '2002 Caterpillar 416D', sourceSlug: ESTIMATE_MARKET,
    });
  });
  it('knows a model by the sales held of it (spelled as comparables match it) and says so when it does not', () => {
    expect(knownModel('416-D', [{ model: '416D' }])).toBe(true);
    expect(knownModel('ZZ999', [{ model: '416D' }, { model: null }])).toBe(false);
    expect(knownModel(null, [{ model: '416D' }])).toBe(false);
    expect(unknownModelNote(facts, true)).toBeNull();
    expect(unknownModelNote({ make: 'Caterpillar', model: 'ZZ999' }, false)).toBe('We hold no sales of the Caterpillar ZZ999: valued from its type, make, year, hours and words, so the range is wider.');
    expect(unknownModelNote({ make: null, model: null }, false)).toBe('No model given: valued from its type, year, hours and words, so the range is wider.');
  });
});
