import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { openSql } from '../../services/shared/database/connection-url.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type ApiApp } from '../../services/api/app.js';
import { connectDatabase } from '../../services/shared/database/db.js';
import type { AppContext } from '../../services/shared/context.js';
import { listingIndexOf, listingIndexStatus } from '../../services/listings/listing-index-registry.js';
import { ListingIndexSync } from '../../services/listings/listing-index-sync.js';
import { seedListings } from '../../scripts/seed-listings.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { waitFor } from '../support/wait.js';

const QUERIES = [
  '',
  '?sort_by=price_low',
  '?sort_by=price_high&page=2',
  '?sort_by=deal_score_low',
  '?category=1',
  '?min_price=20000&max_price=90000',
  '?location=TX',
  '?search=excavator',
  '?search=deere&sort_by=relevance',
  '?search=caterpillar&sort_by=price_low',
  '?page=5',
];

/** A second API process on the same database: its own pool, its own index. */
function replicaOf(ctx: TestContext): AppContext & { closeDatabase(): Promise<void> } {
  const database = connectDatabase(ctx.database.url, { max: 5 });
  return { ...ctx, database, closeDatabase: () => database.close() };
}

async function ready(app: ApiApp): Promise<void> {
  await waitFor(async () => ((await app.inject({ method: 'GET', url: '/api/health/' })).statusCode === 200 ? true : undefined), 20_000, 'listing index ready');
}

async function pages(app: ApiApp): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const q of QUERIES) {
    const res = await app.inject({ method: 'GET', url: `/api/auctions/list/${q}` });
    expect(res.statusCode, q).toBe(200);
    out.push(res.json());
  }
  return out;
}

describe('listing index: start from a snapshot, replicas agree', () => {
  let dir: string;
  let ctx: TestContext;
  let other: postgres.Sql;
  let file: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'index-replicas-'));
    file = path.join(dir, 'listing-index.snapshot');
    // As in production: requests answer from an index up to 250 ms behind, never waiting for a sync.
    ctx = await createTestContext({ env: { LISTINGS_INDEX_SNAPSHOT: file, LISTINGS_INDEX_MAX_STALENESS_MS: '250' } });
    other = openSql(ctx.database.url, { max: 2, onnotice: () => {} });
    await seedListings(other, { count: 600, sharedDir: ctx.config.SHARED_DIR });
  }, 60_000);
  afterAll(async () => {
    await other.end();
    await ctx.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a second process starts from the first one’s snapshot, catches up what changed since, and both give the same pages while writes go on', async () => {
    const first = await buildApp(ctx, { webDist: '/nonexistent' });
    await first.ready();
    const replica = replicaOf(ctx);
    let second: ApiApp | undefined;
    try {
      await ready(first);
      expect(listingIndexStatus(ctx)).toMatchObject({ state: 'ready', source: 'database' });
      await waitFor(() => (existsSync(file) ? true : undefined), 10_000, 'snapshot written');

      // Changed after the snapshot: a new top price, a closed lot, a rescored one.
      const [top, closed, rescored] = await other<Array<{ id: number }>>`
        SELECT id FROM listings WHERE status = 'open' AND auction_end_at > now() + interval '1 day' ORDER BY id LIMIT 3`;
      await other`UPDATE listings SET price_usd = 9000000, price = 9000000 WHERE id = ${top!.id}`;
      await other`UPDATE listings SET status = 'closed' WHERE id = ${closed!.id}`;
      await other`UPDATE listings SET deal_score = 100 WHERE id = ${rescored!.id}`;

      second = await buildApp(replica, { webDist: '/nonexistent' });
      await second.ready();
      await ready(second);
      // Each process past every write so far (requests alone would get there within ~0.5 s).
      const bothSynced = () => Promise.all([listingIndexOf(ctx)!.fresh(), listingIndexOf(replica)!.fresh()]);
      expect(listingIndexStatus(replica)).toMatchObject({ state: 'ready', source: 'snapshot' });
      // Ready means caught up: its very first answer has what was committed before it started.
      const byPrice = (await second.inject({ method: 'GET', url: '/api/auctions/list/?sort_by=price_high' })).json();
      expect(byPrice.data.items[0]).toMatchObject({ id: top!.id });
      await bothSynced();
      expect(await pages(second)).toEqual(await pages(first));

      // Writes while both answer; once both have synced they agree.
      let writing = true;
      let writes = 0;
      const writer = (async () => {
        for (let k = 0; writing; k++, writes++) {
          await other`UPDATE listings SET deal_score = (random() * 100)::int, price_usd = 1000 + (random() * 200000)::int
                      WHERE id IN (SELECT id FROM listings ORDER BY random() LIMIT 5)`;
          if (k % 7 === 0) await other`UPDATE listings SET status = CASE WHEN status = 'open' THEN 'closed' ELSE 'open' END WHERE id = ${top!.id + k}`;
        }
      })();
      for (let round = 0; round < 3; round++) await Promise.all([pages(first), pages(second)]);
      writing = false;
      await writer;
      await bothSynced();
      const [a, b] = [await pages(first), await pages(second)];
      expect(b).toEqual(a);
      expect((a[0] as { data: { pagination: { total_count: number } } }).data.pagination.total_count).toBeGreaterThan(100);
      expect(writes).toBeGreaterThan(0);
    } finally {
      await second?.close();
      await first.close();
      await replica.closeDatabase();
    }
  }, 60_000);

  it('a restart reports ready only once its snapshot has caught up: while the catch-up is held it is `starting` and lists wait, then its first answer has what was committed before it started', async () => {
    const before = await buildApp(ctx, { webDist: '/nonexistent' });
    try {
      await before.ready();
      await ready(before);
      await waitFor(() => (existsSync(file) ? true : undefined), 10_000, 'snapshot written');
    } finally {
      await before.close();
    }
    // Committed after the file's content, before the restart: a new top price.
    const [{ id: top } = { id: -1 }] = await other<Array<{ id: number }>>`
      SELECT id FROM listings WHERE status = 'open' AND auction_end_at > now() + interval '1 day' ORDER BY id DESC LIMIT 1`;
    await other`UPDATE listings SET price_usd = (SELECT max(price_usd) + 1000 FROM listings), price = (SELECT max(price_usd) + 1000 FROM listings) WHERE id = ${top}`;

    // The catch-up's read of the change log is held by a lock (as a slow one on a loaded machine).
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
    let app: ApiApp | undefined;
    try {
      app = await buildApp(ctx, { webDist: '/nonexistent' });
      await app.ready();
      // The restart has read the file and now waits on the change log.
      await waitFor(async () => {
        const [{ n } = { n: 0 }] = await other<Array<{ n: number }>>`
          SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%listing_changes%'`;
        return n > 0 ? true : undefined;
      }, 20_000, 'the catch-up waiting on the change log');
      const health = await app.inject({ method: 'GET', url: '/api/health/' });
      expect(health.statusCode).toBe(503);
      expect(health.json()).toMatchObject({ status: 'starting', listing_index: 'loading' });
      expect(listingIndexStatus(ctx)).toMatchObject({ state: 'loading' });
      const list = app.inject({ method: 'GET', url: '/api/auctions/list/?sort_by=price_high' });

      release();
      await lock;
      const res = await list;
      expect(res.statusCode).toBe(200);
      expect(res.json().data.items[0]).toMatchObject({ id: top });
      await ready(app);
      expect(listingIndexStatus(ctx)).toMatchObject({ state: 'ready', source: 'snapshot' });
    } finally {
      release();
      await lock.catch(() => {});
      await app?.close();
    }
  }, 60_000);

  it('ignores a snapshot it cannot trust (another database, damaged, too old) and loads from PostgreSQL', async () => {
    const log: string[] = [];
    const logger = {
      info: (o: unknown, m?: string) => void log.push(`${m} ${JSON.stringify(o)}`),
      warn: () => {},
      error: () => {},
    } as unknown as ConstructorParameters<typeof ListingIndexSync>[0]['logger'];
    const open = (snapshotPath: string, retentionSeconds = 600) =>
      new ListingIndexSync({ client: ctx.database.sql, db: ctx.database.db, intervalMs: 60_000, snapshotPath, logger, retentionSeconds });
    const expected = (await (await open(path.join(dir, 'none')).fresh()).page({ groups: [] }, 'deal_score_high', 0, 20, Date.now()));

    const bytes = await readFile(file);
    const variants: Array<[string, Buffer, number?]> = [
      ['another database', Buffer.from(bytes.toString('latin1').replace(/"database":"[^"]*"/, (m) => m.replace(/:(\d+)"$/, ':0"')), 'latin1')],
      ['damaged', bytes.subarray(0, bytes.length >> 1)],
      ['too old', bytes, 0.001],
    ];
    for (const [what, content, retention] of variants) {
      const copy = path.join(dir, `${what}.snapshot`);
      await writeFile(copy, content);
      const sync = open(copy, retention);
      try {
        const index = await sync.fresh();
        expect(sync.status().source, what).toBe('database');
        expect(index.page({ groups: [] }, 'deal_score_high', 0, 20, Date.now()), what).toEqual(expected);
      } finally {
        await sync.close();
      }
    }
    expect(log.filter((l) => l.includes('snapshot not used')).length).toBeGreaterThanOrEqual(3);
  }, 60_000);
});
