/** `GET /api/crawl-status/`: what the empty dashboard of a new installation says. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../support/app.js';

let t: Awaited<ReturnType<typeof createTestApp>>;

beforeAll(async () => {
  t = await createTestApp();
});

afterAll(async () => {
  await t?.close();
});

const status = async () => (await t.app.inject({ method: 'GET', url: '/api/crawl-status/' })).json();

describe('GET /api/crawl-status/', () => {
  it('no source enabled, then a first crawl running, then finished', async () => {
    const sql = t.ctx.database.sql;
    await sql`UPDATE sources SET enabled = false`;
    expect(await status()).toEqual({ enabled_sources: [], first_crawl_running: false, has_listings: false });

    const [source] = await sql<{ id: number }[]>`
      INSERT INTO sources (name, display_name, base_url, enabled) VALUES ('probe', 'Probe Auctions', 'http://127.0.0.1', true) RETURNING id`;
    expect(await status()).toEqual({ enabled_sources: ['Probe Auctions'], first_crawl_running: true, has_listings: false });

    await sql`INSERT INTO crawl_runs (source_id, reason, trigger_key, state) VALUES (${source!.id}, 'scheduled', 'first-run', 'running')`;
    expect((await status()).first_crawl_running).toBe(true);
    await sql`UPDATE crawl_runs SET state = 'finished', outcome = 'empty' WHERE source_id = ${source!.id}`;
    expect((await status()).first_crawl_running).toBe(false);
  });
});
