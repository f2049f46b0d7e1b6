/**
 * The product as a user starts it: the launcher on the embedded default, under `npm start` and
 * `npm run demo`, each in its own process group as a terminal runs it. It answers health, stops
 * cleanly on Ctrl-C (SIGINT to the whole group) and on SIGTERM to npm (exit 0, no error lines,
 * no process left behind, the embedded PostgreSQL down), and keeps its data across restarts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { openSql, socketUrl } from '../../services/shared/database/connection-url.js';
import { afterAll, describe, expect, it } from 'vitest';
import { startDemoSite, type DemoSite } from '../../scripts/demo-site/demo-server.js';
import { socketDirFor } from '../../services/shared/database/embedded-postgres.js';
import { reservePort } from '../support/ports.js';

type Run = { proc: ChildProcess; output: () => string; dataDir: string; port: number; signalledAt?: number };
const running = new Set<Run>();
const dataDirs: string[] = [];

function newDataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'deal-radar-launch-'));
  chmodSync(dir, 0o755); // the embedded server runs as the OS user postgres under root
  dataDirs.push(dir);
  return dir;
}

/**
 * Starts `command` in a new process group (as a shell does for a foreground job) and waits for
 * /api/health/. Everything it prints is kept, so a failed stop shows why.
 */
async function launch(command: string[], opts: { dataDir?: string; port?: number; env?: Record<string, string | undefined> } = {}): Promise<Run> {
  const dataDir = opts.dataDir ?? newDataDir();
  const port = opts.port ?? (await reservePort());
  const proc = spawn(command[0]!, command.slice(1), {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(port),
      DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: '0',
      LOG_LEVEL: 'info',
      DATABASE_URL: '',
      REDIS_URL: '',
      VALUATION_BOOTSTRAP: 'false',
      // Nothing beyond 127.0.0.1: no source unless a test enables its local one.
      CRAWL_ALLOW_ONLY_LOOPBACK: 'true',
      CRAWL_SOURCES: '',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output += chunk.toString();
  };
  proc.stderr?.on('data', keep);
  proc.stdout?.on('data', keep);
  const run: Run = { proc, output: () => output, dataDir, port };
  running.add(run);
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`${command.join(' ')} exited with ${proc.exitCode}:\n${output.slice(-4000)}`);
    const ok = await fetch(`http://127.0.0.1:${port}/api/health/`).then((r) => r.ok, () => false);
    if (ok) return run;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${command.join(' ')} did not answer /api/health/ within 90 s:\n${output.slice(-4000)}`);
}

/** Sends the signal (to the whole group or to npm's process alone) and waits for the exit code. */
async function stop(run: Run, signal: NodeJS.Signals, to: 'group' | 'process'): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => run.proc.once('exit', (code) => resolve(code)));
  run.signalledAt = run.output().length;
  if (to === 'group') process.kill(-run.proc.pid!, signal);
  else run.proc.kill(signal);
  const code = await exited;
  running.delete(run);
  return code;
}

/** Processes still running that were started for this data folder (the embedded server's command line names it). */
function processesOn(dataDir: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(dataDir)) found.push(`${pid} ${cmdline}`);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Processes still in the group (npm, node, esbuild…): none may outlive the product. */
function processesInGroup(pgid: number): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') found.push(pid);
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Lines a user would read as trouble: pino warn and above, stack traces, Node's crash banner. */
function errorLines(output: string): string[] {
  return output.split('\n').filter((line) => {
    if (/"level":(40|50|60)/.test(line)) return true;
    if (/Unhandled|Error:|ERROR|FATAL|terminating connection/.test(line)) return true;
    return false;
  });
}

function databaseUrl(run: Run): string {
  const { password } = JSON.parse(readFileSync(path.join(run.dataDir, 'embedded-postgres.json'), 'utf8')) as { password: string };
  // The embedded server listens on a Unix socket only (no TCP port to race for): reach it there.
  return socketUrl({ user: 'postgres', password, socketDir: socketDirFor(run.dataDir), port: 5432, database: 'dealradar' });
}

async function expectDatabaseDown(run: Run): Promise<void> {
  const down = openSql(databaseUrl(run), { max: 1, connect_timeout: 2, onnotice: () => {} });
  await expect(down`SELECT 1`).rejects.toThrow();
  await down.end().catch(() => {});
}

async function expectStoppedCleanly(run: Run, code: number | null): Promise<void> {
  const report = `exit ${code}; output:\n${run.output().slice(-6000)}`;
  expect(code, report).toBe(0);
  // What the stop printed (warnings before it belong to the run, e.g. score jobs before a model).
  expect(errorLines(run.output().slice(run.signalledAt)), report).toEqual([]);
  expect(processesOn(run.dataDir)).toEqual([]);
  expect(processesInGroup(run.proc.pid!)).toEqual([]);
  await expectDatabaseDown(run);
}

let site: DemoSite | undefined;

afterAll(async () => {
  await site?.close();
  for (const run of running) {
    try {
      process.kill(-run.proc.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  // Left in place when a run is still up (it was killed above; its server may take a moment).
  if (running.size === 0) for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

const npmSilent = ['npm', '--silent', '--loglevel=error'];

describe('launcher on the embedded default', () => {
  it('`npm start` prints its banner and crawls its source at first start; Ctrl-C drains, then stops the embedded PostgreSQL: exit 0, no error lines, nothing left', async () => {
    site = await startDemoSite({ port: 0, sharedDir: path.resolve('../shared'), lots: 30, seed: 7 });
    const run = await launch([...npmSilent, 'start'], { env: { CRAWL_SOURCES: 'demo', DEMO_SITE_URL: site.url } });
    const health = await (await fetch(`http://127.0.0.1:${run.port}/api/health/`)).json();
    expect(health).toMatchObject({ status: 'ok', database: 'ok', queue: 'ok', version: '1.0.0' });

    for (let i = 0; i < 100 && !run.output().includes('Stop with Ctrl-C'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(run.output()).toContain(`Deal Radar is running: http://localhost:${run.port}`);
    expect(run.output()).toContain('Source demo: first crawl now, then on schedule "0 * * * *"');
    expect(run.output()).toContain('npm run demo');

    // The first crawl runs now, not at the top of the hour: listings arrive.
    let total = 0;
    for (let i = 0; i < 120 && total === 0; i++) {
      await new Promise((r) => setTimeout(r, 500));
      const page = await fetch(`http://127.0.0.1:${run.port}/api/auctions/list/`).then(
        (r) => r.json() as Promise<{ data?: { pagination?: { total_count?: number } } }>,
        () => ({}) as { data?: { pagination?: { total_count?: number } } },
      );
      total = page.data?.pagination?.total_count ?? 0;
    }
    expect(total, run.output().slice(-3000)).toBeGreaterThan(0);

    const code = await stop(run, 'SIGINT', 'group');
    await expectStoppedCleanly(run, code);
    expect(run.output()).toContain('"msg":"stopped"');
  }, 180_000);

  it('SIGTERM to `npm start` (npm alone) stops everything and keeps data across restarts', async () => {
    const first = await launch([...npmSilent, 'start']);
    const sql = openSql(databaseUrl(first), { max: 1, onnotice: () => {} });
    await sql`INSERT INTO sources (name, display_name, base_url) VALUES ('restart-probe', 'Restart probe', 'http://127.0.0.1')`;
    await sql.end();
    await expectStoppedCleanly(first, await stop(first, 'SIGTERM', 'process'));

    // The launcher directly (no npm), on the same data folder and ports.
    const again = await launch([process.execPath, '--import', 'tsx', 'services/main.ts'], { dataDir: first.dataDir, port: first.port });
    const check = openSql(databaseUrl(again), { max: 1, onnotice: () => {} });
    const rows = await check`SELECT display_name FROM sources WHERE name = 'restart-probe'`;
    await check.end();
    expect(rows).toEqual([{ display_name: 'Restart probe' }]);
    await expectStoppedCleanly(again, await stop(again, 'SIGTERM', 'process'));
  }, 240_000);

  it('Ctrl-C under `npm run demo` stops the product and the demo site cleanly; the demo prints a login that works', async () => {
    const run = await launch([...npmSilent, 'run', 'demo'], { env: { LOG_LEVEL: undefined, DEMO_SITE_LOTS: '40' } });
    for (let i = 0; i < 100 && !run.output().includes('Sign in with'); i++) await new Promise((r) => setTimeout(r, 100));
    const login = /Sign in with:\s+(\S+)\s+\/\s+(\S+)/.exec(run.output());
    expect(login, run.output()).not.toBeNull();
    const response = await fetch(`http://127.0.0.1:${run.port}/api/auth/login/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: login![1], password: login![2] }),
    });
    expect(response.status).toBe(200);
    const site = /Demo auction site:\s+(\S+)\/auctions/.exec(run.output())![1]!;
    const code = await stop(run, 'SIGINT', 'group');
    await expectStoppedCleanly(run, code);
    // The demo logs nothing below warn by default: no info lines at all.
    expect(run.output()).not.toContain('"level":30');
    await expect(fetch(`${site}/auctions`)).rejects.toThrow();
  }, 180_000);

  it('SIGTERM to `npm run demo` (npm alone, as a process manager sends it) stops the product and the demo site cleanly', async () => {
    const run = await launch([...npmSilent, 'run', 'demo'], { env: { DEMO_SITE_LOTS: '40' } });
    for (let i = 0; i < 100 && !run.output().includes('Stop with Ctrl-C'); i++) await new Promise((r) => setTimeout(r, 100));
    const site = /Demo auction site:\s+(\S+)\/auctions/.exec(run.output());
    expect(site, run.output()).not.toBeNull();
    // the banner's walkthrough names a lot of the demo site that the control endpoint can publish
    // (with 40 lots no excavator is alone in its state: the alert then names no location)
    expect(run.output()).toMatch(/Try an alert: +Alerts → Add Alert: Excavators(, Location [A-Z][a-z ]+)?, e-mail, instant/);
    expect(run.output()).toMatch(/_control\/publish .*"lot_id":"DR-\d+","price":\d+,"hours_left":12/);
    // published as printed, the bargain states its end on the real clock: 12 demo hours at ×60 are
    // 12 real minutes, so the scorer sees it minutes from its close (an Excellent Deal), not a day
    expect(run.output()).toContain('closing in 12 demo hours: 12 minutes from now');
    const body = /-d '(\{"lot_id":"DR-\d+","price":\d+,"hours_left":12\})'/.exec(run.output())![1]!;
    const published = await fetch(`${site![1]}/_control/publish`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(published.status).toBe(201);
    const left = Date.parse(((await published.json()) as { ends_at: string }).ends_at) - Date.now();
    expect(left).toBeGreaterThan(11 * 60_000);
    expect(left).toBeLessThanOrEqual(12 * 60_000 + 1000);
    await expectStoppedCleanly(run, await stop(run, 'SIGTERM', 'process'));
    await expect(fetch(`${site![1]}/auctions`)).rejects.toThrow();
  }, 180_000);
});
