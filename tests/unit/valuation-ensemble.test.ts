import { describe, expect, it } from 'vitest';
import { DEFAULT_TARGET_SMOOTHING, FairValueModel, LEFT_OUT_FEATURES, trainFairValueModel } from '../../services/valuation/fair-value-model.js';
import type { TrainingSale } from '../../services/valuation/features.js';
import { seededRandom } from '../../services/shared/seeded-random.js';
import { fitTargetEncoding, TARGET_FEATURE_SPECS, targetColumns } from '../../services/valuation/target-encoding.js';

// Synthetic history: three wheel-loader models whose price falls with age, each model at its own rate.
const random = seededRandom(11);
const MODELS = [
  { model: '980G', family: '980', secondary: 'G', base: 150_000, rate: 0.06 },
  { model: '950G', family: '950', secondary: 'G', base: 80_000, rate: 0.1 },
  { model: '950H', family: '950', secondary: 'H', base: 100_000, rate: 0.1 },
];
const sales: TrainingSale[] = Array.from({ length: 500 }, (_, i) => {
  const m = MODELS[i % MODELS.length]!;
  const year = 1996 + Math.floor(random() * 14);
  const soldAt = new Date(Date.UTC(2006 + Math.floor(random() * 5), Math.floor(random() * 12), 1));
  const age = soldAt.getUTCFullYear() - year;
  return {
    categoryId: 3, make: null, model: m.model, modelFamily: m.family, year, hours: 1000 + age * 800,
    condition: null, state: 'TX', saleChannel: 'auction', soldAt,
    price: Math.round(m.base * Math.exp(-m.rate * age) * (0.85 + random() * 0.3)),
    attributes: { fiSecondaryDesc: m.secondary, fiProductClassDesc: 'Wheel Loader - 150.0 to 175.0 Horsepower' },
  };
});
const params = { trees: 120, learningRate: 0.1 };

describe('fair-value ensemble', () => {
  const { model } = trainFairValueModel(sales, { params, members: 3 });
  const probe = sales.slice(0, 40);

  it('averages its members, each trained on its own seed', () => {
    expect(model.data.extraGbdts).toHaveLength(2);
    const seeds = [model.data.gbdt, ...model.data.extraGbdts!].map((g) => g.params.seed);
    expect(new Set(seeds).size).toBe(3);
    const single = trainFairValueModel(sales, { params, members: 1 }).model;
    expect(single.data.extraGbdts ?? []).toHaveLength(0);
    // the ensemble's fair value is the mean of its members' log prices
    const members = [model.data.gbdt, ...model.data.extraGbdts!].map((g) => new FairValueModel({ ...model.data, gbdt: g, extraGbdts: [] }));
    const ensemble = model.valueAll(probe);
    const perMember = members.map((m) => m.valueAll(probe));
    ensemble.forEach((v, i) => {
      const mean = perMember.reduce((s, p) => s + p[i]!.logPrice, 0) / members.length;
      expect(v.logPrice).toBeCloseTo(mean, 12);
    });
    // members differ (else averaging would buy nothing)
    expect(perMember[0]![0]!.logPrice).not.toBe(perMember[1]![0]!.logPrice);
  });

  it('serialises and deserialises to identical predictions', () => {
    const restored = FairValueModel.fromJSON(JSON.parse(JSON.stringify(model.toJSON())));
    expect(restored.treeCount).toBe(model.treeCount);
    const before = model.valueAll(probe);
    const after = restored.valueAll(probe);
    after.forEach((v, i) => expect(v).toEqual(before[i]));
  });

  it('learns: values the dearer model above the cheaper one at the same age', () => {
    const at = (m: (typeof MODELS)[number]) => model.value({ ...sales[0]!, model: m.model, modelFamily: m.family, year: 2004, hours: 3000, attributes: { fiSecondaryDesc: m.secondary } }).fairValue;
    expect(at(MODELS[0]!)).toBeGreaterThan(at(MODELS[2]!));
    expect(at(MODELS[2]!)).toBeGreaterThan(at(MODELS[1]!));
  });

  it('a model stored before the later target encodings still predicts: their columns read as missing', () => {
    const te = fitTargetEncoding(sales);
    const names = TARGET_FEATURE_SPECS.map((s) => s.name);
    // the columns a model stored earlier knew keep their positions
    expect(names.slice(0, 4)).toEqual(['te_model', 'te_family', 'te_model_id', 'te_model_count']);
    const later = names.slice(4);
    expect(later).toContain('te_model_age');
    const older = { ...te, tables: Object.fromEntries(Object.entries(te.tables).filter(([name]) => !later.includes(name))) };
    const columns = targetColumns(probe, older);
    for (let c = 4; c < names.length; c++) expect(columns[c]!.every((v) => Number.isNaN(v))).toBe(true);
    expect(columns[0]!.some((v) => Number.isNaN(v))).toBe(false);
    // with the tables present, the age-bucketed model encoding separates young from old machines
    const [young, old] = [2009, 1997].map((year) => targetColumns([{ ...sales[1]!, year, soldAt: new Date('2010-06-01T00:00:00Z') }], te)[names.indexOf('te_model_age')]![0]!);
    expect(young).toBeGreaterThan(old!);
  });


  it('uses hours by default (issue #18, monotone), leaves datasource, auctioneer and the year-unsafe encodings out', () => {
    expect(LEFT_OUT_FEATURES).toEqual(expect.arrayContaining(['hours_per_year', 'te_model_age', 'te_family_age', 'attr_datasource', 'attr_auctioneerID']));
    expect(LEFT_OUT_FEATURES).not.toContain('hours');
    const usesFeature = (m: FairValueModel, name: string) => {
      const f = m.data.gbdt.features.findIndex((spec) => spec.name === name);
      return m.data.gbdt.trees.some((t) => t.feature.includes(f));
    };
    // hours carry signal here (they grow with age), so the model splits on them
    expect(usesFeature(model, 'hours')).toBe(true);
    expect(usesFeature(model, 'hours_per_year')).toBe(false);
    const probeAt = (m: FairValueModel, hours: number | null) => m.value({ ...sales[0]!, hours }).fairValue;
    expect(probeAt(model, 500)).toBeGreaterThanOrEqual(probeAt(model, 20_000));
    const without = trainFairValueModel(sales, { params, dropFeatures: ['hours', 'hours_per_year'] }).model;
    expect(usesFeature(without, 'hours')).toBe(false);
  });

  it('fills missing hours from the model’s typical hours per year of age when asked', () => {
    const imputed = trainFairValueModel(sales, { params, dropFeatures: [], imputeHours: true }).model;
    const rates = imputed.data.typicalHoursPerYear!;
    expect(rates['3|980G']).toBeGreaterThan(500);
    // a sale without hours is valued as one with its model's typical hours for its age
    const sale = sales.find((s) => s.model === '980G' && s.year! <= 2004)!;
    const age = (sale.soldAt.getTime() - Date.UTC(sale.year!, 0, 1)) / (365.25 * 24 * 3600 * 1000);
    const typical = Math.round(rates['3|980G']! * age);
    expect(imputed.value({ ...sale, hours: null }).fairValue).toBeCloseTo(imputed.value({ ...sale, hours: typical }).fairValue, 0);
  });

  it('a drift share moves the fair value by a share of the holdout’s median error and keeps the range around it', () => {
    const plain = trainFairValueModel(sales, { params }).model;
    const drifted = trainFairValueModel(sales, { params, driftShare: 1 }).model;
    const offset = drifted.data.logOffset!;
    expect(Math.abs(offset)).toBeGreaterThan(0);
    const [a] = plain.valueAll(probe);
    const [b] = drifted.valueAll(probe);
    expect(b!.logPrice - a!.logPrice).toBeCloseTo(offset, 12);
    // the same band of prices: the quantiles shifted by the offset
    expect(b!.low).toBeCloseTo(a!.low, 6);
    expect(b!.high).toBeCloseTo(a!.high, 6);
    const restored = FairValueModel.fromJSON(JSON.parse(JSON.stringify(drifted.toJSON())));
    expect(restored.valueAll(probe)).toEqual(drifted.valueAll(probe));
  });

  it('smooths the target encodings with one pseudo-sale by default (issue #7 follow-up), or as asked', () => {
    expect(DEFAULT_TARGET_SMOOTHING).toBe(1);
    expect(model.data.targetEncoding.smoothing).toBe(1);
    const five = trainFairValueModel(sales, { params, members: 1, targetSmoothing: 5 }).model;
    expect(five.data.targetEncoding.smoothing).toBe(5);
    // a model's few sales move its encoding further from the type's mean with less smoothing
    const rare = [...sales.filter((s) => s.model !== '980G'), ...sales.filter((s) => s.model === '980G').slice(0, 3)];
    const column = (smoothing: number) => {
      const te = fitTargetEncoding(rare, smoothing);
      return targetColumns([{ ...rare[rare.length - 1]! }], te)[0]![0]!;
    };
    const typeMean = fitTargetEncoding(rare).prior['3']!;
    expect(Math.abs(column(1) - typeMean)).toBeGreaterThan(Math.abs(column(5) - typeMean));
    // stored with the model, so a model trained with another smoothing scores as it was trained
    const restored = FairValueModel.fromJSON(JSON.parse(JSON.stringify(five.toJSON())));
    expect(restored.valueAll(probe)).toEqual(five.valueAll(probe));
  });

  it("gives an online source its own, wider range: its held-out errors' 5–95% by default", () => {
    // the same history sold again at an online auction, with hammer prices scattered ±2× around it
    const scatter = seededRandom(5);
    const online = sales.map((s) => ({ ...s, attributes: { ...s.attributes, source: 'westauction' }, price: Math.round(s.price * Math.exp((scatter() - 0.5) * 1.4)) }));
    const width = (tail: number) => {
      const { model: m } = trainFairValueModel([...sales, ...online], { params, members: 1, onlineRangeTail: tail, holdoutOnly: true });
      const r = m.data.ranges.bySource!.westauction!;
      return r.high - r.low;
    };
    const narrow = width(0.1);
    const wide = width(0.05);
    expect(wide).toBeGreaterThan(narrow);
    const { model: m } = trainFairValueModel([...sales, ...online], { params, members: 1, holdoutOnly: true });
    expect(m.data.ranges.bySource!.westauction!.high - m.data.ranges.bySource!.westauction!.low).toBeCloseTo(wide, 12);
    // Fast Iron's rows keep the 10–90% of theirs
    expect(m.data.ranges.bySource!.fastiron!.high - m.data.ranges.bySource!.fastiron!.low).toBeLessThan(narrow);
  });
});
