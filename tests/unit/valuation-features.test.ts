import { describe, expect, it } from 'vitest';
import { comparablesSupport, selectComparables, type ComparableCandidate } from '../../services/valuation/comparables.js';
import { evaluate, modelMedianBaseline } from '../../services/valuation/evaluation.js';
import { buildVocabulary, encode, FEATURE_SPECS, normaliseModel, parseClassRange, type TrainingSale } from '../../services/valuation/features.js';
import { fitTargetEncoding, targetColumns } from '../../services/valuation/target-encoding.js';

const sale = (over: Partial<TrainingSale>): TrainingSale => ({
  categoryId: 3,
  make: null,
  model: '950G',
  modelFamily: '950',
  year: 2004,
  hours: 6000,
  condition: null,
  state: 'TX',
  saleChannel: 'auction',
  soldAt: new Date('2011-05-01T00:00:00Z'),
  price: 80_000,
  attributes: { fiProductClassDesc: 'Wheel Loader - 150.0 to 175.0 Horsepower', ModelID: '3157' },
  ...over,
});

describe('valuation features', () => {
  it('parses size/horsepower ranges from the product class', () => {
    expect(parseClassRange('Wheel Loader - 150.0 to 175.0 Horsepower')).toEqual({ low: 150, high: 175, unit: 'horsepower' });
    expect(parseClassRange('Skid Steer Loader - 1351.0 to 1601.0 Lb Operating Capacity')).toMatchObject({ low: 1351, high: 1601 });
    expect(parseClassRange('Hydraulic Excavator, Track - 12.0 to 14.0 Metric Tons')).toMatchObject({ low: 12, high: 14, unit: 'metric tons' });
    expect(parseClassRange('Track Type Tractor, Dozer - Unidentified')).toBeNull();
    expect(parseClassRange(null)).toBeNull();
  });

  it('normalises model names so spellings of one model meet', () => {
    expect(normaliseModel('950 F-II')).toBe('950FII');
    expect(normaliseModel(' d6r ')).toBe('D6R');
    expect(normaliseModel('--')).toBeNull();
  });

  it('encodes absent values and unseen categories as missing, derives age at sale', () => {
    const rows = [sale({}), sale({ year: null, hours: null, state: null, model: 'Z1' })];
    const vocab = buildVocabulary([rows[0]!]);
    const m = encode(rows, vocab);
    const col = (name: string) => m.columns[FEATURE_SPECS.findIndex((s) => s.name === name)]!;
    expect(col('age')[0]).toBeCloseTo(7.33, 1);
    expect(Number.isNaN(col('age')[1]!)).toBe(true);
    expect(Number.isNaN(col('hours')[1]!)).toBe(true);
    expect(Number.isNaN(col('state')[1]!)).toBe(true);
    expect(col('state')[0]).toBe(0);
    // a category value never seen in training is missing too
    expect(Number.isNaN(encode([sale({ state: 'AK' })], vocab).columns[FEATURE_SPECS.findIndex((s) => s.name === 'state')]![0]!)).toBe(true);
    expect(col('class_low')[0]).toBe(150);
  });

  it('target encoding leaves a training row’s own fold out and is missing for unseen models', () => {
    const rows = Array.from({ length: 50 }, (_, i) => sale({ price: 50_000 + i * 1000 }));
    const te = fitTargetEncoding(rows);
    const [forNew] = targetColumns([sale({})], te);
    const [outOfFold] = targetColumns(rows, te, rows);
    expect(forNew![0]).toBeGreaterThan(Math.log1p(50_000));
    expect(new Set(outOfFold).size).toBeGreaterThan(1); // different folds, different values
    const [unseen] = targetColumns([sale({ model: 'NEW1' })], te);
    expect(Number.isNaN(unseen![0]!)).toBe(true);
  });
});

describe('comparables', () => {
  const now = new Date('2012-06-01T00:00:00Z');
  const c = (over: Partial<ComparableCandidate>): ComparableCandidate => ({
    title: 't', model: '950G', modelFamily: '950', year: 2004, hours: 6000, price: 80_000, soldAt: new Date('2012-01-01T00:00:00Z'), source: 's', url: null, ...over,
  });

  it('keeps only the same model or family, closest machine and most recent first', () => {
    const ranked = selectComparables(
      { model: '950G', modelFamily: '950', year: 2004, hours: 6000 },
      [
        c({ title: 'other family', model: 'D6R', modelFamily: 'D6' }),
        c({ title: 'old sale', soldAt: new Date('2005-01-01T00:00:00Z') }),
        c({ title: 'older machine', year: 1994 }),
        c({ title: 'twin' }),
        c({ title: 'family only', model: '950H', year: 2004 }),
      ],
      now,
    );
    // a 7-year-old sale of the same model (0.7) is still closer than a sibling model (1)
    expect(ranked.map((r) => r.title)).toEqual(['twin', 'old sale', 'family only', 'older machine']);
  });

  it('support grows with close comparables and falls as they age', () => {
    const target = { model: '950G', modelFamily: '950', year: 2004, hours: 6000 };
    const one = comparablesSupport(selectComparables(target, [c({})], now));
    const five = comparablesSupport(selectComparables(target, Array.from({ length: 5 }, () => c({})), now));
    const fiveOld = comparablesSupport(selectComparables(target, Array.from({ length: 5 }, () => c({ soldAt: new Date('2002-01-01T00:00:00Z') })), now));
    expect(five).toBeGreaterThan(one);
    expect(fiveOld).toBeLessThan(five);
    expect(fiveOld).toBeGreaterThan(five * 0.5 - 1e-9);
    expect(comparablesSupport([])).toBe(0);
  });
});

describe('evaluation', () => {
  it('computes RMSLE, median APE and range coverage; the baseline is each model’s median', () => {
    const f = evaluate([100, 200], [{ fairValue: 100, low: 90, high: 110 }, { fairValue: 100, low: 90, high: 110 }]);
    expect(f.coverage).toBe(0.5);
    expect(f.medianApe).toBeCloseTo(0.25, 9);
    expect(f.rmsle).toBeCloseTo(Math.sqrt((Math.log1p(100) - Math.log1p(200)) ** 2 / 2), 9);
    const train = [sale({ price: 10 }), sale({ price: 30 }), sale({ price: 20 }), sale({ model: 'X', modelFamily: 'X', price: 99 })];
    const [v] = modelMedianBaseline(train, [sale({})]);
    expect(v!.fairValue).toBe(20);
  });
});

describe('the market and the size a name states (issue 37)', () => {
  const input = (attributes: Record<string, string | number | null>, title: string | null = null) => ({
    categoryId: 8, make: null, model: null, modelFamily: null, year: 2018, hours: null, condition: null, state: null, saleChannel: null,
    soldAt: new Date('2023-01-10T00:00:00Z'), attributes, title,
  });

  it('reads the market from the source (Fast Iron records name none) and the conversion, and kVA and tons from the conversion or the title', async () => {
    const { encodeMarket, MARKET_FEATURE_SPECS } = await import('../../services/valuation/features.js');
    expect(MARKET_FEATURE_SPECS.map((s) => s.name)).toEqual(['market', 'size_kva', 'size_tons', 'tons_class']);
    const rows = [
      input({ ProductGroup: 'TEX' }),
      input({ source: 'rbauction', kva: 150, tons: null }),
      input({ source: 'westauction' }, 'Generac 25 kVA Towable Generator'),
      input({ source: 'rbauction', market: 'dealer-auction', tons: 90, tons_class: 5 }),
      input({ source: 'govdeals' }),
    ];
    const vocab = buildVocabulary(rows);
    expect(vocab.market).toEqual(['dealer-auction', 'online-surplus']);
    const [market, kva, tons, cls] = encodeMarket(rows, vocab).columns;
    expect([...market!]).toEqual([0, 0, 1, 0, 1]);
    expect([...kva!]).toEqual([NaN, 150, 25, NaN, NaN]);
    expect([...tons!]).toEqual([NaN, NaN, NaN, 90, NaN]);
    expect([...cls!]).toEqual([NaN, NaN, NaN, 5, NaN]);
  });
});
