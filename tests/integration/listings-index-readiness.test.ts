import postgres from 'postgres';
import { openSql } from '../../services/shared/database/connection-url.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../services/api/app.js';
import { seedListings } from '../../scripts/seed-listings.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { waitFor } from '../support/wait.js';

describe('listing index readiness', () => {
  let ctx: TestContext;
  let other: postgres.Sql;

  beforeAll(async () => {
    ctx = await createTestContext();
    other = openSql(ctx.database.url, { max: 2, onnotice: () => {} });
    await seedListings(other, { count: 120, sharedDir: ctx.config.SHARED_DIR });
  }, 60_000);
  afterAll(async () => {
    await other.end();
    await ctx.close();
  });

  it('/api/health/ answers 503 `starting` while the index loads, list requests wait for it, then 200 `ok` and lists answer', async () => {
    // The load is held back by a lock on listings (as a slow load at a million listings would be).
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const lock = other.begin(async (tx) => {
      await tx`LOCK TABLE listings IN ACCESS EXCLUSIVE MODE`;
      locked();
      await held;
    });
    await isLocked;

    const app = await buildApp(ctx, { webDist: '/nonexistent' });
    try {
      await app.ready();
      const starting = await app.inject({ method: 'GET', url: '/api/health/' });
      expect(starting.statusCode).toBe(503);
      expect(starting.json()).toMatchObject({ status: 'starting', database: 'ok', listing_index: 'loading' });

      let answered = false;
      const list = app.inject({ method: 'GET', url: '/api/auctions/list/' }).then((r) => {
        answered = true;
        return r;
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(answered).toBe(false);

      release();
      await lock;
      const res = await list;
      expect(res.statusCode).toBe(200);
      const [{ n } = { n: -1 }] = await other<Array<{ n: number }>>`SELECT count(*)::int AS n FROM listings WHERE status = 'open' AND (auction_end_at IS NULL OR auction_end_at > now())`;
      expect(res.json().data.pagination.total_count).toBe(n);

      const ok = await waitFor(async () => {
        const r = await app.inject({ method: 'GET', url: '/api/health/' });
        return r.statusCode === 200 ? r : undefined;
      }, 10_000, 'health 200');
      expect(ok.json()).toMatchObject({ status: 'ok', listing_index: 'ready' });
    } finally {
      release();
      await lock.catch(() => {});
      await app.close();
    }
  }, 60_000);
});
