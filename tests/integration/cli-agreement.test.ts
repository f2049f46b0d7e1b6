/**
 * `cli agreement [--source <key>] [--all] [--json]` (issue 28) on the real database: listings with
 * fair values and stored comparables, read a page at a time, reported per source as the deal page
 * shows them (the detail route's comparables and note).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Comparable } from '../../db/schema/listings.js';
import { agreementCommand } from '../../scripts/cli/agreement-command.js';
import { agreementRowPages } from '../../services/shared/repositories/agreement-repository.js';
import type { SourceAgreement } from '../../services/valuation/agreement-report.js';
import type { ApiApp } from '../../services/api/app.js';
import { createTestApp } from '../support/app.js';
import type { TestContext } from '../support/context.js';
import { insertListings, insertSource } from '../support/listing-fixtures.js';

let ctx: TestContext;
let app: ApiApp;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ ctx, app, close } = await createTestApp());
});
afterAll(async () => {
  await close?.();
});

async function run(args: string[]): Promise<string> {
  const printed: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    printed.push(String(chunk));
    return true;
  });
  try {
    await agreementCommand.run(ctx, args);
    return printed.join('');
  } finally {
    spy.mockRestore();
  }
}

const comp = (price: number, year = 2010, hours = 5000) => ({ title: 'Sold lot', price, original_price: price, sold_at: '2026-01-02', source: 'Fast Iron', url: null, year, hours }) as Comparable;
const comps = [comp(20_000), comp(24_000), comp(30_000)];

describe('cli agreement', () => {
  it('reports per source what the deal page shows, open lots by default, every lot with --all', async () => {
    const db = ctx.database.db;
    const a = await insertSource(db, 'agree-a', 'Agree A');
    const b = await insertSource(db, 'agree-b', 'Agree B');
    await insertListings(db, a, [
      { title: 'Excavator 1', year: 2010, hours: 5000, currentBid: 10_000, fairValue: 24_000, dealScore: 500, comparables: comps },
      { title: 'Excavator 2', year: 2010, hours: 5000, currentBid: 10_000, fairValue: 30_100, dealScore: 450, comparables: comps },
      // newer and fewer hours than its comparables: above them, and the page says why
      { title: 'Excavator 3', year: 2018, hours: 800, currentBid: 10_000, fairValue: 45_000, dealScore: 850, comparables: comps },
      // sold for parts: below them
      { title: 'Excavator 4, for parts', year: 2010, hours: 5000, currentBid: 1_000, fairValue: 6_000, dealScore: 650, comparables: comps },
      // no year, no comparables
      { title: 'Excavator 5', year: null, hours: 3000, currentBid: 10_000, fairValue: 20_000, dealScore: 300, comparables: [] },
      // not valued
      { title: 'Excavator 6', year: 2010, currentBid: 10_000 },
      // ended: only with --all
      { title: 'Excavator 7', year: 2010, hours: 5000, currentBid: 10_000, fairValue: 90_000, dealScore: 500, comparables: comps, status: 'sold' },
    ]);
    await insertListings(db, b, [
      { title: 'Loader 1', year: 2010, hours: 5000, currentBid: 10_000, fairValue: 22_000, dealScore: 550, comparables: comps },
      // sold subject to the seller's confirmation: above them, and the page says so
      { title: 'Loader 2', description: "The sale of this item is subject to the seller's confirmation.", year: 2010, hours: 5000, currentBid: 10_000, fairValue: 40_000, dealScore: 500, comparables: comps },
    ]);

    const json = JSON.parse(await run(['--json'])) as { scope: string; sources: SourceAgreement[] };
    expect(json.scope).toBe('open');
    const by = (name: string) => json.sources.find((s) => s.source === name)!;
    expect(json.sources.map((s) => s.source)).toEqual(['agree-a', 'agree-b', 'all']);
    expect(by('agree-a')).toMatchObject({
      listings: 6,
      scored: 5,
      valued: 5,
      withComparables: 4,
      within: 2,
      above: 1,
      below: 1,
      withinShare: 0.5,
      notes: { total: 3, noYear: 1, unlike: 1, alsoWeighs: 0, impaired: 1, reserve: 0, noComparables: 0 },
      levels: { excellent: 1, good: 1, fair: 2, poor: 1, unscored: 1 },
      fairShare: 0.4,
    });
    // ln(24/24), ln(30.1/24), ln(45/24), ln(6/24): the median is (ln 30.1/24 + 0) / 2
    expect(by('agree-a').medianLogRatio).toBeCloseTo(Math.log(30_100 / 24_000) / 2, 9);
    expect(by('agree-b')).toMatchObject({ listings: 2, within: 1, above: 1, withinShare: 0.5, notes: { total: 1, reserve: 1, alsoWeighs: 0 }, levels: { fair: 2 } });
    expect(by('all')).toMatchObject({ listings: 8, withComparables: 6, within: 3, above: 2, below: 1, withinShare: 0.5, notes: { total: 4, reserve: 1, impaired: 1 } });

    const all = JSON.parse(await run(['--all', '--json'])) as { scope: string; sources: SourceAgreement[] };
    expect(all.scope).toBe('all');
    expect(all.sources.find((s) => s.source === 'agree-a')).toMatchObject({ listings: 7, above: 2 });

    const one = JSON.parse(await run(['--source', 'agree-b', '--json'])) as { sources: SourceAgreement[] };
    expect(one.sources.map((s) => s.source)).toEqual(['agree-b', 'all']);
    expect(one.sources[1]).toMatchObject({ listings: 2, within: 1, above: 1 });

    const table = await run([]);
    expect(table).toMatch(/^agree-a\s+6\s+5\s+4\s+2 \(50\.0%\)\s+1 \(25\.0%\)\s+1 \(25\.0%\)/m);
    expect(table).toMatch(/^agree-a\s+5\s+1\s+1\s+2\s+1\s+1\s+40\.0%$/m);

    await expect(run(['--source', 'nowhere'])).rejects.toThrow(/no source "nowhere"/);
  });

  it('agrees with the detail route, lot by lot: its comparables\u2019 span and its note', async () => {
    const report = JSON.parse(await run(['--json'])) as { sources: SourceAgreement[] };
    const open = await ctx.database.sql<Array<{ id: number; source: string }>>`
      SELECT l.id, s.name AS source FROM listings l JOIN sources s ON s.id = l.source_id WHERE l.status = 'open' ORDER BY l.id`;
    const seen = new Map<string, { within: number; above: number; below: number; notes: number }>();
    for (const { id, source } of open) {
      const res = await app.inject({ method: 'GET', url: `/api/auctions/detail/${id}/` });
      expect(res.statusCode).toBe(200);
      const valuation = (res.json() as { data: { valuation: { fair_value: number; note: string | null; comparables: Array<{ price: number }> } | null } }).data.valuation;
      const t = seen.get(source) ?? { within: 0, above: 0, below: 0, notes: 0 };
      seen.set(source, t);
      if (!valuation) continue;
      if (valuation.note) t.notes++;
      const prices = valuation.comparables.map((c) => c.price);
      if (prices.length === 0) continue;
      // the page's span, whole dollars either side
      if (valuation.fair_value > Math.max(...prices) * 1.005) t.above++;
      else if (valuation.fair_value < Math.min(...prices) * 0.995) t.below++;
      else t.within++;
    }
    for (const [source, t] of seen) {
      expect(report.sources.find((r) => r.source === source), source).toMatchObject({ within: t.within, above: t.above, below: t.below, notes: { total: t.notes } });
    }
    expect([...seen.keys()].sort()).toEqual(['agree-a', 'agree-b']);
  });

  it('reads the listings a page at a time, in id order, each once', async () => {
    const pages: number[][] = [];
    for await (const page of agreementRowPages(ctx.database.db, { all: true, pageSize: 3 })) pages.push(page.map((r) => (r as unknown as { id: number }).id));
    expect(pages.every((p) => p.length <= 3)).toBe(true);
    const ids = pages.flat();
    expect(ids.length).toBe(9);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(new Set(ids).size).toBe(ids.length);
  });
});
