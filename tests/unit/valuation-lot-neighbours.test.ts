import { describe, expect, it } from 'vitest';
import { fitLotNeighbours, lotWords, neighbourLogPrice } from '../../services/valuation/lot-neighbours.js';
import type { TrainingSale, ValuationInput } from '../../services/valuation/features.js';

const OTHER = 11;

function lot(title: string, price: number, description = '', source = 'westauction', categoryId = OTHER): TrainingSale {
  return {
    categoryId, make: null, model: null, modelFamily: null, year: null, hours: null, condition: null, state: 'CA',
    saleChannel: 'online auction', soldAt: new Date('2025-05-01T00:00:00Z'), price, attributes: { source }, title, description,
  };
}

const history: TrainingSale[] = [
  lot('Restroom Trailer', 9000, '3-Stall stainless steel restroom with handwashing station'),
  lot('Portable Toilet Trailer', 8500, 'Restroom trailer, 3-stall, handwashing sinks'),
  lot('Irrigation Pipe Trailer', 100, 'Pipe trailer for irrigation pipes'),
  lot('Pipe Trailer', 120, 'Irrigation pipe trailer, single axle'),
  lot('Utility Trailer', 700, 'Steel utility trailer'),
  lot('Caterpillar D6 Dozer', 40000, '', 'fastiron', 2),
];

const valueOf = (r: ValuationInput) => Math.expm1(neighbourLogPrice(fitLotNeighbours(history), r));

describe('online lots valued by their nearest sold lots', () => {
  it('finds like lots by the words of the description, not only the title', () => {
    const restroom = valueOf(lot('Trailer', 0, 'Stainless restroom with handwashing station, 3-stall'));
    const pipe = valueOf(lot('Trailer', 0, 'Irrigation pipe trailer'));
    expect(restroom).toBeGreaterThan(4000);
    expect(pipe).toBeLessThan(300);
  });

  it('leaves Fast Iron rows to the trees and abstains for a type no online lot has sold in', () => {
    const n = fitLotNeighbours(history);
    expect(neighbourLogPrice(n, lot('Caterpillar D6 Dozer', 0, '', 'fastiron', 2))).toBeNaN();
    expect(neighbourLogPrice(n, lot('Genie scissor lift', 0, '', 'westauction', 8))).toBeNaN();
    expect(neighbourLogPrice(undefined, lot('Restroom Trailer', 0))).toBeNaN();
    // the dozer is a Fast Iron sale: not among the neighbours
    expect(n!.lots).toHaveLength(5);
  });

  it('pulls a lot like no sold one to the median of its type', () => {
    const n = fitLotNeighbours(history)!;
    expect(neighbourLogPrice(n, lot('Zzyzx', 0))).toBeCloseTo(Math.log1p(700), 10);
  });

  it('does not read years or meter readings, so they cannot move the value against the trees', () => {
    expect(lotWords({ title: '2019 Ford F350 Flatbed', description: 'Hour Meter Reads: 1,234 Odometer: 88,000 miles, 1990s' })).toEqual(['ford', 'f350', 'flatbed']);
    const a = valueOf(lot('2004 Utility Trailer', 0, 'Hours: 9,500'));
    const b = valueOf(lot('2021 Utility Trailer', 0, 'Hours: 150'));
    expect(a).toBe(b);
  });

  it("compares a lot only with lots sold on its own source: another site's lot is left to the trees", () => {
    const n = fitLotNeighbours([...history, lot('Restroom Trailer', 20_000, '', 'govdeals')]);
    // West's restroom trailers sold near $9,000; GovDeals' one at $20,000
    expect(Math.expm1(neighbourLogPrice(n, lot('Restroom Trailer', 0, '3-stall restroom')))).toBeLessThan(12_000);
    expect(Math.expm1(neighbourLogPrice(n, lot('Restroom Trailer', 0, '3-stall restroom', 'govdeals')))).toBeGreaterThan(15_000);
    // a site with no sold lots: no neighbours' estimate, the fair value is the trees'
    expect(neighbourLogPrice(n, lot('Restroom Trailer', 0, '3-stall restroom', 'demo'))).toBeNaN();
  });
});
