/**
 * Scoring through the real pieces: the Fast Iron import command writes sales history into
 * PostgreSQL, a model is trained (in its thread) and stored as a version, and the scorer's
 * workers consume real `score` and `model` jobs, write the listing's valuation and queue a match.
 */
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listings, sources } from '../../db/schema/index.js';
import { importSalesCommand } from '../../scripts/cli/import-sales-command.js';
import { startScorer } from '../../services/scorer/index.js';
import { trainAndStoreModel } from '../../services/scorer/train-model.js';
import { QUEUES } from '../../services/shared/queues.js';
import { latestModelVersion } from '../../services/shared/repositories/model-versions-repository.js';
import { countTrainingSales, trainingSalePages } from '../../services/shared/repositories/sold-results-repository.js';
import type { ServiceHandle } from '../../services/shared/service.js';
import { dealLevel } from '../../services/valuation/deal-score.js';
import { createTestContext, type TestContext } from '../support/context.js';

const DATA = path.resolve(process.env.SHARED_DIR ?? '../shared', 'data/bulldozers');
const BACKHOE = 4;
const CRANES = 6;

async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() - start > timeoutMs) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('scoring worker', () => {
  let ctx: TestContext;
  let scorer: ServiceHandle | undefined;
  let sourceId: number;
  let median416D: number;
  let modelVersion: number;

  beforeAll(async () => {
    ctx = await createTestContext();
    const code = await importSalesCommand.run(ctx, ['--format', 'fastiron', path.join(DATA, 'Train_first10931rows.csv.gz')]);
    expect(code).toBe(0);
    const [m] = (await ctx.database.db.execute(sql`
      SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY price::float8) AS median
      FROM sold_results WHERE model = '416D' AND category_id = ${BACKHOE}`)) as unknown as { median: number }[];
    median416D = Number(m!.median);
    // a quicker fit than production (fewer trees) keeps the test short; the path is the same
    const info = await trainAndStoreModel(ctx.database.db, { params: { trees: 150, learningRate: 0.1 } });
    modelVersion = info.version;
    const [source] = await ctx.database.db
      .insert(sources)
      .values({ name: 'scoring-test', displayName: 'Scoring Test Auctions', baseUrl: 'http://127.0.0.1' })
      .returning({ id: sources.id });
    sourceId = source!.id;
    scorer = await startScorer(ctx);
  }, 240_000);

  afterAll(async () => {
    await scorer?.stop();
    await ctx?.close();
  });

  it('reads the training sales a page at a time, in sale order, as many as it counts', async () => {
    const { count, rows, pages } = await ctx.database.db.transaction(
      async (tx) => {
        const count = await countTrainingSales(tx);
        const rows: { id: number; soldAt: Date }[] = [];
        let pages = 0;
        for await (const page of trainingSalePages(tx, 997)) {
          pages++;
          expect(page.length).toBeLessThanOrEqual(997);
          rows.push(...page.map((r) => ({ id: Number(r.id), soldAt: r.soldAt })));
        }
        return { count, rows, pages };
      },
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    );
    expect(count).toBeGreaterThan(10_000);
    expect(rows).toHaveLength(count);
    expect(pages).toBe(Math.ceil(count / 997));
    expect(new Set(rows.map((r) => r.id)).size).toBe(count);
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1]!, rows[i]!];
      expect(a.soldAt.getTime() < b.soldAt.getTime() || (a.soldAt.getTime() === b.soldAt.getTime() && a.id < b.id)).toBe(true);
    }
  });

  it('imported the sales history and stored a model version', async () => {
    const [{ n }] = (await ctx.database.db.execute(sql`SELECT count(*)::int AS n FROM sold_results WHERE origin = 'import:fastiron'`)) as unknown as [{ n: number }];
    expect(n).toBe(10_931);
    const latest = await latestModelVersion(ctx.database.db);
    expect(latest?.version).toBe(modelVersion);
    expect(latest?.trainingRows).toBe(10_931);
    expect(Number(latest?.metrics.holdoutRmsle)).toBeLessThan(0.5);
    // re-importing updates rather than duplicates
    await importSalesCommand.run(ctx, ['--format', 'fastiron', path.join(DATA, 'Train_first10931rows.csv.gz')]);
    const [{ n: again }] = (await ctx.database.db.execute(sql`SELECT count(*)::int AS n FROM sold_results`)) as unknown as [{ n: number }];
    expect(again).toBe(10_931);
  });

  let seq = 0;
  async function addListing(values: Partial<typeof listings.$inferInsert>): Promise<number> {
    seq++;
    const [row] = await ctx.database.db
      .insert(listings)
      .values({
        sourceId,
        externalId: `lot-${seq}`,
        slug: `scoring-lot-${seq}`,
        title: `Lot ${seq}`,
        categoryId: BACKHOE,
        originalUrl: `http://127.0.0.1/lots/${seq}`,
        ...values,
      })
      .returning({ id: listings.id });
    return row!.id;
  }

  async function scoreThroughQueue(listingId: number) {
    const job = await ctx.queues.enqueue('score', { listingId, reason: 'new', version: `test-${listingId}` });
    // the job is done once its match job is queued too, which happens after the score is written
    await waitFor(async () => ((await ctx.queues.queue('score').getJobState(job.id!)) === 'completed' ? true : undefined));
    const [row] = await ctx.database.db.select().from(listings).where(eq(listings.id, listingId));
    expect(row?.scoredAt).toBeTruthy();
    return row!;
  }

  const backhoe = { make: 'Caterpillar', model: '416D', modelFamily: '416', year: 2002, hours: 4000, state: 'TX', condition: 'Good' as const };

  it('a listing priced far below its comparables scores excellent, with its valuation explained', async () => {
    const id = await addListing({ ...backhoe, title: '2002 Caterpillar 416D backhoe', price: Math.round(median416D * 0.35), priceUsd: Math.round(median416D * 0.35), buyersPremiumPct: 10 });
    const row = await scoreThroughQueue(id);
    expect(dealLevel(row.dealScore)).toBe('excellent');
    // the badge rounds up: 791 and over shows 80 • Excellent (deal-score.ts, scoreFromZ)
    expect(row.dealScore).toBeGreaterThanOrEqual(791);
    expect(row.modelVersion).toBe(modelVersion);
    expect(row.fairValue!).toBeGreaterThan(median416D * 0.5);
    expect(row.fairValue!).toBeLessThan(median416D * 2);
    expect(row.valueLow!).toBeLessThan(row.fairValue!);
    expect(row.valueHigh!).toBeGreaterThan(row.fairValue!);
    expect(row.valuationConfidence!).toBeGreaterThan(0.3);
    expect(row.valuationConfidence!).toBeLessThanOrEqual(1);
    expect(row.comparables!.length).toBe(5);
    for (const c of row.comparables!) {
      expect(c.title).toMatch(/416/);
      expect(c.price).toBeGreaterThan(0);
      expect(c.source).toBe('Fast Iron auction records');
      expect(Number.isNaN(Date.parse(c.sold_at))).toBe(false);
    }
    // the matcher is told, under an id derived from the score
    const matchJobId = QUEUES.match.jobId({ listingId: id, event: 'scored', eventKey: `v${modelVersion}-${row.dealScore}-${row.priceUsd}` });
    expect(await ctx.queues.queue('match').getJob(matchJobId)).toBeTruthy();
  });

  it('a listing priced well above its comparables scores poor', async () => {
    const price = Math.round(median416D * 2.5);
    const id = await addListing({ ...backhoe, title: '2002 Caterpillar 416D (overpriced)', price, priceUsd: price });
    const row = await scoreThroughQueue(id);
    expect(dealLevel(row.dealScore)).toBe('poor');
    expect(row.dealScore).toBeLessThan(400);
  });

  it('an early low bid on an open auction is not a deal yet; the same bid at the close is', async () => {
    const price = Math.round(median416D * 0.5);
    const early = await addListing({ ...backhoe, price, priceUsd: price, bidCount: 2, auctionEndAt: new Date(Date.now() + 10 * 24 * 3600_000) });
    const late = await addListing({ ...backhoe, price, priceUsd: price, bidCount: 2, auctionEndAt: new Date(Date.now() + 30 * 60_000) });
    const earlyRow = await scoreThroughQueue(early);
    const lateRow = await scoreThroughQueue(late);
    expect(earlyRow.dealScore!).toBeLessThan(lateRow.dealScore!);
    expect(earlyRow.dealScore!).toBeLessThan(600);
  });

  it('a listing of a type the history does not cover gets null, not a guess; one without comparables is valued from its type and words', async () => {
    const crane = await addListing({ categoryId: CRANES, make: 'Grove', model: 'RT890E', modelFamily: 'RT890', year: 2010, price: 1000, priceUsd: 1000 });
    const row = await scoreThroughQueue(crane);
    expect(row.dealScore).toBeNull();
    expect(row.fairValue).toBeNull();
    expect(row.comparables).toBeNull();
    expect(row.modelVersion).toBe(modelVersion);
    const unknownModel = await addListing({ make: 'Nobody', model: 'ZX9000', modelFamily: 'ZX9000', year: 2015, price: 1000, priceUsd: 1000 });
    const valued = await scoreThroughQueue(unknownModel);
    expect(valued.fairValue).not.toBeNull();
    expect(valued.comparables).toEqual([]);
    expect(valued.valuationConfidence).toBe(0);
    expect(valued.modelVersion).toBe(modelVersion);
  });

  it('rescore-all after a new model rescores every listing with that version', async () => {
    const id = await addListing({ ...backhoe, price: 20_000, priceUsd: 20_000 });
    await ctx.database.db.update(listings).set({ modelVersion: null, scoredAt: null });
    await ctx.queues.enqueue('model', { action: 'rescore-all', reason: 'manual', slot: 'test' });
    await waitFor(async () => {
      const [{ n }] = (await ctx.database.db.execute(sql`SELECT count(*)::int AS n FROM listings WHERE scored_at IS NULL`)) as unknown as [{ n: number }];
      return n === 0 ? true : undefined;
    });
    const [row] = await ctx.database.db.select().from(listings).where(eq(listings.id, id));
    expect(row!.modelVersion).toBe(modelVersion);
    expect(row!.dealScore).not.toBeNull();
  });

  it('stopping the scorer interrupts a training at once and puts the job back, costing no attempt', async () => {
    const job = await ctx.queues.enqueue('model', { action: 'train', reason: 'manual', slot: 'interrupted' });
    await waitFor(async () => ((await ctx.queues.queue('model').getJobState(job.id!)) === 'active' ? true : undefined));
    // the training thread is running (a full fit takes tens of seconds)
    await new Promise((r) => setTimeout(r, 500));
    const started = Date.now();
    await scorer!.stop();
    scorer = undefined;
    expect(Date.now() - started).toBeLessThan(5_000);
    const after = await ctx.queues.queue('model').getJob(job.id!);
    expect(await after!.getState()).toBe('delayed');
    expect(after!.attemptsMade).toBe(0);
    expect((await latestModelVersion(ctx.database.db))?.version).toBe(modelVersion);
  });
});
