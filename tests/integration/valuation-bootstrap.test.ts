import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapValuation } from '../../services/scorer/bootstrap.js';
import { countSoldResultsByOrigin } from '../../services/shared/repositories/sold-results-repository.js';
import { QUEUES } from '../../services/shared/queues.js';
import { createTestContext, type TestContext } from '../support/context.js';

describe('valuation bootstrap on a fresh installation', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => ctx?.close());

  it('imports the Fast Iron sales, West Auctions machine lots and Ritchie Bros. machine lots once and queues one first training', async () => {
    expect(await bootstrapValuation(ctx)).toBe('training-queued');
    const counts = await countSoldResultsByOrigin(ctx.database.db);
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    // 10,931 training sales + 5,098 priced January–February 2012 sales, all six groups mapped.
    expect(counts['import:fastiron']).toBe(10_931 + 5_098);
    // West Auctions: the closed machine lots with a hammer price (of 31,124 lots, mostly merchandise).
    expect(counts['import:westauction']).toBeGreaterThan(700);
    expect(counts['import:westauction']).toBeLessThan(1_000);
    // Ritchie Bros.: the machine lots of the 62,182 results (36,291 when docs/sources.md was written).
    expect(counts['import:rbauction']).toBeGreaterThan(30_000);
    expect(counts['import:rbauction']).toBeLessThan(45_000);

    // Again (another replica, or a restart before training finished): no second import, one job.
    expect(await bootstrapValuation(ctx)).toBe('training-queued');
    const again = Object.values(await countSoldResultsByOrigin(ctx.database.db)).reduce((a, b) => a + b, 0);
    expect(again).toBe(total);
    const jobs = await ctx.queues.queue('model').getJobs(['waiting', 'delayed', 'active']);
    expect(jobs.filter((j) => j.data.action === 'train')).toHaveLength(1);
    expect(jobs[0]!.id).toBe(QUEUES.model.jobId({ action: 'train', reason: 'bootstrap', slot: 'bootstrap' }));
  }, 360_000);
});

describe('valuation bootstrap without data', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { SHARED_DIR: mkdtempSync(path.join(os.tmpdir(), 'no-shared-')) } });
  });
  afterAll(async () => ctx?.close());

  it('queues nothing and says so when there are no sales to learn from', async () => {
    expect(await bootstrapValuation(ctx)).toBe('no-sales');
    expect(await ctx.queues.queue('model').getJobs(['waiting'])).toHaveLength(0);
  });
});
