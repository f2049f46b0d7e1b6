import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../services/shared/seeded-random.js';
import { binMatrix, GbdtModel, trainGbdt, type FeatureMatrix, type FeatureSpec } from '../../services/valuation/gbdt.js';

function matrix(columns: number[][]): FeatureMatrix {
  return { columns: columns.map((c) => Float64Array.from(c)), rows: columns[0]!.length };
}

describe('gradient-boosted trees', () => {
  it('a single tree fits a step function exactly', () => {
    const x = Array.from({ length: 200 }, (_, i) => i / 10);
    const y = Float64Array.from(x.map((v) => (v < 7.3 ? 2 : 5)));
    const { model } = trainGbdt([{ name: 'x', kind: 'numeric' }], matrix([x]), y, {
      trees: 1, learningRate: 1, maxLeaves: 2, lambda: 0, subsample: 1, colsample: 1, minDataInLeaf: 1,
    });
    expect(model.treeCount).toBe(1);
    expect(model.predictRow([1])).toBeCloseTo(2, 9);
    expect(model.predictRow([7.2])).toBeCloseTo(2, 9);
    expect(model.predictRow([7.3])).toBeCloseTo(5, 9);
    expect(model.predictRow([19])).toBeCloseTo(5, 9);
    // the threshold lies between the last 2 and the first 5
    const threshold = model.data.trees[0]!.threshold[0]!;
    expect(threshold).toBeGreaterThanOrEqual(7.2);
    expect(threshold).toBeLessThan(7.3);
  });

  it('boosting reduces the training loss tree after tree and learns a smooth curve', () => {
    const random = seededRandom(7);
    const n = 1000;
    const a = Array.from({ length: n }, () => random() * 10);
    const b = Array.from({ length: n }, () => random() * 10);
    const y = Float64Array.from(a.map((v, i) => Math.sin(v) + 0.3 * b[i]! + (random() - 0.5) * 0.1));
    const { model, report } = trainGbdt(
      [{ name: 'a', kind: 'numeric' }, { name: 'b', kind: 'numeric' }],
      matrix([a, b]),
      y,
      { trees: 200, learningRate: 0.1, maxLeaves: 15 },
    );
    expect(report.trainLoss.length).toBe(200);
    for (let t = 1; t < report.trainLoss.length; t++) expect(report.trainLoss[t]!).toBeLessThanOrEqual(report.trainLoss[t - 1]! + 1e-9);
    expect(report.trainLoss[199]!).toBeLessThan(report.trainLoss[0]! / 20);
    expect(model.predictRow([Math.PI / 2, 5])).toBeCloseTo(1 + 1.5, 0);
  });

  it('Huber loss: one wild price among twenty alike does not drag the fit as squared loss does', () => {
    // twenty sales at 0 and one at 10 that no split can set apart (one feature, one value)
    const x = matrix([Array.from({ length: 21 }, () => 1)]);
    const y = Float64Array.from({ length: 21 }, (_, i) => (i === 20 ? 10 : 0));
    const params = { trees: 300, learningRate: 0.1, lambda: 0, subsample: 1, colsample: 1, minDataInLeaf: 1 };
    const fit = (extra: object) => trainGbdt([{ name: 'x', kind: 'numeric' }], x, y, { ...params, ...extra }).model.predictRow([1]);
    expect(fit({})).toBeCloseTo(10 / 21, 6); // squared loss: the mean
    // Huber (δ 0.3): where 20 pulls of the capped size balance the wild one's capped pull, 0.3 / 20
    expect(fit({ huberDelta: 0.3 })).toBeCloseTo(0.015, 3);
    // a δ no residual reaches is squared loss again
    expect(fit({ huberDelta: 100 })).toBeCloseTo(fit({}), 12);
    // per-row deltas override it: the wild row uncapped pulls like squared loss, and the twenty capped rows never reach their cap
    const perRow = (wild: number) =>
      trainGbdt([{ name: 'x', kind: 'numeric' }], x, y, { ...params, huberDelta: 0.3 }, undefined, undefined, Float64Array.from({ length: 21 }, (_, i) => (i === 20 ? wild : 0.3))).model.predictRow([1]);
    expect(perRow(0.3)).toBeCloseTo(0.015, 3);
    expect(perRow(Infinity)).toBeGreaterThan(0.3);
  });

  it('early stopping weighs its validation rows as told', () => {
    // two groups at 0 and 10; the trees walk group 1 from the mean (5) up to 10
    const x = matrix([Array.from({ length: 40 }, (_, i) => i % 2)]);
    const y = Float64Array.from({ length: 40 }, (_, i) => (i % 2 ? 10 : 0));
    const valid = (weights?: number[]) => ({ x: matrix([[1, 1]]), y: Float64Array.from([10, 5]), weights: weights && Float64Array.from(weights) });
    const params = { trees: 60, learningRate: 0.05, lambda: 0, subsample: 1, colsample: 1, minDataInLeaf: 1, earlyStoppingRounds: 1000 };
    const best = (weights?: number[]) => trainGbdt([{ name: 'x', kind: 'numeric' }], x, y, params, valid(weights)).report.bestIteration;
    expect(best([1, 0])).toBe(60); // only the row at 10 counts: every tree helps
    expect(best([0, 1])).toBe(1); // only the row at 5 counts: the first tree already overshoots it
    const unweighted = best();
    expect(unweighted).toBeGreaterThan(1);
    expect(unweighted).toBeLessThan(60);
  });

  it('splits on categories many-vs-many', () => {
    const codes = Array.from({ length: 600 }, (_, i) => i % 6);
    const value = [10, 1, 10, 1, 1, 10];
    const y = Float64Array.from(codes.map((c) => value[c]!));
    const { model } = trainGbdt([{ name: 'c', kind: 'categorical' }], matrix([codes]), y, {
      trees: 1, learningRate: 1, maxLeaves: 2, lambda: 0, subsample: 1, colsample: 1, catSmooth: 0,
    });
    for (let c = 0; c < 6; c++) expect(model.predictRow([c])).toBeCloseTo(value[c]!, 9);
  });

  it('handles missing values: learns where they go, and predicts unseen categories as missing', () => {
    // missing rows behave like the high group; the split must send them right
    const x: number[] = [];
    const y: number[] = [];
    for (let i = 0; i < 300; i++) {
      const kind = i % 3;
      x.push(kind === 0 ? 1 : kind === 1 ? 9 : NaN);
      y.push(kind === 0 ? 0 : 10);
    }
    const cat = x.map((v) => (Number.isNaN(v) ? NaN : v === 1 ? 3 : 4));
    const features: FeatureSpec[] = [{ name: 'x', kind: 'numeric' }];
    const { model } = trainGbdt(features, matrix([x]), Float64Array.from(y), {
      trees: 1, learningRate: 1, maxLeaves: 2, lambda: 0, subsample: 1, colsample: 1,
    });
    expect(model.predictRow([NaN])).toBeCloseTo(10, 9);
    expect(model.predictRow([1])).toBeCloseTo(0, 9);
    const catModel = trainGbdt([{ name: 'c', kind: 'categorical' }], matrix([cat]), Float64Array.from(y), {
      trees: 1, learningRate: 1, maxLeaves: 2, lambda: 0, subsample: 1, colsample: 1, catSmooth: 0,
    }).model;
    expect(catModel.predictRow([NaN])).toBeCloseTo(10, 9);
    expect(catModel.predictRow([3])).toBeCloseTo(0, 9);
    // a code never seen in training follows the missing branch rather than throwing
    expect(catModel.predictRow([99])).toBeCloseTo(10, 9);
    // all-missing feature: no split possible, the model predicts the mean
    const empty = trainGbdt(features, matrix([x.map(() => NaN)]), Float64Array.from(y), { trees: 3, subsample: 1 }).model;
    expect(empty.predictRow([NaN])).toBeCloseTo(y.reduce((s, v) => s + v, 0) / y.length, 9);
  });

  it('serialise then deserialise gives identical predictions', () => {
    const random = seededRandom(3);
    const n = 500;
    const a = Array.from({ length: n }, () => (random() < 0.1 ? NaN : random() * 100));
    const c = Array.from({ length: n }, () => Math.floor(random() * 20));
    const y = Float64Array.from(a.map((v, i) => (Number.isNaN(v) ? 3 : v / 10) + (c[i]! % 4)));
    const features: FeatureSpec[] = [{ name: 'a', kind: 'numeric' }, { name: 'c', kind: 'categorical' }];
    const { model } = trainGbdt(features, matrix([a, c]), y, { trees: 50 });
    const restored = GbdtModel.fromJSON(JSON.parse(JSON.stringify(model.toJSON())));
    const m = matrix([a, c]);
    const before = model.predict(m);
    const after = restored.predict(m);
    expect(Array.from(after)).toEqual(Array.from(before));
  });

  it('batch prediction (trees over blocks of rows) equals row-by-row prediction exactly, unseen codes and missing values included', () => {
    const random = seededRandom(11);
    const n = 700; // more rows than one block, and a partial last block
    const a = Array.from({ length: n }, () => (random() < 0.1 ? NaN : random() * 100));
    const c = Array.from({ length: n }, () => Math.floor(random() * 20));
    const y = Float64Array.from(a.map((v, i) => (Number.isNaN(v) ? 3 : v / 10) + (c[i]! % 4)));
    const features: FeatureSpec[] = [{ name: 'a', kind: 'numeric' }, { name: 'c', kind: 'categorical' }];
    const { model } = trainGbdt(features, matrix([a, c]), y, { trees: 40 });
    // scoring rows: some codes the training never saw, some missing
    const sa = a.map((v, i) => (i % 7 === 0 ? NaN : v));
    const sc = c.map((v, i) => (i % 5 === 0 ? 50 + i : i % 11 === 0 ? NaN : v));
    const batch = model.predict(matrix([sa, sc]));
    sa.forEach((v, i) => expect(batch[i]).toBe(model.predictRow([v, sc[i]!])));
  });

  it('is deterministic for a seed and stops early on a validation set', () => {
    const random = seededRandom(11);
    const a = Array.from({ length: 400 }, () => random());
    const y = Float64Array.from(a.map((v) => v + (random() - 0.5)));
    const f: FeatureSpec[] = [{ name: 'a', kind: 'numeric' }];
    const one = trainGbdt(f, matrix([a]), y, { trees: 30, seed: 5 }).model;
    const two = trainGbdt(f, matrix([a]), y, { trees: 30, seed: 5 }).model;
    expect(JSON.stringify(one.toJSON())).toBe(JSON.stringify(two.toJSON()));
    const valid = { x: matrix([a.slice(0, 100)]), y: y.slice(0, 100) };
    const { model, report } = trainGbdt(f, matrix([a.slice(100)]), y.slice(100), { trees: 500, earlyStoppingRounds: 20, learningRate: 0.3 }, valid);
    expect(report.validLoss.length).toBeLessThan(500);
    expect(model.treeCount).toBe(report.bestIteration);
  });

  it('training tracks its losses in bin space exactly as the model predicts from raw values (sampled rows, unseen rows, validation rows)', () => {
    const random = seededRandom(21);
    const n = 900;
    const a = Array.from({ length: n }, () => (random() < 0.1 ? NaN : random() * 100));
    const c = Array.from({ length: n }, () => (random() < 0.05 ? NaN : Math.floor(random() * 30)));
    const flat = Array.from({ length: n }, () => 7); // one value: never split on
    const y = Float64Array.from(a.map((v, i) => (Number.isNaN(v) ? 3 : v / 10) + (Number.isNaN(c[i]!) ? 2 : c[i]! % 5) + random()));
    const features: FeatureSpec[] = [{ name: 'a', kind: 'numeric' }, { name: 'c', kind: 'categorical' }, { name: 'flat', kind: 'numeric' }];
    const train = matrix([a.slice(0, 700), c.slice(0, 700), flat.slice(0, 700)]);
    // validation rows with values between the training bins' edges, unseen codes and missing values
    const valid = { x: matrix([a.slice(700).map((v, i) => (i % 4 === 0 ? v + 0.01 : v)), c.slice(700).map((v, i) => (i % 6 === 0 ? 99 : v)), flat.slice(700)]), y: y.slice(700) };
    const mse = (p: Float64Array, t: Float64Array) => p.reduce((s, v, i) => s + (v - t[i]!) ** 2, 0) / t.length;
    const { model, report } = trainGbdt(features, train, y.slice(0, 700), { trees: 60, subsample: 0.7, colsample: 0.7, earlyStoppingRounds: 1000 }, valid);
    expect(model.treeCount).toBe(report.bestIteration);
    expect(report.validLoss[report.bestIteration - 1]).toBeCloseTo(mse(model.predict(valid.x), valid.y), 12);
    const all = trainGbdt(features, train, y.slice(0, 700), { trees: 40, subsample: 0.7, colsample: 0.7 });
    expect(report.trainLoss.slice(0, 40)).toEqual(all.report.trainLoss);
    expect(all.report.trainLoss[39]).toBeCloseTo(mse(all.model.predict(train), y.slice(0, 700)), 12);
    expect(all.model.data.trees.every((tree) => !tree.feature.includes(2))).toBe(true);
  });
  it('grows the same trees from a matrix binned once (binMatrix, raw columns released) as from the raw columns', () => {
    const random = seededRandom(11);
    const n = 600;
    const a = Array.from({ length: n }, () => random() * 10);
    const c = Array.from({ length: n }, () => (random() < 0.1 ? NaN : Math.floor(random() * 6)));
    const y = Float64Array.from(a.map((v, i) => Math.cos(v) + (Number.isNaN(c[i]!) ? 0 : c[i]! * 0.2) + (random() - 0.5) * 0.1));
    const specs: FeatureSpec[] = [{ name: 'a', kind: 'numeric' }, { name: 'c', kind: 'categorical' }];
    const params = { trees: 60, learningRate: 0.1, maxLeaves: 7, subsample: 0.8, colsample: 1, maxBins: 32 };
    const raw = trainGbdt(specs, matrix([a, c]), y, params).model.toJSON();
    const source = matrix([a, c]);
    const binned = binMatrix(specs, source, params, true);
    expect(source.columns.every((col) => col.length === 0)).toBe(true);
    expect(trainGbdt(specs, binned, y, { ...params, seed: 1 }).model.toJSON()).toEqual(trainGbdt(specs, matrix([a, c]), y, { ...params, seed: 1 }).model.toJSON());
    expect(trainGbdt(specs, binned, y, params).model.toJSON()).toEqual(raw);
    expect(() => trainGbdt(specs, binned, y, { ...params, maxBins: 64 })).toThrow(/other binning parameters/);
  });
});
