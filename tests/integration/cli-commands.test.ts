/**
 * The operator commands against a real database and queue: `queues` (counts, failed jobs with
 * their last error, retrying them), `--json` on queues, sources, outbox and alerts; and the CLI
 * process itself: unknown flags are errors with the command's usage, `--help` per command, and a
 * clear message (not a stack trace) when the shared data folder is missing.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { alertsCommand } from '../../scripts/cli/alerts-command.js';
import type { CliCommand } from '../../scripts/cli/command.js';
import { outboxCommand } from '../../scripts/cli/outbox-command.js';
import { queuesCommand } from '../../scripts/cli/queues-command.js';
import { sourcesCommand } from '../../scripts/cli/sources-command.js';
import { ADAPTERS } from '../../services/crawler/adapters/index.js';
import { openSql } from '../../services/shared/database/connection-url.js';
import { NonRetryableError } from '../../services/shared/errors.js';
import { createTestContext, type TestContext } from '../support/context.js';
import { createTestDatabase } from '../support/database.js';
import { waitFor } from '../support/wait.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
let ctx: TestContext;

beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => {
  await ctx?.close();
});

/** Runs a command in this process and returns what it printed. */
async function run(command: CliCommand, args: string[]): Promise<{ code: number | void; out: string }> {
  const printed: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    printed.push(String(chunk));
    return true;
  });
  try {
    const code = await command.run(ctx, args);
    return { code, out: printed.join('') };
  } finally {
    spy.mockRestore();
  }
}

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/cli.ts', ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('queues', () => {
  it('lists failed jobs with their last error, and --retry puts them back', async () => {
    await ctx.queues.enqueue('score', { listingId: 41, reason: 'new', version: 'obs-1' });
    const worker = ctx.queues.worker('score', async () => {
      throw new NonRetryableError('no trained model yet');
    });
    await waitFor(async () => ((await ctx.queues.queue('score').getJobCounts('failed')).failed === 1 ? true : undefined), 30_000, 'the job to fail');
    await worker.close();

    const counts = await run(queuesCommand, []);
    const scoreLine = counts.out.split('\n').find((l) => l.startsWith('score '));
    expect(counts.out.split('\n')[0]).toMatch(/^queue\s+waiting\s+prioritized\s+active\s+delayed\s+completed\s+failed$/);
    expect(scoreLine?.split(/\s+/)).toEqual(['score', '0', '0', '0', '0', '0', '1']);
    expect(counts.out).not.toMatch(/[│┌'"]/);

    const failed = await run(queuesCommand, ['--failed']);
    expect(failed.out).toMatch(/^queue\s+job\s+attempts\s+failed at\s+last error$/m);
    expect(failed.out).toMatch(/^score\s+score-41-\S+\s+1\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+no trained model yet$/m);

    const json = JSON.parse((await run(queuesCommand, ['--failed', '--json'])).out) as Array<{ queue: string; error: string; data: { listingId: number } }>;
    expect(json).toEqual([expect.objectContaining({ queue: 'score', error: 'no trained model yet', attempts: 1, data: { listingId: 41, reason: 'new', version: 'obs-1' } })]);

    const retried = await run(queuesCommand, ['--failed', '--retry', '--queue', 'score']);
    expect(retried.out).toContain('Retried 1 failed job;');
    const after = JSON.parse((await run(queuesCommand, ['--json', '--queue', 'score'])).out) as Array<Record<string, number | string>>;
    expect(after).toEqual([{ queue: 'score', waiting: 1, prioritized: 0, active: 0, delayed: 0, completed: 0, failed: 0 }]);
    expect((await run(queuesCommand, ['--failed'])).out).toBe('No failed jobs.\n');
  });

  it('refuses --retry without --failed and an unknown queue', async () => {
    await expect(queuesCommand.run(ctx, ['--retry'])).rejects.toThrow('--retry goes with --failed');
    await expect(queuesCommand.run(ctx, ['--queue', 'nope'])).rejects.toThrow('Unknown queue "nope"');
  });
});

describe('--json', () => {
  it('sources, outbox and alerts print JSON', async () => {
    await ctx.database.sql`INSERT INTO sources (name, display_name, base_url, enabled, disabled_reason, status, status_message, status_urls)
      VALUES ('probe', 'Probe', 'http://127.0.0.1', false, 'not listed in CRAWL_SOURCES', 'layout-changed', 'no lots found', '["http://127.0.0.1/list"]'::jsonb)`;
    const sources = JSON.parse((await run(sourcesCommand, ['--json'])).out) as Array<{ name: string }>;
    expect(sources.find((s) => s.name === 'probe')).toEqual(
      expect.objectContaining({ name: 'probe', registered: true, enabled: false, status: 'layout-changed', statusMessage: 'no lots found', failingUrls: ['http://127.0.0.1/list'], lots: 0 }),
    );
    // beside it, every adapter not registered yet
    expect(sources.map((s) => s.name).sort()).toEqual([...ADAPTERS.map((a) => a.name), 'probe'].sort());
    const table = (await run(sourcesCommand, [])).out.split('\n');
    expect(table[0]).toMatch(/^source\s+enabled\s+status\s+last run/);
    expect(table.find((l) => l.startsWith('probe '))).toMatch(/^probe\s+no: not listed in CRAWL_SOURCES\s+layout changed\s+—.*no lots found at http:\/\/127\.0\.0\.1\/list$/);

    await ctx.database.sql`INSERT INTO outbox_messages (message_key, channel, kind, recipient, subject, text_body, status)
      VALUES ('k1', 'email', 'password-reset', 'a@example.com', 'Reset', 'Use this link', 'sent')`;
    expect(JSON.parse((await run(outboxCommand, ['--json'])).out)).toEqual([
      expect.objectContaining({ channel: 'email', kind: 'password-reset', recipient: 'a@example.com', subject: 'Reset', status: 'sent', textBody: 'Use this link' }),
    ]);
    expect(JSON.parse((await run(outboxCommand, ['--json', '--to', 'b@example.com'])).out)).toEqual([]);
    expect(JSON.parse((await run(alertsCommand, ['--json'])).out)).toEqual({ alerts: [], notificationsLast24h: [] });
  });
});

describe('sources on a fresh database', () => {
  it('lists every adapter as this shell configures it, configured / not yet crawled or disabled, and registers none', async () => {
    const fresh = await createTestDatabase();
    const sql = openSql(fresh.url, { max: 1, onnotice: () => {} });
    try {
      const env = { DATABASE_URL: fresh.url, DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'deal-radar-cli-')), CRAWL_SOURCES: 'gsaauctions,westauction' };
      const table = await cli(['sources'], env);
      expect(table.code, table.stderr).toBe(0);
      const lines = table.stdout.split('\n');
      const line = (name: string) => lines.find((l) => l.split(/\s{2,}/)[0]!.replace(/ \(demo\)$/, '') === name);
      for (const adapter of ADAPTERS) expect(line(adapter.name), adapter.name).toBeDefined();
      expect(line('gsaauctions')).toMatch(/^gsaauctions\s+yes\s+configured \/ not yet crawled\s+—/);
      expect(line('westauction')).toMatch(/^westauction\s+yes\s+configured \/ not yet crawled\s+—/);
      expect(line('bidspotter')).toMatch(/^bidspotter\s+no: not listed in CRAWL_SOURCES\s+disabled \(not in CRAWL_SOURCES\)\s+—/);
      // an adapter off for its own reason says that reason, whatever CRAWL_SOURCES lists
      expect(line('demo')).toMatch(/^demo \(demo\)\s+no: not configured \(no base URL\)\s+disabled\s+—/);
      // a sentence-long reason goes under the table
      const govDeals = ADAPTERS.find((a) => a.name === 'govdeals')!;
      expect(govDeals.disabledReason!.length).toBeGreaterThan(40);
      expect(line('govdeals')).toMatch(/^govdeals\s+no: see below\s+disabled\s+—/);
      expect(table.stdout).toContain(`Why disabled:\n  govdeals: ${govDeals.disabledReason}\n`);
      expect(table.stdout).toContain('No source registered yet');

      const json = await cli(['sources', '--json'], env);
      expect(json.code, json.stderr).toBe(0);
      const records = JSON.parse(json.stdout) as Array<{ name: string; registered: boolean; enabled: boolean; status: string; lastRunAt: string | null; lots: number }>;
      expect(records.map((r) => r.name)).toEqual(ADAPTERS.map((a) => a.name).sort());
      for (const r of records) expect(r).toMatchObject({ registered: false, status: 'unknown', lastRunAt: null, lots: 0 });
      expect(records.filter((r) => r.enabled).map((r) => r.name)).toEqual(['gsaauctions', 'westauction']);

      // read-only: no source registered, no run recorded
      expect(await sql`SELECT count(*)::int AS n FROM sources`).toEqual([{ n: 0 }]);
      expect(await sql`SELECT count(*)::int AS n FROM crawl_runs`).toEqual([{ n: 0 }]);
    } finally {
      await sql.end();
      await fresh.drop();
    }
  }, 60_000);
});

describe('the CLI process', () => {
  it('refuses an unknown flag with the command usage, and shows --help per command', async () => {
    const bad = await cli(['sources', '--enable', 'demo']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Unknown option --enable.');
    expect(bad.stderr).toContain('Usage: npm run cli -- sources [--json]');
    // val's commands declare no flags: their usage line is the rule.
    const train = await cli(['model:train', '--rescore-none']);
    expect(train.code).toBe(2);
    expect(train.stderr).toContain('Unknown option --rescore-none.');

    const help = await cli(['queues', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: npm run cli -- queues');
    expect(help.stdout).toMatch(/--retry\s+with --failed/);
  }, 60_000);

  it('says the shared data is missing instead of a stack trace', async () => {
    const result = await cli(['crawl', '--source', 'demo', '--once'], { DATABASE_URL: ctx.config.DATABASE_URL!, SHARED_DIR: '/nonexistent/shared', DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'deal-radar-cli-')) });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('The shared data this command reads is missing: /nonexistent/shared/');
    expect(result.stderr).toContain('set SHARED_DIR');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
