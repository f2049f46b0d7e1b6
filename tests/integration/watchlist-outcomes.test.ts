/**
 * How lots ended (issue 31): the listings trigger keeps each closed lot's outcome with the
 * valuation it showed while open (a rescore after the close changes nothing), and
 * `cli outcomes --since 30d [--json]` reports per source how the claims fared.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { CliCommand } from '../../scripts/cli/command.js';
import { outcomesCommand } from '../../scripts/cli/outcomes-command.js';
import { summarizeOutcomes } from '../../services/valuation/outcomes-report.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';

let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.close();
});

async function run(command: CliCommand, args: string[]): Promise<string> {
  const printed: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    printed.push(String(chunk));
    return true;
  });
  try {
    await command.run(ctx, args);
    return printed.join('');
  } finally {
    spy.mockRestore();
  }
}

describe('lot outcomes', () => {
  it('are kept when a lot closes and reported per source', async () => {
    const db = ctx.database.db;
    const a = await insertSource(db, 'alpha', 'Alpha Auctions');
    const b = await insertSource(db, 'beta', 'Beta Auctions');
    const lots = await insertListings(db, a, [
      // Claimed excellent (badge 85); sold under its fair value.
      { title: 'Lot A1', currentBid: 20_000, fairValue: 50_000, valueLow: 40_000, valueHigh: 60_000, dealScore: 850 },
      // Claimed good (badge 65); sold over its fair value.
      { title: 'Lot A2', currentBid: 30_000, fairValue: 40_000, valueLow: 35_000, valueHigh: 45_000, dealScore: 650 },
      // Not a deal; sold at 90% of fair value, inside the range.
      { title: 'Lot A3', currentBid: 40_000, fairValue: 50_000, valueLow: 40_000, valueHigh: 60_000, dealScore: 300 },
      { title: 'Lot A4 (withdrawn)', currentBid: 10_000, fairValue: 20_000, dealScore: 500 },
      { title: 'Lot A5 (still open)', currentBid: 10_000, fairValue: 20_000, dealScore: 500 },
    ]);
    const [beta] = await insertListings(db, b, [{ title: 'Lot B1 (closed unsold)', currentBid: 5_000, fairValue: 9_000, dealScore: 700 }]);
    const close = async (id: number, status: string, final?: number) => {
      await db.execute(sql`UPDATE listings SET status = ${status}, price_usd = coalesce(${final ?? null}::numeric, price_usd) WHERE id = ${id}`);
    };
    await close(lots[0]!.id, 'sold', 45_000);
    await db.execute(sql`INSERT INTO sold_results (origin, external_id, listing_id, title, category_id, sold_at, price) VALUES ('crawl:alpha', ${lots[0]!.externalId}, ${lots[0]!.id}, 'Lot A1', 11, now(), 44000)`);
    await close(lots[1]!.id, 'sold', 48_000);
    await close(lots[2]!.id, 'sold', 45_000);
    await close(lots[3]!.id, 'withdrawn');
    await close(beta!.id, 'closed');
    // A rescore after the close does not change what was claimed.
    await db.execute(sql`UPDATE listings SET fair_value = 1, deal_score = 0 WHERE status <> 'open'`);
    // A second status change keeps the first outcome.
    await close(lots[1]!.id, 'closed');

    const json = JSON.parse(await run(outcomesCommand, ['--since', '30d', '--json']));
    const alpha = json.sources.find((s: { source: string }) => s.source === 'alpha');
    expect(alpha).toEqual({
      source: 'alpha',
      closed: 4,
      sold: 3,
      unsold: 0,
      withdrawn: 1,
      valued: 3,
      // 44,000/50,000 = 0.88 (the sold result wins over the last bid), 48,000/40,000 = 1.2, 45,000/50,000 = 0.9
      medianFinalToFair: 0.9,
      inRange: 2 / 3,
      goodOrBetter: 2,
      goodOrBetterUnderFair: 0.5,
      excellent: 1,
      excellentUnderFair: 1,
      allUnderFair: 2 / 3,
    });
    expect(json.sources.find((s: { source: string }) => s.source === 'beta')).toMatchObject({ closed: 1, sold: 0, unsold: 1, valued: 0, medianFinalToFair: null });
    expect(json.sources.at(-1)).toMatchObject({ source: 'all', closed: 5 });

    const table = await run(outcomesCommand, ['--since', '30d']);
    expect(table).toContain('median final/fair');
    expect(table).toMatch(/alpha\s+│?\s*4/);
    // A window that starts after the closes finds nothing.
    expect(JSON.parse(await run(outcomesCommand, ['--since', new Date(Date.now() + 86_400_000).toISOString().slice(0, 10), '--json'])).sources).toEqual([]);
    await expect(run(outcomesCommand, ['--since', 'lately'])).rejects.toThrow(/--since takes/);
  });

  it('summarises nothing as nothing', () => {
    expect(summarizeOutcomes([])).toEqual([]);
  });
});
