import { describe, expect, it } from 'vitest';
import { isPackedSales, packedTransferList, packSales, unpackSales } from '../../services/scorer/packed-sales.js';
import type { TrainingSale } from '../../services/valuation/features.js';
import { syntheticSales } from '../../scripts/bench/synthetic-sales.js';

const sale = (over: Partial<TrainingSale>): TrainingSale => ({
  categoryId: 3, make: 'Caterpillar', model: '950H', modelFamily: '950', year: 2012, hours: 5400, condition: null, state: 'TX',
  saleChannel: 'auction', soldAt: new Date('2023-05-02T00:00:00Z'), price: 91_000, attributes: { source: 'rbauction', market: 'dealer-auction' }, title: '2012 Caterpillar 950H Wheel Loader', description: null, ...over,
});

describe('packed training sales', () => {
  it('unpack to the same sales: nulls, absent titles, numbers and strings in attributes, undefined attribute values', () => {
    const sales = [
      sale({}),
      sale({ categoryId: null, year: null, hours: null, make: null, attributes: { ModelID: '4605', odometer: 1200, unused: null, fiProductClassDesc: undefined } }),
      sale({ description: 'runs and operates', attributes: { source: 'westauction', market: 'online-surplus', odometer: 0 } }),
    ];
    const { title: _, description: __, ...untitled } = sale({});
    sales.push(untitled);
    const packed = packSales(sales);
    expect(isPackedSales(packed)).toBe(true);
    expect(isPackedSales(sales)).toBe(false);
    const back = unpackSales(structuredClone(packed, { transfer: packedTransferList(packed) }));
    expect(back).toEqual(sales);
    expect('title' in back[3]!).toBe(false);
    expect(back[1]!.attributes).toHaveProperty('fiProductClassDesc', undefined);
  });

  it('sends an attribute set and a string once however many sales share them', () => {
    const sales = syntheticSales(5000, 4);
    const packed = packSales(sales);
    expect(unpackSales(packed)).toEqual(sales);
    expect(packed.attributeSets.length).toBeLessThan(sales.length / 2);
    expect(packed.strings.length).toBeLessThan(sales.length * 2);
    const back = unpackSales(packed);
    const rb = back.filter((s) => s.attributes.source === 'rbauction' && s.attributes.unused === undefined);
    expect(rb.length).toBeGreaterThan(100);
    expect(new Set(rb.map((s) => s.attributes)).size).toBe(1);
  });
});

describe('packing a stream of sales', () => {
  it('packs as they come, and refuses a stream longer or shorter than announced', () => {
    const sales = syntheticSales(300, 5);
    expect(unpackSales(packSales(sales.values(), 300))).toEqual(sales);
    expect(() => packSales(sales.values())).toThrow(/count/);
    expect(() => packSales(sales.values(), 299)).toThrow(/more than the 299/);
    expect(() => packSales(sales.values(), 301)).toThrow(/300 sales, not the 301/);
  });
});
