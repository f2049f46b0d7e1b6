import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { openSql } from '../../services/shared/database/connection-url.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ListingIndexSync } from '../../services/listings/listing-index-sync.js';
import type { IndexFilter } from '../../services/listings/listing-index/index.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { clearListings, insertListings, insertSource } from '../support/listing-fixtures.js';

const ALL: IndexFilter = { groups: [] };

describe('ListingIndexSync: the in-memory index follows PostgreSQL', () => {
  let ctx: TestContext;
  let sync: ListingIndexSync;
  let other: postgres.Sql;
  const listed = async () => (await sync.fresh()).page(ALL, 'deal_score_high', 0, 100, Date.now());

  beforeAll(async () => {
    ctx = await createTestContext();
    // Another client, as another process (a crawler, the scorer) would write.
    other = openSql(ctx.database.url, { max: 2, onnotice: () => {} });
    sync = new ListingIndexSync({ client: ctx.database.sql, db: ctx.database.db, intervalMs: 60_000 });
  });
  afterAll(async () => {
    await sync.close();
    await other.end();
    await ctx.close();
  });

  it('lists what other connections committed before the request: inserts, score changes, closes, deletes', async () => {
    const site = await insertSource(ctx.database.db);
    const [a, b, c] = await insertListings(ctx.database.db, site, [
      { title: 'A', dealScore: 300 },
      { title: 'B', dealScore: 200 },
      { title: 'C', dealScore: 100 },
    ]);
    expect(await listed()).toEqual([a!.id, b!.id, c!.id]);

    await other`UPDATE listings SET deal_score = 900 WHERE id = ${c!.id}`;
    expect(await listed()).toEqual([c!.id, a!.id, b!.id]);

    await other`UPDATE listings SET status = 'closed' WHERE id = ${a!.id}`;
    await other`DELETE FROM listings WHERE id = ${b!.id}`;
    expect(await listed()).toEqual([c!.id]);

    await other`UPDATE listings SET auction_end_at = now() - interval '1 minute' WHERE id = ${c!.id}`;
    expect(await listed()).toEqual([]);
  });

  it('never misses a transaction that commits after a later one (out of xid order)', async () => {
    await clearListings(ctx.database.db);
    const site = await insertSource(ctx.database.db);
    const [early, late] = await insertListings(ctx.database.db, site, [
      { title: 'Early', dealScore: 100 },
      { title: 'Late', dealScore: 200 },
    ]);
    expect(await listed()).toEqual([late!.id, early!.id]);

    // Transaction 1 takes its xid first and stays open while transaction 2 commits.
    const reserved = await other.reserve();
    try {
      await reserved`BEGIN`;
      await reserved`UPDATE listings SET deal_score = 10 WHERE id = ${early!.id}`;
      await other`UPDATE listings SET deal_score = 50 WHERE id = ${late!.id}`;
      // The index has now read past transaction 2 while 1 was in progress…
      expect(await listed()).toEqual([early!.id, late!.id]);
      expect(await listed()).toEqual([early!.id, late!.id]);
      await reserved`COMMIT`;
    } finally {
      reserved.release();
    }
    // …and still picks 1 up once it commits (scores 50 and 10 now).
    expect(await listed()).toEqual([late!.id, early!.id]);
  });

  it('ignores writes that do not change what it holds, reloads after a TRUNCATE', async () => {
    await clearListings(ctx.database.db);
    const site = await insertSource(ctx.database.db);
    const [lot] = await insertListings(ctx.database.db, site, [{ title: 'Deere 310SJ backhoe', make: 'Deere', model: '310SJ', dealScore: 700 }]);
    expect(await listed()).toEqual([lot!.id]);
    const [{ before } = { before: 0 }] = await other<Array<{ before: number }>>`SELECT count(*)::int AS before FROM listing_changes`;
    await other`UPDATE listings SET last_seen_at = now(), raw_payload = '{"seen":1}' WHERE id = ${lot!.id}`;
    const [{ after } = { after: 0 }] = await other<Array<{ after: number }>>`SELECT count(*)::int AS after FROM listing_changes`;
    expect(after).toBe(before);

    await ctx.database.db.execute(sql`TRUNCATE listings, listing_images, price_observations RESTART IDENTITY CASCADE`);
    expect(await listed()).toEqual([]);
    const [again] = await insertListings(ctx.database.db, site, [{ title: 'Deere 310SJ backhoe', make: 'Deere', model: '310SJ', dealScore: 10 }]);
    expect(again!.id).toBe(lot!.id); // identity restarted: the same id names a new listing
    const index = await sync.fresh();
    expect(index.page({ groups: [{ exact: ['deere'], prefixes: [] }] }, 'deal_score_high', 0, 10, Date.now())).toEqual([again!.id]);
    expect(index.size).toBe(1);
  });

  it('a request waits for a sync that started after it arrived, even while another sync runs', async () => {
    await clearListings(ctx.database.db);
    const site = await insertSource(ctx.database.db);
    await listed();
    const running = sync.sync();
    const [lot] = await insertListings(ctx.database.db, site, [{ title: 'Mid-sync', dealScore: 1 }]);
    const [index] = await Promise.all([sync.fresh(), running]);
    expect(index.page(ALL, 'deal_score_high', 0, 10, Date.now())).toEqual([lot!.id]);
  });

  it('reloads in the background (slots numbered in score order again) once a quarter of the listings changed since the load', async () => {
    await clearListings(ctx.database.db);
    const site = await insertSource(ctx.database.db);
    const rows = await insertListings(ctx.database.db, site, Array.from({ length: 12 }, (_, i) => ({ title: `L${i}`, dealScore: 100 + i })));
    const own = new ListingIndexSync({ client: ctx.database.sql, db: ctx.database.db, intervalMs: 60_000, minUnorderedForReload: 2 });
    try {
      const loaded = await own.fresh();
      expect(loaded.unordered).toBe(0);
      // two changes: appended outside the score-numbered slots, no reload yet (2 is not above 2)
      await other`UPDATE listings SET deal_score = 900 + id WHERE id = ANY(${[rows[0]!.id, rows[1]!.id]})`;
      const after2 = await own.fresh();
      expect(after2).toBe(loaded);
      expect(after2.unordered).toBe(2);
      // a fourth of 12 is 3: this sync starts a reload in the background; the live index answers
      // (exactly) meanwhile, and a sync after the load installs the new one
      await other`UPDATE listings SET deal_score = 900 + id WHERE id = ANY(${[rows[2]!.id, rows[3]!.id]})`;
      const expected = [...rows].sort((a, b) => b.id - a.id).slice(8).map((r) => r.id);
      const first = await own.fresh();
      expect(first).toBe(loaded);
      expect(first.page(ALL, 'deal_score_high', 0, 4, Date.now())).toEqual(expected);
      // a change made while the new index loads is caught up when it is installed
      await other`UPDATE listings SET deal_score = 50 WHERE id = ${rows[3]!.id}`;
      const after = [rows[2]!.id, rows[1]!.id, rows[0]!.id, rows[11]!.id];
      let reloaded = await own.fresh();
      for (const deadline = Date.now() + 10_000; reloaded === loaded && Date.now() < deadline; reloaded = await own.fresh()) {
        expect(reloaded.page(ALL, 'deal_score_high', 0, 4, Date.now())).toEqual(after);
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(reloaded).not.toBe(loaded);
      // renumbered: at most the one change made during the load sits outside the ordered slots
      expect(reloaded.unordered).toBeLessThanOrEqual(1);
      expect(reloaded.page(ALL, 'deal_score_high', 0, 4, Date.now())).toEqual(after);
    } finally {
      await own.close();
    }
  });

  it('pruning the change log keeps the rows of a transaction that outlived the retention until readers have synced them', async () => {
    await clearListings(ctx.database.db);
    const site = await insertSource(ctx.database.db);
    const [lot] = await insertListings(ctx.database.db, site, [{ title: 'Long', dealScore: 100 }]);
    // Two processes; B prunes on every sync, with a one-second retention.
    const options = { client: ctx.database.sql, db: ctx.database.db, intervalMs: 60_000, retentionSeconds: 1, pruneEveryMs: 0 };
    const a = new ListingIndexSync(options);
    const b = new ListingIndexSync(options);
    const listedBy = async (s: ListingIndexSync) => (await s.fresh()).page(ALL, 'deal_score_high', 0, 10, Date.now());
    const reserved = await other.reserve();
    try {
      await a.fresh();
      await b.fresh();
      await reserved`BEGIN`;
      await reserved`UPDATE listings SET deal_score = 900, status = 'closed' WHERE id = ${lot!.id}`;
      // the transaction's log rows are now older than the retention
      await new Promise((r) => setTimeout(r, 1_200));
      for (const s of [a, b, a, b]) await s.fresh();
      expect(await listedBy(a)).toEqual([lot!.id]);
      await reserved`COMMIT`;
      await b.fresh(); // B syncs, then prunes (before A's next sync)
      expect(await listedBy(a)).toEqual([]); // A still learns that the listing was closed
    } finally {
      reserved.release();
      await a.close();
      await b.close();
    }
  });
});
