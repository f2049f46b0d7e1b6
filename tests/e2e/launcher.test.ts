/**
 * The product as a user starts it: the launcher on the embedded default. It answers health,
 * shuts down cleanly on SIGTERM (embedded PostgreSQL stopped), and keeps its data across restarts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../services/shared/database/embedded-postgres.js';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'deal-radar-launch-'));
let child: ChildProcess | undefined;
let output = '';

async function launch(port: number, pgPort: number): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'services/main.ts'], {
    env: { ...process.env, NODE_ENV: 'production', PORT: String(port), DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(pgPort), LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Its output is kept (the tail) so a failed stop shows why.
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  proc.stderr?.on('data', keep);
  proc.stdout?.on('data', keep);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`launcher exited with ${proc.exitCode}`);
    const ok = await fetch(`http://127.0.0.1:${port}/api/health/`).then((r) => r.ok, () => false);
    if (ok) return proc;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('launcher did not answer /api/health/ within 60 s');
}

/** SIGTERM, then the exit code — with the process's last output when it is not 0. */
async function stop(proc: ChildProcess): Promise<number | string | null> {
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  proc.kill('SIGTERM');
  const code = await exited;
  return code === 0 ? 0 : `exit ${code}; last output:\n${output}`;
}

function databaseUrl(pgPort: number): string {
  const { password } = JSON.parse(readFileSync(path.join(dataDir, 'embedded-postgres.json'), 'utf8')) as { password: string };
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${pgPort}/dealradar`;
}

afterAll(async () => {
  if (child && child.exitCode === null) await stop(child);
});

describe('launcher on the embedded default', () => {
  it('starts, stops gracefully and keeps data across restarts', async () => {
    const [port, pgPort] = [await freePort(), await freePort()];
    child = await launch(port, pgPort);
    const health = await (await fetch(`http://127.0.0.1:${port}/api/health/`)).json();
    expect(health).toMatchObject({ status: 'ok', database: 'ok', queue: 'ok', version: '1.0.0' });

    const sql = postgres(databaseUrl(pgPort), { max: 1, onnotice: () => {} });
    await sql`INSERT INTO sources (name, display_name, base_url) VALUES ('restart-probe', 'Restart probe', 'http://127.0.0.1')`;
    await sql.end();

    expect(await stop(child)).toBe(0);
    // The embedded server is down with it.
    const down = postgres(databaseUrl(pgPort), { max: 1, connect_timeout: 2, onnotice: () => {} });
    await expect(down`SELECT 1`).rejects.toThrow();
    await down.end().catch(() => {});

    output = '';
    child = await launch(port, pgPort);
    const again = postgres(databaseUrl(pgPort), { max: 1, onnotice: () => {} });
    const rows = await again`SELECT display_name FROM sources WHERE name = 'restart-probe'`;
    await again.end();
    expect(rows).toEqual([{ display_name: 'Restart probe' }]);
    expect(await stop(child)).toBe(0);
  }, 180_000);
});
