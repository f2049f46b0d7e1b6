/**
 * `npm run seed` as an operator runs it (a child process on a real database): progress while it
 * writes, strict flags with the usage, and a clear message when the shared data is missing.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { openSql } from '../../services/shared/database/connection-url.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../support/database.js';

const repoRoot = path.resolve(import.meta.dirname, '../..');
let testDb: Awaited<ReturnType<typeof createTestDatabase>>;

beforeAll(async () => {
  testDb = await createTestDatabase();
});
afterAll(async () => {
  await testDb?.drop();
});

function seed(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/seed-listings.ts', ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'test', LOG_LEVEL: 'warn', SHARED_DIR: process.env.SHARED_DIR ?? '../shared', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

describe('npm run seed', () => {
  it('writes the listings and reports progress a tenth at a time', async () => {
    const result = await seed(['--count', '3000', '--database-url', testDb.url]);
    expect(result.code, result.stderr).toBe(0);
    const steps = result.stdout.split('\n').filter((l) => /^\s*\d+%/.test(l));
    expect(steps[0]).toMatch(/^\s*\d0%\s+[\d,]+ \/ 3,000 listings$/);
    expect(steps.at(-1)).toBe('100%  3,000 / 3,000 listings');
    expect(steps.length).toBeGreaterThanOrEqual(2);
    const sql = openSql(testDb.url, { max: 1, onnotice: () => {} });
    const [row] = await sql<Array<{ n: number }>>`SELECT count(*)::int AS n FROM listings`;
    await sql.end();
    expect(row!.n).toBe(3000);
  }, 120_000);

  it('refuses unknown flags with the usage, and names a missing shared folder', async () => {
    const bad = await seed(['--count', '10', '--rows', '5']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Unknown option '--rows'/);
    expect(bad.stderr).toContain('Usage: npm run seed -- --count <N>');
    const missing = await seed(['--count', '10', '--database-url', testDb.url], { SHARED_DIR: '/nonexistent/shared' });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('The shared data this command reads is missing: /nonexistent/shared/data/bulldozers');
    expect(missing.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
