/**
 * One valuation over every history (issue 37), through the real pieces: a fresh data folder with
 * the three histories (Fast Iron 2004–2012, West Auctions 2024–2025, Ritchie Bros. 2021–2023) is
 * imported by the scorer's bootstrap, a model is trained on them as the scorer trains, and a
 * listing of a 2019 machine on the Ritchie Bros. site is scored: valued with comparables sold in
 * 2022–2023, its market level the month of the latest dealer-auction sales (May 2023).
 *
 * To keep the run short the folder holds a sample of each file, read at run time from the shared
 * data and written to a temporary folder (never into the repository): Fast Iron's first 2,000
 * rows, every West Auctions lot, and from Ritchie Bros. every Caterpillar 336 sold from 2022 and
 * every eighth other lot.
 */
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapValuation } from '../../services/scorer/bootstrap.js';
import { ModelStore } from '../../services/scorer/model-store.js';
import { runScoreJob } from '../../services/scorer/score-job.js';
import { trainAndStoreModel } from '../../services/scorer/train-model.js';
import { findListingDetail } from '../../services/shared/repositories/listings-repository.js';
import { countSoldResultsByOrigin } from '../../services/shared/repositories/sold-results-repository.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';

const SHARED = path.resolve(process.env.SHARED_DIR ?? '../shared', 'data');

/** Copies the lines of a gzip CSV (header always) that `keep` accepts, by line number, into `to`. */
async function sample(from: string, to: string, keep: (line: string, n: number) => boolean): Promise<void> {
  mkdirSync(path.dirname(to), { recursive: true });
  const lines = createInterface({ input: createReadStream(from).pipe(createGunzip()), crlfDelay: Infinity });
  async function* kept() {
    let n = 0;
    for await (const line of lines) {
      if (n === 0 || keep(line, n)) yield `${line}\n`;
      n++;
    }
  }
  await pipeline(Readable.from(kept()), createGzip(), createWriteStream(to));
}

describe('one valuation over every history', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'all-histories-'));
    await sample(path.join(SHARED, 'bulldozers', 'Train_first10931rows.csv.gz'), path.join(dir, 'data', 'bulldozers', 'Train_first10931rows.csv.gz'), (_, n) => n <= 2000);
    await sample(path.join(SHARED, 'westauction_lots', 'westauction_lots.csv.gz'), path.join(dir, 'data', 'westauction_lots', 'westauction_lots.csv.gz'), () => true);
    const rb = 'rbauction-results-2021-09-to-2023-05.csv.gz';
    await sample(path.join(SHARED, 'rbauction_results', rb), path.join(dir, 'data', 'rbauction_results', rb), (line, n) => (/,CAT,336\b/.test(line) ? line >= '2022' : n % 8 === 0));
    ctx = await createTestContext({ env: { SHARED_DIR: dir } });
  }, 120_000);
  afterAll(async () => ctx?.close());

  it('imports all three histories, trains on them, and values a 2019 machine with comparables from 2022–2023 at the market level of May 2023', async () => {
    expect(await bootstrapValuation(ctx)).toBe('training-queued');
    const counts = await countSoldResultsByOrigin(ctx.database.db);
    expect(counts['import:fastiron']).toBeGreaterThan(1_900);
    expect(counts['import:westauction']).toBeGreaterThan(700);
    expect(counts['import:rbauction']).toBeGreaterThan(4_000);

    // as the scorer trains (a shorter boosting for the test's time); the level rests on dealer-auction sales
    const info = await trainAndStoreModel(ctx.database.db, { params: { trees: 150, learningRate: 0.1 }, members: 1 });
    expect(info.metrics.marketAsOf).toBe('2023-05');

    const source = await insertSource(ctx.database.db, 'rbauction', 'Ritchie Bros.');
    const [listing] = await insertListings(ctx.database.db, source, [
      {
        title: '2019 Caterpillar 336 Hydraulic Excavator',
        make: 'Caterpillar',
        model: '336',
        modelFamily: '336',
        year: 2019,
        hours: 4_800,
        categoryId: 1,
        state: 'TX',
        askingPrice: 150_000,
        currentBid: 150_000,
        auctionEndAt: new Date(Date.now() + 2 * 86_400_000),
      },
    ]);
    const outcome = await runScoreJob(ctx, new ModelStore(ctx.database.db), { listingId: listing!.id, reason: 'new', version: 'single' });
    if (!('score' in outcome)) throw new Error('the listing was not scored');
    const score = outcome.score;
    expect(score.fairValue).not.toBeNull();
    // a 2019 CAT 336 sold for $150,000–$350,000 at Ritchie Bros. in 2022–2023: valued in that market, not at 2012 prices
    expect(score.fairValue!).toBeGreaterThan(100_000);
    expect(score.fairValue!).toBeLessThan(400_000);
    const years = (score.comparables ?? []).map((c) => Number(c.sold_at.slice(0, 4)));
    expect(years.length).toBeGreaterThan(0);
    expect(years.every((y) => y >= 2022 && y <= 2023)).toBe(true);

    const detail = await findListingDetail(ctx.database.db, { id: listing!.id });
    expect(detail?.marketAsOf).toBe('2023-05');
  }, 600_000);
});
