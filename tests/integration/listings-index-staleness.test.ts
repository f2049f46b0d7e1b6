import postgres from 'postgres';
import { openSql } from '../../services/shared/database/connection-url.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../services/api/app.js';
import { ListingIndexSync } from '../../services/listings/listing-index-sync.js';
import type { IndexFilter } from '../../services/listings/listing-index/index.js';
import { seedListings } from '../../scripts/seed-listings.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { clearListings, insertListings, insertSource } from '../support/listing-fixtures.js';
import { waitFor } from '../support/wait.js';

const ALL: IndexFilter = { groups: [] };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** `promise`, or a failure after `ms` (a request stuck behind the held sync fails here, not at the test's timeout). */
const within = <T>(ms: number, promise: Promise<T>) =>
  Promise.race([promise, sleep(ms).then(() => Promise.reject(new Error(`no answer within ${ms} ms`)))]);

/** Holds every read of the change log (a sync's first query) until `release` is called. */
async function holdChangeLog(other: postgres.Sql): Promise<{ release: () => Promise<void> }> {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => (locked = r));
  const lock = other.begin(async (tx) => {
    await tx`LOCK TABLE listing_changes IN ACCESS EXCLUSIVE MODE`;
    locked();
    await held;
  });
  await isLocked;
  return {
    release: async () => {
      release();
      await lock;
    },
  };
}

describe('listing index: bounded staleness, requests never wait behind a sync', () => {
  let ctx: TestContext;
  let other: postgres.Sql;

  beforeAll(async () => {
    ctx = await createTestContext({ env: { LISTINGS_INDEX_MAX_STALENESS_MS: '250' } });
    other = openSql(ctx.database.url, { max: 3, onnotice: () => {} });
  });
  afterAll(async () => {
    await other.end();
    await ctx.close();
  });

  it('answers from the current index at once while a sync is held, and lists the change once the sync can run', async () => {
    await clearListings(ctx.database.db);
    const site = await insertSource(ctx.database.db);
    const [a, b, c] = await insertListings(ctx.database.db, site, [
      { title: 'A', dealScore: 300 },
      { title: 'B', dealScore: 200 },
      { title: 'C', dealScore: 100 },
    ]);
    // No timer in the way (60 s): only requests start syncs here.
    const sync = new ListingIndexSync({ client: ctx.database.sql, db: ctx.database.db, intervalMs: 60_000, maxStalenessMs: 250 });
    try {
      const top = async () => (await sync.current()).page(ALL, 'deal_score_high', 0, 10, Date.now());
      expect(await top()).toEqual([a!.id, b!.id, c!.id]); // the first load is waited for

      await other`UPDATE listings SET deal_score = 900 WHERE id = ${c!.id}`;
      await sleep(300); // older than the bound: the next request starts a sync
      const hold = await holdChangeLog(other);
      let strictDone = false;
      try {
        const started = performance.now();
        expect(await within(500, top())).toEqual([a!.id, b!.id, c!.id]); // answered from the index as it was
        expect(await within(500, top())).toEqual([a!.id, b!.id, c!.id]);
        expect(performance.now() - started).toBeLessThan(200);
        // The sync it started really is held: a request under the strict rule would still be waiting.
        const strict = sync.fresh().then(() => (strictDone = true));
        await sleep(400);
        expect(strictDone).toBe(false);
        expect(await within(500, top())).toEqual([a!.id, b!.id, c!.id]);
        void strict;
      } finally {
        await hold.release();
      }
      const released = performance.now();
      await waitFor(async () => ((await top())[0] === c!.id ? true : undefined), 2_000, 'the change listed');
      expect(performance.now() - released).toBeLessThan(2_000);
      expect(await top()).toEqual([c!.id, a!.id, b!.id]);
      await waitFor(() => (strictDone ? true : undefined), 2_000, 'the held sync done');
    } finally {
      await sync.close();
    }
  });

  it('within an API process (250 ms, timer 500 ms), a change shows in list answers well within 2 s, with no request waiting for it', async () => {
    await clearListings(ctx.database.db);
    await seedListings(other, { count: 80, sharedDir: ctx.config.SHARED_DIR });
    const app = await buildApp(ctx, { webDist: '/nonexistent' });
    try {
      await app.ready();
      await waitFor(async () => ((await app.inject({ method: 'GET', url: '/api/health/' })).statusCode === 200 ? true : undefined), 20_000, 'ready');
      const first = async () => (await app.inject({ method: 'GET', url: '/api/auctions/list/?sort_by=price_high&page_size=1' })).json().data.items[0]?.id as number;
      const before = await first();
      const [target] = await other<Array<{ id: number }>>`
        SELECT id FROM listings WHERE status = 'open' AND auction_end_at > now() + interval '1 day' AND id <> ${before} ORDER BY id LIMIT 1`;
      await other`UPDATE listings SET price_usd = 9000000, price = 9000000 WHERE id = ${target!.id}`;
      const changed = performance.now();
      await waitFor(async () => ((await first()) === target!.id ? true : undefined), 2_000, 'the new top price listed');
      const seconds = (performance.now() - changed) / 1000;
      expect(seconds).toBeLessThan(2);

      // Held sync inside the app: list requests keep answering (from the index as it is).
      await sleep(300);
      const hold = await holdChangeLog(other);
      try {
        const started = performance.now();
        for (let k = 0; k < 5; k++) {
          const res = await within(1_000, app.inject({ method: 'GET', url: '/api/auctions/list/?sort_by=price_high&page_size=1' }));
          expect(res.statusCode).toBe(200);
          expect(res.json().data.items[0].id).toBe(target!.id);
          await sleep(100);
        }
        expect(performance.now() - started).toBeLessThan(500 + 5 * 200);
      } finally {
        await hold.release();
      }
    } finally {
      await app.close();
    }
  }, 60_000);
});
