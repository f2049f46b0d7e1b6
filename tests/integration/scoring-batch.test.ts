/**
 * Scoring before and after the first model, and batch rescoring, through the real pieces: real
 * PostgreSQL, real `score`/`score-batch`/`model` queues and the scorer's workers.
 *  - score jobs that arrive before any model complete (none fails) and the listing says it is
 *    waiting; the rescore after the first training values every waiting listing;
 *  - a batch (one read, one block prediction, one write) writes exactly what scoring the same
 *    listings one at a time writes.
 */
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listings } from '../../db/schema/index.js';
import { importSalesCommand } from '../../scripts/cli/import-sales-command.js';
import { startScorer } from '../../services/scorer/index.js';
import { ModelStore } from '../../services/scorer/model-store.js';
import { ComparablePool, ComparablePoolCache } from '../../services/scorer/comparable-pool.js';
import { AWAITING_MODEL_REASON, candidatesFromPool, runScoreBatchJob } from '../../services/scorer/score-batch.js';
import { soldResultToCandidate } from '../../services/scorer/sales-history.js';
import { findComparableCandidates, listComparablePool } from '../../services/shared/repositories/sold-results-repository.js';
import { runScoreJob } from '../../services/scorer/score-job.js';
import { trainAndStoreModel } from '../../services/scorer/train-model.js';
import type { ServiceHandle } from '../../services/shared/service.js';
import { REASON_TEXT } from '../../services/valuation/score-listing.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { insertSource } from '../support/listing-fixtures.js';

const DATA = path.resolve(process.env.SHARED_DIR ?? '../shared', 'data/bulldozers');
const BACKHOE = 4;
const CRANES = 6;

async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() - start > timeoutMs) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const SCORE_COLUMNS = sql`id, deal_score AS "dealScore", fair_value::float8 AS "fairValue", value_low::float8 AS "valueLow",
  value_high::float8 AS "valueHigh", valuation_confidence AS "valuationConfidence", comparables, model_version AS "modelVersion",
  scored_at AS "scoredAt", score_reason AS "scoreReason", valuation_as_of::text AS "valuationAsOf"`;

describe('scoring before the first model, and in batches', () => {
  let ctx: TestContext;
  let scorer: ServiceHandle | undefined;
  let sourceId: number;
  let seq = 0;

  beforeAll(async () => {
    ctx = await createTestContext();
    sourceId = (await insertSource(ctx.database.db, 'batch-test', 'Batch Test Auctions')).id;
  }, 60_000);

  afterAll(async () => {
    await scorer?.stop();
    await ctx?.close();
  });

  async function addListings(rows: Array<Partial<typeof listings.$inferInsert>>): Promise<number[]> {
    const inserted = await ctx.database.db
      .insert(listings)
      .values(
        rows.map((values) => {
          seq++;
          return {
            sourceId,
            externalId: `lot-${seq}`,
            slug: `batch-lot-${seq}`,
            title: `Lot ${seq}`,
            categoryId: BACKHOE,
            originalUrl: `http://127.0.0.1/lots/${seq}`,
            ...values,
          };
        }),
      )
      .returning({ id: listings.id });
    return inserted.map((r) => r.id);
  }

  async function scores(ids: number[]) {
    const rows = (await ctx.database.db.execute(sql`SELECT ${SCORE_COLUMNS} FROM listings WHERE id = ANY(${`{${ids.join(',')}}`}::int[]) ORDER BY id`)) as unknown as Array<Record<string, unknown>>;
    return rows;
  }

  async function failedCount(): Promise<number> {
    let failed = 0;
    for (const name of ['score', 'scoreBatch', 'model'] as const) failed += await ctx.queues.queue(name).getFailedCount();
    return failed;
  }

  const backhoe = { make: 'Caterpillar', model: '416D', modelFamily: '416', year: 2002, hours: 4000, state: 'TX', condition: 'Good' as const };
  let waitingIds: number[] = [];

  it('score jobs before the first model complete without failing, and the listing says it is waiting', async () => {
    waitingIds = await addListings([
      { ...backhoe, title: '2002 Caterpillar 416D backhoe', price: 9000, priceUsd: 9000 },
      { ...backhoe, model: '420D', modelFamily: '420', title: '2004 Caterpillar 420D', year: 2004, price: 30_000, priceUsd: 30_000 },
      { categoryId: CRANES, make: 'Grove', model: 'RT890E', modelFamily: 'RT890', year: 2010, title: 'Grove RT890E crane', price: 1000, priceUsd: 1000 },
    ]);
    scorer = await startScorer(ctx);
    const jobs = await Promise.all(waitingIds.map((listingId) => ctx.queues.enqueue('score', { listingId, reason: 'new', version: 'obs-1' })));
    for (const job of jobs) {
      await waitFor(async () => {
        const state = await ctx.queues.queue('score').getJobState(job.id!);
        return state === 'completed' || state === 'failed' ? state : undefined;
      }).then((state) => expect(state).toBe('completed'));
    }
    expect(await failedCount()).toBe(0);
    for (const row of await scores(waitingIds)) {
      expect(row.scoreReason).toBe(AWAITING_MODEL_REASON);
      expect(row.modelVersion).toBeNull();
      expect(row.dealScore).toBeNull();
    }
  });

  it('the rescore after the first training values every waiting listing, in batches, with no failed job', async () => {
    expect(await importSalesCommand.run(ctx, ['--format', 'fastiron', path.join(DATA, 'Train_first10931rows.csv.gz')])).toBe(0);
    // a quicker fit than production keeps the test short; then what the train job does after training
    const info = await trainAndStoreModel(ctx.database.db, { params: { trees: 150, learningRate: 0.1 } });
    await ctx.queues.enqueue('model', { action: 'rescore-all', reason: 'new-model', version: info.version });
    const rows = await waitFor(async () => {
      const current = await scores(waitingIds);
      return current.every((r) => r.modelVersion === info.version) ? current : undefined;
    });
    // the batch job completes once its match jobs are queued, just after the write
    await waitFor(async () => ((await ctx.queues.queue('scoreBatch').getCompletedCount()) >= 1 ? true : undefined));
    expect(await failedCount()).toBe(0);
    const [cheap, other, crane] = rows;
    expect(cheap!.dealScore).not.toBeNull();
    expect(cheap!.scoreReason).toBeNull();
    expect(cheap!.valuationAsOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(other!.fairValue).not.toBeNull();
    expect(crane!.dealScore).toBeNull();
    expect(crane!.scoreReason).toBe(REASON_TEXT['unsupported-type']);
    expect(crane!.valuationAsOf).toBeNull();
    await scorer?.stop();
    scorer = undefined;
  }, 240_000);

  it('a batch writes exactly what scoring the same listings one at a time writes', async () => {
    const now = new Date();
    const hour = 3600_000;
    const ids = await addListings([
      { ...backhoe, title: '2002 Caterpillar 416D backhoe, low price', price: 8000, priceUsd: 8000, buyersPremiumPct: 10 },
      { ...backhoe, title: '2002 Caterpillar 416D', price: 60_000, priceUsd: 60_000 },
      { ...backhoe, title: 'Open auction, days to run', price: 12_000, priceUsd: 12_000, bidCount: 3, auctionEndAt: new Date(now.getTime() + 96 * hour) },
      { ...backhoe, title: 'Open auction, ending', price: 12_000, priceUsd: 12_000, bidCount: 3, auctionEndAt: new Date(now.getTime() + hour) },
      { ...backhoe, hours: null, year: null, title: 'Caterpillar 416 backhoe', model: null, price: 15_000, priceUsd: 15_000 },
      { ...backhoe, model: '580K', modelFamily: '580', make: 'Case', title: 'Case 580K backhoe', price: 14_000, priceUsd: 14_000, status: 'sold' },
      { ...backhoe, title: 'No price yet', price: null, priceUsd: null },
      { make: 'Nobody', model: 'ZX9000', modelFamily: 'ZX9000', year: 2015, title: 'Unknown model', price: 1000, priceUsd: 1000 },
      { categoryId: CRANES, make: 'Grove', model: 'RT890E', modelFamily: 'RT890', title: 'Crane', price: 1000, priceUsd: 1000 },
      { make: 'John Deere', model: '310SG', modelFamily: '310', year: 2006, hours: 7000, title: 'JD 310SG', price: 25_000, priceUsd: 25_000, currency: 'CAD' },
    ]);
    const models = new ModelStore(ctx.database.db);
    for (const listingId of ids) await runScoreJob(ctx, models, { listingId, reason: 'new', version: 'single' }, now);
    const single = await scores(ids);
    await ctx.database.db.execute(sql`UPDATE listings SET deal_score = NULL, fair_value = NULL, value_low = NULL, value_high = NULL,
      valuation_confidence = NULL, comparables = NULL, model_version = NULL, scored_at = NULL, score_reason = NULL, valuation_as_of = NULL
      WHERE id = ANY(${`{${ids.join(',')}}`}::int[])`);
    // the scorer's batch path: comparables from the in-memory pool, one block prediction, one write
    const outcome = await runScoreBatchJob(ctx, models, { listingIds: ids }, { now, candidates: candidatesFromPool(new ComparablePoolCache(ctx.database.db)) });
    expect(outcome).toMatchObject({ scored: ids.length, missing: 0 });
    const batch = await scores(ids);
    expect(batch).toEqual(single);
    // the comparison means something: scored and unscored listings, comparables in today's dollars
    expect(single.filter((r) => r.dealScore !== null).length).toBeGreaterThanOrEqual(4);
    // (no price, a type the history does not cover; an unknown model is valued from its type and words)
    expect(single.filter((r) => r.dealScore === null && r.scoreReason !== null).length).toBeGreaterThanOrEqual(2);
    const comparables = single[0]!.comparables as Array<Record<string, unknown>>;
    expect(comparables.length).toBeGreaterThan(0);
    expect(comparables[0]).toHaveProperty('original_price');
  });

  it('the in-memory comparables pool picks exactly what the SQL picks', async () => {
    const pool = new ComparablePool(await listComparablePool(ctx.database.db));
    const targets = [
      { categoryId: BACKHOE, model: '416D', modelFamily: '416', make: 'Caterpillar' },
      { categoryId: BACKHOE, model: '416-d', modelFamily: null, make: null },
      { categoryId: BACKHOE, model: null, modelFamily: '580', make: 'Case' },
      { categoryId: BACKHOE, model: '310SG', modelFamily: '310', make: 'John Deere' },
      { categoryId: BACKHOE, model: null, modelFamily: null, make: 'Caterpillar' },
      { categoryId: BACKHOE, model: null, modelFamily: null, make: null },
      { categoryId: 1, model: '320CL', modelFamily: '320', make: null },
      { categoryId: 1, model: 'PC200', modelFamily: 'PC200', make: 'Komatsu' },
      { categoryId: CRANES, model: 'RT890E', modelFamily: 'RT890', make: 'Grove' },
      { categoryId: BACKHOE, model: 'ZX9000', modelFamily: 'ZX9000', make: 'Nobody' },
    ];
    let nonEmpty = 0;
    for (const target of targets) {
      const fromSql = (await findComparableCandidates(ctx.database.db, target)).map(soldResultToCandidate);
      expect(pool.candidatesFor(target), JSON.stringify(target)).toEqual(fromSql);
      if (fromSql.length > 0) nonEmpty++;
    }
    expect(nonEmpty).toBeGreaterThanOrEqual(5);
  });
});
