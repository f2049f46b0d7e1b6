/**
 * Issue 21: a source whose pages change under it, or that puts up a login wall, says so. The real
 * crawl worker crawls pages served from 127.0.0.1: Municibid's recorded browse page (ok), then the
 * same page as a further redesign would leave it (its listing rows renamed: layout changed), and
 * Public Surplus answering 401 with a login form (login required). `npm run sources` (and
 * `--json`), run as the operator runs it, shows both with the failing URL and the message; the
 * changed source keeps its listings and stays enabled for its next scheduled crawl. A re-check
 * meeting the site's recorded not-found page records the lot as not found, not as a layout change.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { promisify } from 'node:util';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawlErrors } from '../../db/schema/crawl.js';
import { listings } from '../../db/schema/listings.js';
import type { SourceAdapter } from '../../services/crawler/adapter.js';
import { ADAPTERS, createRegistry } from '../../services/crawler/adapters/index.js';
import { requestCrawl, waitForRun } from '../../services/crawler/crawl-requests.js';
import { startCrawlWorker } from '../../services/crawler/index.js';
import { findSourceByName } from '../../services/shared/repositories/sources-repository.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { readRepoRecorded } from '../support/recorded-sites.js';

const run = promisify(execFile);

const BROWSE = readRepoRecorded('municibid-next', 'browse_desks_chairs_active.html');
/** The recorded page with its rows renamed, as the site's next redesign might leave it: content, but no row the adapter knows. */
const REDESIGNED = BROWSE.replaceAll('\\"listing\\":{', '\\"auctionItem\\":{');
const NOT_FOUND = readRepoRecorded('municibid-next', 'detail_not_found.html');
/** Written for this test (no login page of Public Surplus is recorded): what its 401 answer carries. */
const LOGIN_PAGE =
  '<!DOCTYPE html><html><head><title>Public Surplus: Log In</title></head><body><form method="post" action="/sms/login">' +
  '<label>Username <input name="username"></label><label>Password <input type="password" name="password"></label>' +
  '<button>Sign in</button></form></body></html>';

let ctx: TestContext;
let server: Server;
let baseUrl: string;
let municibidPage = BROWSE;
let worker: Awaited<ReturnType<typeof startCrawlWorker>>;

/** The real adapters without their seconds between requests (one local server, nobody to spare). */
const quick = (a: SourceAdapter): SourceAdapter => ({ ...a, politeness: { minDelayMs: 0, maxConcurrency: 1 } });

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (path === '/municibid/browse') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(municibidPage);
    } else if (path.startsWith('/municibid/listing/')) {
      // The new site's answer for a listing that is gone: its not-found page (with the usual template).
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(NOT_FOUND);
    } else if (path.startsWith('/publicsurplus/sms/')) {
      res.writeHead(401, { 'content-type': 'text/html; charset=utf-8' }).end(LOGIN_PAGE);
    } else res.writeHead(404).end('not here');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  baseUrl = `http://127.0.0.1:${address.port}`;
  ctx = await createTestContext({
    env: { CRAWL_SOURCES: 'municibid,publicsurplus', SOURCE_BASE_URLS: `municibid=${baseUrl}/municibid,publicsurplus=${baseUrl}/publicsurplus`, CRAWL_TIMEOUT_MS: '5000' },
  });
  worker = await startCrawlWorker(ctx, { registry: createRegistry(ADAPTERS.map((a) => (a.name === 'municibid' || a.name === 'publicsurplus' ? quick(a) : a))) });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await ctx?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

async function crawl(source: string) {
  return waitForRun(ctx, (await requestCrawl(ctx, source)).id, { timeoutMs: 60_000 });
}

async function lotsOf(sourceId: number): Promise<number> {
  const [row] = await ctx.database.db.select({ n: sql<number>`count(*)::int` }).from(listings).where(eq(listings.sourceId, sourceId));
  return row!.n;
}

/** `npm run sources` as the operator runs it, against this test's database. */
async function sourcesCli(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/cli.ts', 'sources', ...args], {
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      DATABASE_URL: ctx.config.DATABASE_URL!,
      SHARED_DIR: ctx.config.SHARED_DIR,
      CRAWL_SOURCES: 'municibid,publicsurplus',
      SOURCE_BASE_URLS: `municibid=${baseUrl}/municibid,publicsurplus=${baseUrl}/publicsurplus`,
    },
    timeout: 60_000,
  });
  return stdout;
}

describe('source status: layout changed and login required', () => {
  it('a source whose pages stop yielding listings becomes "layout changed", keeps its listings and its schedule', async () => {
    const first = await crawl('municibid');
    expect(first.outcome).toBe('ok');
    const source = (await findSourceByName(ctx.database.db, 'municibid'))!;
    expect(source).toMatchObject({ status: 'ok', statusMessage: null, statusUrls: [] });
    expect(await lotsOf(source.id)).toBe(2);

    municibidPage = REDESIGNED;
    const second = await crawl('municibid');
    expect(second.outcome).toBe('layout-changed');
    const changed = (await findSourceByName(ctx.database.db, 'municibid'))!;
    expect(changed.status).toBe('layout-changed');
    expect(changed.statusUrls).toEqual([`${baseUrl}/municibid/browse`]);
    expect(changed.statusMessage).toMatch(/Municibid browse: no listing rows/);
    expect(changed.statusSince).not.toBeNull();
    // Not emptied, not switched off: its lots stay listed and its schedule goes on.
    expect(await lotsOf(changed.id)).toBe(2);
    expect(changed.enabled).toBe(true);
    const open = await ctx.database.db.select({ status: listings.status }).from(listings).where(eq(listings.sourceId, changed.id));
    expect(open.map((l) => l.status)).toEqual(['open', 'open']);
  });

  it('a source answering with a login wall is "login required", never parsed, distinct from blocked and empty', async () => {
    const finished = await crawl('publicsurplus');
    expect(finished.outcome).toBe('login-required');
    const source = (await findSourceByName(ctx.database.db, 'publicsurplus'))!;
    expect(source.status).toBe('login-required');
    expect(source.statusUrls).toEqual([`${baseUrl}/publicsurplus/sms/list/current`]);
    expect(source.statusMessage).toMatch(/login required: HTTP 401/);
    expect(source.blockedSince).toBeNull();
    expect(await lotsOf(source.id)).toBe(0);
  });

  it('npm run sources shows both, with the failing URL and the message; --json gives them to machines', async () => {
    const table = await sourcesCli();
    // The row whose source cell is `name` (whatever the table's borders and quoting).
    const line = (name: string) => table.split('\n').find((l) => l.split(/[│|]|\s{2,}/).some((cell) => cell.trim().replace(/^'|'$/g, '') === name)) ?? '';
    expect(line('municibid')).toContain('layout changed');
    expect(line('municibid')).toContain(`Municibid browse: no listing rows and no "No listings found." notice at ${baseUrl}/municibid/browse`);
    expect(line('publicsurplus')).toContain('login required');
    expect(line('publicsurplus')).toContain(`at ${baseUrl}/publicsurplus/sms/list/current`);

    const records = JSON.parse(await sourcesCli('--json')) as { name: string; status: string; statusMessage: string | null; failingUrls: string[]; lots: number }[];
    const byName = Object.fromEntries(records.map((r) => [r.name, r]));
    expect(byName.municibid).toMatchObject({ status: 'layout-changed', failingUrls: [`${baseUrl}/municibid/browse`], lots: 2 });
    expect(byName.publicsurplus).toMatchObject({ status: 'login-required', failingUrls: [`${baseUrl}/publicsurplus/sms/list/current`], lots: 0 });
    expect(byName.publicsurplus!.statusMessage).toMatch(/HTTP 401/);
  }, 120_000);

  it('a re-check of a removed listing records it as not found, not as a changed layout', async () => {
    const source = (await findSourceByName(ctx.database.db, 'municibid'))!;
    // The recorded lots ended in October 2026: move one into the next hour so the ending-soon schedule re-checks it.
    await ctx.database.db.update(listings).set({ auctionEndAt: new Date(Date.now() + 3600_000) }).where(eq(listings.externalId, '86351268'));
    const recheck = await waitForRun(ctx, (await requestCrawl(ctx, 'municibid', { reason: 'ending-soon' })).id, { timeoutMs: 60_000 });
    expect(recheck.outcome).toBe('error');
    const [error] = await ctx.database.db.select().from(crawlErrors).where(eq(crawlErrors.runId, recheck.id));
    expect(error).toMatchObject({ kind: 'not-found', url: `${baseUrl}/municibid/listing/86351268`, message: 'Municibid listing 86351268: not found (removed or never listed)' });
    expect((await findSourceByName(ctx.database.db, 'municibid'))!.status).toBe('error');
    expect(await lotsOf(source.id)).toBe(2);
  });

  it('a clean crawl after the fix clears the problem', async () => {
    municibidPage = BROWSE;
    expect((await crawl('municibid')).outcome).toBe('ok');
    expect(await findSourceByName(ctx.database.db, 'municibid')).toMatchObject({ status: 'ok', statusMessage: null, statusUrls: [] });
  });
});
