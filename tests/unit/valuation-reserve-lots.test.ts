import { describe, expect, it } from 'vitest';
import { fitLotNeighbours, fitReserveShift, listingLogShift, reserveLot } from '../../services/valuation/lot-neighbours.js';
import type { TrainingSale } from '../../services/valuation/features.js';
import { trainFairValueModel } from '../../services/valuation/fair-value-model.js';
import { seededRandom } from '../../services/shared/seeded-random.js';

const OTHER = 11;
const CONFIRMATION = "Seller's Confirmation: The sale of this item is subject to the seller's confirmation. Manufacturer: John Deere";

function lot(title: string, price: number, description = '', source = 'westauction'): TrainingSale {
  return {
    categoryId: OTHER, make: null, model: null, modelFamily: null, year: null, hours: null, condition: null, state: 'CA',
    saleChannel: 'online auction', soldAt: new Date('2025-05-01T00:00:00Z'), price, attributes: { source }, title, description,
  };
}

describe('a listing whose sale is subject to the seller’s confirmation (a reserve)', () => {
  it('is read from the title or the start of the description', () => {
    expect(reserveLot({ title: 'John Deere 7200R Tractor', description: CONFIRMATION })).toBe(true);
    expect(reserveLot({ title: 'Case iH 335 Magnum Row-Crop Tractor', description: 'Case iH 335 Magnum Row-Crop Tractor The sale of this item is subject to the sellers confirmation.' })).toBe(true);
    expect(reserveLot({ title: 'Bobcat E85 Excavator', description: 'Sale subject to owner approval.' })).toBe(true);
    // an ordinary lot, and words that only look alike
    expect(reserveLot({ title: 'John Deere 7020 4WD Tractor', description: 'Manufacturer: John Deere Model: 7020 Hours: 3684' })).toBe(false);
    expect(reserveLot({ title: 'Ford Truck', description: 'Confirmation of removal appointment is required. Reserve your pickup time.' })).toBe(false);
    // past the first 600 characters of the description is removal terms, not the lot
    expect(reserveLot({ title: 'Genie Scissor Lift', description: `${'x'.repeat(700)} subject to the seller's confirmation` })).toBe(false);
  });

  it('sells over its market by the shift its source learned, shrunk by how few such lots it has, never under 0', () => {
    const market = (n: number, relative: number, reserve: boolean) => Array.from({ length: n }, () => ({ source: 'westauction', reserve, relative }));
    // 5 reserve lots 2 log over, the rest at their market: the shift is 2 × 5/(5 + 5)
    expect(fitReserveShift([...market(5, 2, true), ...market(40, 0, false)]).westauction).toBeCloseTo(1, 10);
    // one such lot says little: 3 × 1/(1 + 5)
    expect(fitReserveShift([...market(1, 3, true), ...market(40, 0, false)]).westauction).toBeCloseTo(0.5, 10);
    // reserve lots that sold under the others do not make a reserve worth less
    expect(fitReserveShift([...market(5, -1, true), ...market(40, 0, false)]).westauction).toBe(0);
    // a source without such lots has no shift
    expect(fitReserveShift(market(40, 0, false)).westauction).toBeUndefined();
  });

  it('moves only reserve online lots, by their own source’s shift, added to an impaired lot’s', () => {
    const history = [
      ...Array.from({ length: 20 }, (_, i) => lot(`John Deere Tractor ${i}`, 4000)),
      ...Array.from({ length: 5 }, (_, i) => lot(`John Deere Tractor ${i}`, 40_000, CONFIRMATION)),
      ...Array.from({ length: 5 }, (_, i) => lot(`John Deere Tractor ${i} (Not Running)`, 400)),
      lot('John Deere Tractor', 30_000, '', 'govdeals'),
    ];
    const n = fitLotNeighbours(history)!;
    // the five sold log(40001/4001) ≈ 2.3 over the others' median, shrunk by 5/(5 + 5)
    const expected = (Math.log1p(40_000) - Math.log1p(4000)) * (5 / 10);
    expect(n.reserveShift!.westauction).toBeCloseTo(expected, 6);
    expect(listingLogShift(n, lot('John Deere Tractor', 0, CONFIRMATION))).toBeCloseTo(expected, 6);
    expect(listingLogShift(n, lot('John Deere Tractor', 0))).toBe(0);
    // a reserve lot that does not run: both shifts
    const both = listingLogShift(n, lot('John Deere Tractor (Not Running)', 0, CONFIRMATION));
    expect(both).toBeCloseTo(expected + n.impairedShift!.westauction!, 6);
    // another source, Fast Iron rows, and a table fitted before the shift existed are not moved
    expect(listingLogShift(n, lot('John Deere Tractor', 0, CONFIRMATION, 'govdeals'))).toBe(0);
    expect(listingLogShift(n, lot('John Deere Tractor', 0, CONFIRMATION, 'fastiron'))).toBe(0);
    expect(listingLogShift({ ...n, reserveShift: undefined }, lot('John Deere Tractor', 0, CONFIRMATION))).toBe(0);
  });
});

describe('the fair value of a reserve online lot', () => {
  it('is the model’s value moved up by its source’s shift; a lot of the same words without a reserve is not moved', () => {
    // West tractors near $4,000, one in ten sold subject to the seller's confirmation near $30,000
    const random = seededRandom(5);
    const sales: TrainingSale[] = Array.from({ length: 300 }, (_, i) => {
      const reserve = i % 10 === 0;
      const soldAt = new Date(Date.UTC(2024, Math.floor((i / 300) * 12), 1 + Math.floor(random() * 27)));
      const price = Math.round((reserve ? 30_000 : 4000) * Math.exp(0.3 * (random() - 0.5)));
      return { ...lot('John Deere Tractor', price, reserve ? CONFIRMATION : ''), soldAt, attributes: { source: 'westauction', machine_kind: 'tractor' } };
    });
    const { model } = trainFairValueModel(sales, { params: { trees: 60, learningRate: 0.1 }, members: 1 });
    const shift = model.data.lotNeighbours!.reserveShift!.westauction!;
    expect(shift).toBeGreaterThan(1);
    const at = new Date('2025-01-01T00:00:00Z');
    const reserve = { ...lot('John Deere Tractor', 0, CONFIRMATION), soldAt: at, attributes: { source: 'westauction', machine_kind: 'tractor' } };
    const plain = { ...reserve, description: '' };
    const withShift = model.valueAll([reserve, plain]);
    const table = model.data.lotNeighbours!;
    model.data.lotNeighbours = { ...table, reserveShift: {} };
    const without = model.valueAll([reserve, plain]);
    model.data.lotNeighbours = table;
    expect(withShift[0]!.logPrice - without[0]!.logPrice).toBeCloseTo(shift, 10);
    expect(withShift[1]!.logPrice).toBe(without[1]!.logPrice);
  });
});
