/**
 * Politeness and faults, through the real pipeline against the demo site behind a fixture
 * server on 127.0.0.1: robots.txt obeyed, 429 Retry-After waited out, a 5xx retried, a 404
 * and a garbage page recorded and skipped, a redirect off the source's hosts refused, a 20 MB
 * body cut, and the real Cloudflare challenge page marking the source blocked (not empty).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoSite } from '../../scripts/demo-site/demo-server.js';
import { requestCrawl, waitForRun } from '../../services/crawler/crawl-requests.js';
import { startCrawlWorker } from '../../services/crawler/index.js';
import type { TestContext } from '../support/context.js';
import { createCrawlTestContext, startTestDemoSite } from '../support/crawl-harness.js';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy.js';

const BLOCK_PAGE = path.resolve(process.env.SHARED_DIR ?? '../shared', 'fixtures/sites/tractorhouse/blocked-cloudflare-challenge_list-tractors_roshtarg_page.html');

let site: DemoSite;
let proxy: FaultProxy;
let ctx: TestContext;
let crawler: Awaited<ReturnType<typeof startCrawlWorker>>;
let lots: Record<'disallowed' | 'throttled' | 'flaky' | 'gone' | 'garbage' | 'foreign' | 'sideways' | 'huge', string>;

beforeAll(async () => {
  site = await startTestDemoSite({ lots: 40, publishedShare: 1 });
  proxy = await startFaultProxy(site.url);
  const ids = site.auction.visible().map((v) => v.lot.id);
  lots = { disallowed: ids[1]!, throttled: ids[2]!, flaky: ids[3]!, gone: ids[4]!, garbage: ids[5]!, foreign: ids[6]!, sideways: ids[7]!, huge: ids[8]! };
  const lotPath = (id: string) => `/lots/${id}`;
  proxy.overrides.set('/robots.txt', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`User-agent: *\nDisallow: ${lotPath(lots.disallowed)}\n`);
    return true;
  });
  proxy.overrides.set(lotPath(lots.throttled), (_req, res, hit) => {
    if (hit > 1) return false;
    res.writeHead(429, { 'retry-after': '2', 'content-type': 'text/plain' });
    res.end('slow down');
    return true;
  });
  proxy.overrides.set(lotPath(lots.flaky), (_req, res, hit) => {
    if (hit > 1) return false;
    res.writeHead(500);
    res.end('oops');
    return true;
  });
  proxy.overrides.set(lotPath(lots.gone), (_req, res) => {
    res.writeHead(404, { 'content-type': 'text/html' });
    res.end('<h1>Lot withdrawn</h1>');
    return true;
  });
  proxy.overrides.set(lotPath(lots.garbage), (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body>\u0000\u0001 %%% <div class="lot"><h1>no id here</h1> <<<>>> &&& </body>');
    return true;
  });
  proxy.overrides.set(lotPath(lots.foreign), (_req, res) => {
    res.writeHead(302, { location: 'http://auction-mirror.example.com/steal' });
    res.end();
    return true;
  });
  proxy.overrides.set(lotPath(lots.sideways), (_req, res) => {
    // Loopback, but not this source's host: still refused.
    res.writeHead(301, { location: `http://localhost:${proxy.port}/lots/${lots.sideways}` });
    res.end();
    return true;
  });
  proxy.overrides.set(lotPath(lots.huge), async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    res.write('<html><body>');
    for (let i = 0; i < 20 && !res.destroyed; i++) {
      if (!res.write(chunk)) await new Promise((r) => res.once('drain', r).once('close', r));
    }
    res.end('</body></html>');
    return true;
  });
  ctx = await createCrawlTestContext(proxy.url, { env: { CRAWL_MAX_BODY_BYTES: String(2 * 1024 * 1024) } });
  crawler = await startCrawlWorker(ctx);
}, 60_000);

afterAll(async () => {
  await crawler?.stop();
  await ctx?.close();
  await proxy?.close();
  await site?.close();
});

async function errorsOf(runId: number) {
  return ctx.database.db.execute<{ url: string; kind: string; status_code: number | null; message: string }>(
    sql`SELECT url, kind, status_code, message FROM crawl_errors WHERE run_id = ${runId} ORDER BY id`,
  );
}

async function storedIds(): Promise<Set<string>> {
  const rows = await ctx.database.db.execute<{ external_id: string }>(sql`SELECT external_id FROM listings`);
  return new Set(rows.map((r) => r.external_id));
}

describe('a crawl with faults', () => {
  it('obeys robots.txt, waits out Retry-After, retries a 5xx, records and skips the rest, and goes on', async () => {
    const visible = site.auction.visible().map((v) => v.lot.id);
    const run = await waitForRun(ctx, (await requestCrawl(ctx, 'demo')).id, { timeoutMs: 90_000 });
    const stored = await storedIds();
    const skipped = [lots.disallowed, lots.gone, lots.garbage, lots.foreign, lots.sideways, lots.huge];
    for (const id of visible) expect(stored.has(id), id).toBe(!skipped.includes(id));
    expect(run.outcome).toBe('ok');
    expect(run.lotsNew).toBe(visible.length - skipped.length);

    const errors = await errorsOf(run.id);
    const byLot = (id: string) => errors.filter((e) => e.url?.includes(id));
    // robots.txt: the lot is never requested at all.
    expect(proxy.hits.get(`/lots/${lots.disallowed}`)).toBeUndefined();
    expect(byLot(lots.disallowed).map((e) => e.kind)).toEqual(['robots']);
    // 429 with Retry-After: 2 → asked again no sooner than two seconds later, then stored.
    const throttled = proxy.hits.get(`/lots/${lots.throttled}`)!;
    expect(throttled).toHaveLength(2);
    expect(throttled[1]! - throttled[0]!).toBeGreaterThanOrEqual(1900);
    expect(stored.has(lots.throttled)).toBe(true);
    // 500 once: retried with backoff, then stored.
    expect(proxy.hits.get(`/lots/${lots.flaky}`)).toHaveLength(2);
    // 404: recorded, not retried.
    expect(byLot(lots.gone)).toMatchObject([{ kind: 'http', status_code: 404 }]);
    expect(proxy.hits.get(`/lots/${lots.gone}`)).toHaveLength(1);
    // Garbage HTML: a parse error, not a crash.
    expect(byLot(lots.garbage)).toMatchObject([{ kind: 'parse' }]);
    // Redirects off the source's host are refused, not followed.
    expect(byLot(lots.foreign)).toMatchObject([{ kind: 'refused' }]);
    expect(byLot(lots.foreign)[0]!.message).toContain('auction-mirror.example.com');
    expect(byLot(lots.sideways)).toMatchObject([{ kind: 'refused' }]);
    expect(byLot(lots.sideways)[0]!.message).toContain(`localhost:${proxy.port}`);
    // 20 MB body: cut at the cap, recorded, never parsed.
    expect(byLot(lots.huge)).toMatchObject([{ kind: 'too-large' }]);
    expect(errors).toHaveLength(6);
  });

  it('tells an empty source from a blocked one: the real Cloudflare challenge page marks it blocked', async () => {
    proxy.overrides.set('/auctions?page=1', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body><h1>Equipment auctions</h1><ul class="lots"></ul></body></html>');
      return true;
    });
    const empty = await waitForRun(ctx, (await requestCrawl(ctx, 'demo')).id, { timeoutMs: 30_000 });
    expect(empty.outcome).toBe('empty');
    let [source] = await ctx.database.db.execute<{ status: string; blocked_since: Date | null }>(sql`SELECT status, blocked_since FROM sources WHERE name = 'demo'`);
    expect(source).toMatchObject({ status: 'empty', blocked_since: null });

    const challenge = readFileSync(BLOCK_PAGE);
    proxy.overrides.set('/auctions?page=1', (_req, res) => {
      res.writeHead(403, { 'content-type': 'text/html; charset=UTF-8', 'cf-mitigated': 'challenge' });
      res.end(challenge);
      return true;
    });
    const blocked = await waitForRun(ctx, (await requestCrawl(ctx, 'demo')).id, { timeoutMs: 30_000 });
    expect(blocked.outcome).toBe('blocked');
    expect((await errorsOf(blocked.id)).map((e) => e.kind)).toEqual(['blocked']);
    [source] = await ctx.database.db.execute<{ status: string; blocked_since: Date | null }>(sql`SELECT status, blocked_since FROM sources WHERE name = 'demo'`);
    expect(source!.status).toBe('blocked');
    expect(source!.blocked_since).not.toBeNull();

    // Served with 200 instead, the same page is still recognised by its content.
    proxy.overrides.set('/auctions?page=1', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=UTF-8' });
      res.end(challenge);
      return true;
    });
    const again = await waitForRun(ctx, (await requestCrawl(ctx, 'demo')).id, { timeoutMs: 30_000 });
    expect(again.outcome).toBe('blocked');

    proxy.overrides.delete('/auctions?page=1');
    const recovered = await waitForRun(ctx, (await requestCrawl(ctx, 'demo')).id, { timeoutMs: 60_000 });
    expect(recovered.outcome).toBe('ok');
    [source] = await ctx.database.db.execute<{ status: string; blocked_since: Date | null }>(sql`SELECT status, blocked_since FROM sources WHERE name = 'demo'`);
    expect(source).toMatchObject({ status: 'ok', blocked_since: null });
  });
});
