/**
 * Read-only commands beside a live product, as an operator runs them: the product (crawler,
 * scheduler and API in the launcher, a real child process on its own database) crawls the demo
 * site; `sources`, `queues`, `outbox`, `alerts`, `agreement` and `crawl --dry-run` run as separate CLI processes from a
 * shell whose environment knows nothing of the demo source (the default CRAWL_SOURCES, no
 * DEMO_SITE_URL). Nothing they touch changes: the sources table (enabled flag, base URL, health),
 * the listings, and the queues' jobs beyond the one dry run asked for.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { openSql } from '../../services/shared/database/connection-url.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoSite } from '../../scripts/demo-site/demo-server.js';
import { reservePort } from '../support/ports.js';
import { startTestDemoSite } from '../support/crawl-harness.js';
import { createTestDatabase } from '../support/database.js';
import { waitFor } from '../support/wait.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
let site: DemoSite;
let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
let sql: postgres.Sql;
let product: ChildProcess | undefined;
let productOutput = '';
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'deal-radar-cli-'));

/** The environment of another shell: the database, nothing of the product's source settings. */
function shellEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', DATABASE_URL: testDb.url, DATA_DIR: dataDir, SHARED_DIR: process.env.SHARED_DIR ?? '../shared', LOG_LEVEL: 'warn' };
}

async function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cli.ts', ...args], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { code, stdout, stderr };
}

/** What a read-only command must leave as it found: every source column, the listings, the run history. */
async function snapshot() {
  return {
    sources: await sql`SELECT * FROM sources ORDER BY id`,
    listings: await sql`SELECT id, content_hash, last_seen_at, updated_at FROM listings ORDER BY id`,
    observations: await sql`SELECT count(*)::int AS n FROM price_observations`,
    realRuns: await sql`SELECT id, state, outcome FROM crawl_runs WHERE NOT dry_run ORDER BY id`,
  };
}

beforeAll(async () => {
  site = await startTestDemoSite({ lots: 30 });
  testDb = await createTestDatabase();
  sql = openSql(testDb.url, { max: 2, onnotice: () => {} });
  const port = await reservePort();
  product = spawn(process.execPath, ['--import', 'tsx', 'services/main.ts'], {
    cwd: repoRoot,
    env: {
      ...shellEnv(),
      SERVICES: 'crawler,scheduler,api',
      PORT: String(port),
      JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-signing',
      CRAWL_SOURCES: 'demo',
      DEMO_SITE_URL: site.url,
      CRAWL_TIMEOUT_MS: '5000',
      // The product's own schedules (hourly crawl, ending-soon and watched re-checks at */15 and */2
      // minutes) would crawl between the two snapshots whenever the test straddles such a minute
      //: here they tick once a year, so what changes is only what the test asks.
      CRAWL_SCHEDULE: '0 0 1 1 *',
      CRAWL_ENDING_SOON_SCHEDULE: '0 0 1 1 *',
      WATCH_RECHECK_SCHEDULE: '0 0 1 1 *',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const keep = (chunk: Buffer) => (productOutput = (productOutput + chunk.toString()).slice(-8000));
  product.stdout?.on('data', keep);
  product.stderr?.on('data', keep);
  // The API starts after the workers: when it answers, the crawler has registered its sources.
  await waitFor(
    async () => {
      if (product!.exitCode !== null) throw new Error(`the product exited with ${product!.exitCode}:\n${productOutput}`);
      return (await fetch(`http://127.0.0.1:${port}/api/health/`).then((r) => r.ok, () => false)) || undefined;
    },
    90_000,
    'the product to answer /api/health/',
  );
}, 120_000);

afterAll(async () => {
  if (product && product.exitCode === null) {
    const exited = new Promise((resolve) => product!.once('exit', resolve));
    product.kill('SIGTERM');
    await exited;
  }
  await sql?.end();
  await testDb?.drop();
  await site?.close();
});

describe('read-only commands beside a live product', () => {
  it('sources, queues, outbox and crawl --dry-run change nothing the product set', async () => {
    // The product crawls the demo site once (a queued crawl, carried out by its crawler).
    const queued = await runCli(['crawl', '--source', 'demo'], shellEnv());
    expect(queued, queued.stderr).toMatchObject({ code: 0 });
    const runId = Number(/run #(\d+)/.exec(queued.stdout)?.[1]);
    // Deadlines, not timings: on a loaded CI machine the product's own first-run crawl of the demo
    // source runs first and this one after it (one run per host); a timeout says where they stood.
    const runs = async () => JSON.stringify(await sql`SELECT * FROM crawl_runs ORDER BY id`);
    await waitFor(async () => ((await sql`SELECT 1 FROM crawl_runs WHERE id = ${runId} AND state = 'finished'`).length > 0 ? true : undefined), 200_000, 'the crawl').catch(async (e) => {
      throw new Error(`${(e as Error).message}; runs: ${await runs()}\n${productOutput}`);
    });
    // The product's own first-run crawl of the never-crawled demo source may still be finishing.
    await waitFor(async () => ((await sql`SELECT 1 FROM crawl_runs WHERE state = 'running'`).length === 0 ? true : undefined), 200_000, 'every crawl run to finish');
    const before = await snapshot();
    expect(before.sources.find((s) => s.name === 'demo')).toMatchObject({ enabled: true, base_url: site.url, status: 'ok' });
    expect(before.listings.length).toBeGreaterThan(0);

    const sources = await runCli(['sources'], shellEnv());
    expect(sources.code, sources.stderr).toBe(0);
    const demoLine = sources.stdout.split('\n').find((l) => l.startsWith('demo'));
    expect(demoLine).toMatch(/^demo \(demo\)\s+yes\s+ok\b/);
    const json = await runCli(['sources', '--json'], shellEnv());
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as Array<{ name: string; enabled: boolean }>).find((s) => s.name === 'demo')).toMatchObject({ enabled: true, status: 'ok' });
    for (const args of [['queues'], ['queues', '--failed', '--json'], ['outbox', '--json'], ['alerts'], ['agreement'], ['agreement', '--source', 'demo', '--json']]) {
      const result = await runCli(args, shellEnv());
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
    }
    // no scorer runs here: every open demo lot is counted, none valued
    const agreement = await runCli(['agreement', '--json'], shellEnv());
    const [openDemo] = await sql<Array<{ n: number }>>`SELECT count(*)::int AS n FROM listings l JOIN sources s ON s.id = l.source_id WHERE s.name = 'demo' AND l.status = 'open'`;
    expect((JSON.parse(agreement.stdout) as { sources: Array<{ source: string; listings: number; valued: number }> }).sources.find((s) => s.source === 'demo')).toMatchObject({ listings: openDemo!.n, valued: 0 });

    const dry = await runCli(['crawl', '--source', 'demo', '--dry-run'], shellEnv());
    expect(dry.code, dry.stderr).toBe(0);
    const dryId = Number(/run #(\d+)/.exec(dry.stdout)?.[1]);
    const [dryRun] = await waitFor(async () => {
      const rows = await sql`SELECT * FROM crawl_runs WHERE id = ${dryId} AND state = 'finished'`;
      return rows.length > 0 ? rows : undefined;
    }, 90_000, 'the dry run');
    // The live crawler carried it out: every lot seen, none stored again.
    expect(dryRun).toMatchObject({ dry_run: true, outcome: 'ok', lots_new: 0, lots_updated: 0, lots_unchanged: before.listings.length });

    const after = await snapshot();
    // part by part, so a failure names what changed
    expect(after.sources, 'sources').toEqual(before.sources);
    expect(after.realRuns, 'crawl runs').toEqual(before.realRuns);
    expect(after.observations, 'price observations').toEqual(before.observations);
    expect(after.listings, 'listings').toEqual(before.listings);
  }, 600_000);
});
