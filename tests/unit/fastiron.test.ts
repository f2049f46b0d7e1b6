import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { categoryIdForProductGroup, readFastIron, readSalePrices, toFastIronRecord } from '../../services/shared/datasets/fastiron.js';

const DATA = path.resolve(process.env.SHARED_DIR ?? '../shared', 'data/bulldozers');

describe('Fast Iron reader', () => {
  it('maps the six product groups to our categories', () => {
    expect(categoryIdForProductGroup('TEX')).toBe(1);
    expect(categoryIdForProductGroup('TTT')).toBe(2);
    expect(categoryIdForProductGroup('WL')).toBe(3);
    expect(categoryIdForProductGroup('BL')).toBe(4);
    expect(categoryIdForProductGroup('SSL')).toBe(5);
    expect(categoryIdForProductGroup('MG')).toBe(10);
    expect(categoryIdForProductGroup('XYZ')).toBeUndefined();
  });

  it('handles the format quirks: YearMade 1000, zero hours, unspecified options, dates', () => {
    const r = toFastIronRecord({
      SalesID: '1', SalePrice: '9500', YearMade: '1000', MachineHoursCurrentMeter: '0', saledate: '3/26/2004 0:00',
      fiModelDesc: '950FII', fiBaseModel: '950', state: 'North Carolina', ProductGroup: 'WL', Enclosure: 'EROPS w AC', Forks: 'None or Unspecified',
    })!;
    expect(r.yearMade).toBeNull();
    expect(r.hours).toBeNull();
    expect(r.saleDate.toISOString()).toBe('2004-03-26T00:00:00.000Z');
    expect(r.state).toBe('NC');
    expect(r.attributes).toEqual({ Enclosure: 'EROPS w AC' });
    expect(r.salePrice).toBe(9500);
    expect(r.categoryId).toBe(3);
  });

  it('reads the real training slice (gzip, LF) with its first row intact', async () => {
    const stats = { rows: 0, skipped: 0 };
    let first;
    let count = 0;
    for await (const r of readFastIron(path.join(DATA, 'Train_first10931rows.csv.gz'), { stats })) {
      first ??= r;
      count++;
    }
    expect(count).toBe(10_931);
    expect(stats.skipped).toBe(0);
    expect(first).toMatchObject({ salesId: '1139246', salePrice: 66000, yearMade: 2004, hours: 68, modelDesc: '521D', baseModel: '521', state: 'AL', categoryId: 3 });
  });

  it('joins prices from a solution file into a file without them (CRLF)', async () => {
    const prices = await readSalePrices(path.join(DATA, 'ValidSolution_2012-01_to_02.csv'));
    expect(prices.size).toBe(5098);
    let priced = 0;
    for await (const r of readFastIron(path.join(DATA, 'Valid.csv.gz'), { prices })) if (r.salePrice !== null) priced++;
    expect(priced).toBe(5098);
  });
});
