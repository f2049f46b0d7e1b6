import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase } from '../../services/shared/database/db.js';
import { executePrepared } from '../../services/shared/database/prepared.js';
import { createTestContext, type TestContext } from '../support/context.js';

describe('executePrepared', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext();
  });
  afterAll(async () => {
    await ctx.close();
  });

  it('runs one statement text with new values each time, prepared once per connection', async () => {
    // One connection, so what it has prepared is what pg_prepared_statements shows.
    const single = connectDatabase(ctx.database.url, { max: 1 });
    try {
      const byId = (id: number) => sql`SELECT id, name FROM categories WHERE id = ${id}`;
      for (const id of [1, 2, 3, 11]) expect((await executePrepared<{ id: number }>(single.db, byId(id))).map((r) => r.id)).toEqual([id]);
      expect(await executePrepared(single.db, byId(999))).toEqual([]);
      const prepared = (await single.db.execute(sql`SELECT statement FROM pg_prepared_statements`)) as unknown as Array<{ statement: string }>;
      // (postgres.js prepares its own array-type lookup on a new connection too.)
      expect(prepared.filter((p) => p.statement.includes('categories')).map((p) => p.statement)).toEqual(['SELECT id, name FROM categories WHERE id = $1']);
    } finally {
      await single.close();
    }
  });

  it('runs inside a transaction on its connection (sees its uncommitted rows, rolled back with it)', async () => {
    const name = `tx-only-${Date.now()}`;
    await ctx.database.db
      .transaction(async (tx) => {
        await tx.execute(sql`INSERT INTO categories (id, name, slug, position) VALUES (9001, ${name}, ${name}, 99)`);
        const rows = await executePrepared<{ name: string }>(tx, sql`SELECT name FROM categories WHERE id = ${9001}`);
        expect(rows).toEqual([{ name }]);
        tx.rollback();
      })
      .catch((e: unknown) => {
        if (!(e instanceof Error && /rollback/i.test(e.message))) throw e;
      });
    expect(await executePrepared(ctx.database.db, sql`SELECT name FROM categories WHERE id = ${9001}`)).toEqual([]);
  });
});
