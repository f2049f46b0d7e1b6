import { describe, expect, it } from 'vitest';
import { trainFairValueModel } from '../../services/valuation/fair-value-model.js';
import { MIN_ROWS_FOR_THREADS } from '../../services/valuation/fair-value-members.js';
import { syntheticSales } from '../../scripts/bench/synthetic-sales.js';
import { trainInThread } from '../../services/scorer/train-model.js';

// Enough sales that the members grow in two threads (MIN_ROWS_FOR_THREADS), few trees so it is quick.
const sales = syntheticSales(Math.ceil(MIN_ROWS_FOR_THREADS * 1.4), 3);
const params = { trees: 40, learningRate: 0.2, earlyStoppingRounds: 10 };

describe('members grown in two threads', () => {
  it('make the model one thread makes, byte for byte', { timeout: 120_000 }, () => {
    const messages: string[] = [];
    const two = trainFairValueModel(sales, { params, members: 3, threads: 2, onProgress: (m) => messages.push(m) }).model;
    const one = trainFairValueModel(sales, { params, members: 3, threads: 1 }).model;
    // the second thread really ran: members 2 and 3 were neither fitted nor refitted on this one
    expect(messages.some((m) => m.includes('(and 2 in a second thread)'))).toBe(true);
    expect(messages.filter((m) => /^(holdout fit|refit) [23]\/3/.test(m))).toEqual([]);
    expect(messages.filter((m) => /^(holdout fit|refit) 1\/3/.test(m))).toHaveLength(2);
    expect(two.data.extraGbdts).toHaveLength(2);
    expect(JSON.stringify(two.toJSON())).toBe(JSON.stringify(one.toJSON()));
  });

  it('stop after the holdout fit as one thread does', { timeout: 120_000 }, () => {
    const two = trainFairValueModel(sales, { params, members: 2, threads: 2, holdoutOnly: true }).model;
    const one = trainFairValueModel(sales, { params, members: 2, threads: 1, holdoutOnly: true }).model;
    expect(JSON.stringify(two.toJSON())).toBe(JSON.stringify(one.toJSON()));
  });

  it("grow in a helper of the scorer's training thread, the model unchanged", { timeout: 180_000 }, async () => {
    const messages: string[] = [];
    const two = await trainInThread(sales, { params, members: 3, threads: 2, nice: 5 }, undefined, (m) => messages.push(m));
    const one = await trainInThread(sales, { params, members: 3, threads: 1 });
    expect(messages.some((m) => m.includes('(and 2 in a second thread)'))).toBe(true);
    expect(JSON.stringify(two.model)).toBe(JSON.stringify(one.model));
  });
});
