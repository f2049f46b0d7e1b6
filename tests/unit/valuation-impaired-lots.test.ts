import { describe, expect, it } from 'vitest';
import { fitImpairedShift, fitLotNeighbours, listingLogShift, impairedLot } from '../../services/valuation/lot-neighbours.js';
import type { TrainingSale } from '../../services/valuation/features.js';
import { trainFairValueModel } from '../../services/valuation/fair-value-model.js';
import { seededRandom } from '../../services/shared/seeded-random.js';

const OTHER = 11;

function lot(title: string, price: number, description = '', source = 'westauction'): TrainingSale {
  return {
    categoryId: OTHER, make: null, model: null, modelFamily: null, year: null, hours: null, condition: null, state: 'CA',
    saleChannel: 'online auction', soldAt: new Date('2025-05-01T00:00:00Z'), price, attributes: { source }, title, description,
  };
}

describe('a listing that says the machine is impaired', () => {
  it('is read from the title or the start of the description', () => {
    expect(impairedLot({ title: '1990 Chevrolet Stepside Truck (for parts)', description: null })).toBe(true);
    expect(impairedLot({ title: 'Ford F-Series Flatbed Utility Truck (Not Running)', description: '' })).toBe(true);
    expect(impairedLot({ title: 'Multiton SM20 Powered Forklift', description: 'Seller States: Unit does not power up.' })).toBe(true);
    expect(impairedLot({ title: "Forklift (Won't Start)", description: '' })).toBe(true);
    expect(impairedLot({ title: 'Autocar Utility Truck (No Drivetrain)', description: '' })).toBe(true);
    expect(impairedLot({ title: 'International Truck', description: 'Specifications Make: International Key: Not Available' })).toBe(true);
    expect(impairedLot({ title: '24’ Utility Trailer (Contents Not Included)', description: '' })).toBe(true);
    expect(impairedLot({ title: '53’ Office Trailer With Contents', description: '' })).toBe(true);
    // an ordinary lot, and words that only look alike
    expect(impairedLot({ title: '2019 Bobcat E85 Excavator', description: 'Runs and drives. Key: Available. Parts washer included' })).toBe(false);
    expect(impairedLot({ title: 'Running Board Step for Truck', description: 'Power up your fleet' })).toBe(false);
    // past the first 600 characters of the description is removal terms, not the machine
    expect(impairedLot({ title: 'Genie Scissor Lift', description: `${'x'.repeat(700)} not running` })).toBe(false);
  });

  it('sells under its market by the shift its source learned, shrunk by how few such lots it has, never above 0', () => {
    const market = (n: number, relative: number, impaired: boolean) => Array.from({ length: n }, () => ({ source: 'westauction', impaired, relative }));
    // 5 impaired lots 2 log under, the rest at their market: the shift is −2 × 5/(5 + 5)
    expect(fitImpairedShift([...market(5, -2, true), ...market(40, 0, false)]).westauction).toBeCloseTo(-1, 10);
    // impaired lots that sold over the others do not make impairment worth more
    expect(fitImpairedShift([...market(5, 1, true), ...market(40, 0, false)]).westauction).toBe(0);
    // a source without impaired lots has no shift
    expect(fitImpairedShift(market(40, 0, false)).westauction).toBeUndefined();
  });

  it('moves only impaired online lots, by their own source’s shift', () => {
    const history = [
      ...Array.from({ length: 20 }, (_, i) => lot(`Ford Flatbed Truck ${i}`, 4000)),
      ...Array.from({ length: 10 }, (_, i) => lot(`Ford Flatbed Truck ${i} (Not Running)`, 400)),
      lot('Ford Flatbed Truck', 30_000, '', 'govdeals'),
    ];
    const n = fitLotNeighbours(history)!;
    const shift = listingLogShift(n, lot('Ford Flatbed Truck (Not Running)', 0));
    // the ten sold log(4001/401) ≈ 2.3 under the others, shrunk by 10/(10 + 5)
    expect(shift).toBeCloseTo((Math.log1p(400) - Math.log1p(4000)) * (10 / 15), 6);
    expect(listingLogShift(n, lot('Ford Flatbed Truck', 0))).toBe(0);
    // a source whose sold lots say nothing of impairment, and Fast Iron rows, are not moved
    expect(listingLogShift(n, lot('Ford Flatbed Truck (Not Running)', 0, '', 'govdeals'))).toBe(0);
    expect(listingLogShift(n, lot('Ford Flatbed Truck (Not Running)', 0, '', 'fastiron'))).toBe(0);
    // a table fitted before the shift existed moves nothing
    expect(listingLogShift({ ...n, impairedShift: undefined }, lot('Ford Flatbed Truck (Not Running)', 0))).toBe(0);
  });
});

describe('the fair value of an impaired online lot', () => {
  it('is the model’s value moved by its source’s shift; a working lot of the same words is not moved', () => {
    // West trucks near $4,000, one in ten "(Not Running)" near $400; Fast Iron rows beside them
    const random = seededRandom(3);
    const sales: TrainingSale[] = Array.from({ length: 300 }, (_, i) => {
      const broken = i % 10 === 0;
      const soldAt = new Date(Date.UTC(2024, Math.floor((i / 300) * 12), 1 + Math.floor(random() * 27)));
      const price = Math.round((broken ? 400 : 4000) * Math.exp(0.3 * (random() - 0.5)));
      return { ...lot(`Ford Flatbed Truck${broken ? ' (Not Running)' : ''}`, price), soldAt, attributes: { source: 'westauction', machine_kind: 'truck' } };
    });
    const { model } = trainFairValueModel(sales, { params: { trees: 60, learningRate: 0.1 }, members: 1 });
    const shift = model.data.lotNeighbours!.impairedShift!.westauction!;
    expect(shift).toBeLessThan(-1);
    const at = new Date('2025-01-01T00:00:00Z');
    const broken = { ...lot('Ford Flatbed Truck (Not Running)', 0), soldAt: at, attributes: { source: 'westauction', machine_kind: 'truck' } };
    const working = { ...broken, title: 'Ford Flatbed Truck' };
    const withShift = model.valueAll([broken, working]);
    const table = model.data.lotNeighbours!;
    model.data.lotNeighbours = { ...table, impairedShift: {} };
    const without = model.valueAll([broken, working]);
    model.data.lotNeighbours = table;
    expect(withShift[0]!.logPrice - without[0]!.logPrice).toBeCloseTo(shift, 10);
    expect(withShift[1]!.logPrice).toBe(without[1]!.logPrice);
    // the range moves with the value
    expect(Math.log1p(withShift[0]!.high) - withShift[0]!.logPrice).toBeCloseTo(Math.log1p(without[0]!.high) - without[0]!.logPrice, 10);
  });
});
