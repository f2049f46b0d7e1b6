/**
 * The deployment as the Docker image runs it, without Docker: each service's entry point runs as
 * an unprivileged user (nobody) in a read-only copy of the tree, against a real PostgreSQL and
 * redis-server (DATABASE_URL and REDIS_URL set, no local data folder), and reaches healthy: the
 * API on /api/health/, each worker on its own /health endpoint. Then SIGTERM stops each with 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reservePort } from '../support/ports.js';
import { createTestDatabase } from '../support/database.js';
import { startRedisServer } from '../support/redis-server.js';

const repo = path.resolve(import.meta.dirname, '../..');
const NOBODY = 65534;
const ENTRY_POINTS = ['api', 'crawler', 'scorer', 'matcher', 'notifier', 'scheduler'] as const;

type Proc = { name: string; child: ChildProcess; output: () => string; healthUrl: string };

let tree: string;
/** The API's snapshot volume (docker-compose.yml's index-snapshot), owned by the service's user. */
let snapshotDir: string;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let redis: Awaited<ReturnType<typeof startRedisServer>>;
const procs: Proc[] = [];

/** What the image holds (the Dockerfile's COPY lines), owned by root and without any write bit. */
function readOnlyCopy(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'deal-radar-image-'));
  for (const entry of ['package.json', 'tsconfig.json', 'services', 'db', 'scripts', 'docs']) cpSync(path.join(repo, entry), path.join(root, entry), { recursive: true });
  // The web app is optional to the API (it serves it when built).
  if (existsSync(path.join(repo, 'web/dist'))) cpSync(path.join(repo, 'web/dist'), path.join(root, 'web/dist'), { recursive: true });
  symlinkSync(path.join(repo, 'node_modules'), path.join(root, 'node_modules'));
  const strip = (p: string) => {
    const stat = statSync(p);
    chmodSync(p, stat.mode & 0o555);
    if (stat.isDirectory()) for (const name of readdirSync(p)) if (name !== 'node_modules') strip(path.join(p, name));
  };
  strip(root);
  chmodSync(root, 0o555);
  return root;
}

async function start(name: (typeof ENTRY_POINTS)[number]): Promise<Proc> {
  const port = await reservePort();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: '/nonexistent',
    NODE_ENV: 'production',
    DATABASE_URL: database.url,
    REDIS_URL: redis.url,
    JWT_SECRET: 'a-deployment-secret-of-at-least-32-characters',
    SHARED_DIR: path.resolve(repo, '../shared'),
    LOG_LEVEL: 'warn',
    // No source is reached from a test; the first-run crawl finds nothing to crawl.
    CRAWL_SOURCES: '',
    CRAWL_ALLOW_ONLY_LOOPBACK: 'true',
    VALUATION_BOOTSTRAP: 'false',
    ...(name === 'api' ? { PORT: String(port), HOST: '127.0.0.1', LISTINGS_INDEX_SNAPSHOT: path.join(snapshotDir, 'listing-index.snapshot') } : { HEALTH_PORT: String(port) }),
  };
  const child = spawn(process.execPath, ['--import', 'tsx', `services/${name}/main.ts`], { cwd: tree, env, uid: NOBODY, gid: NOBODY, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const proc = { name, child, output: () => output, healthUrl: name === 'api' ? `http://127.0.0.1:${port}/api/health/` : `http://127.0.0.1:${port}/health` };
  procs.push(proc);
  return proc;
}

async function healthy(proc: Proc, timeoutMs = 90_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited with ${proc.child.exitCode}:\n${proc.output().slice(-3000)}`);
    const body = await fetch(proc.healthUrl).then((r) => (r.ok ? (r.json() as Promise<Record<string, unknown>>) : undefined), () => undefined);
    if (body) return body;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`${proc.name} was not healthy within ${timeoutMs} ms:\n${proc.output().slice(-3000)}`);
}

beforeAll(async () => {
  tree = readOnlyCopy();
  snapshotDir = mkdtempSync(path.join(os.tmpdir(), 'deal-radar-volume-'));
  chownSync(snapshotDir, NOBODY, NOBODY);
  [database, redis] = await Promise.all([createTestDatabase(), startRedisServer()]);
}, 120_000);

afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await redis?.stop();
  await database?.drop();
  // The tests run as root, which removes the read-only copy regardless of its modes.
  if (tree) rmSync(tree, { recursive: true, force: true });
  if (snapshotDir) rmSync(snapshotDir, { recursive: true, force: true });
});

describe('each entry point as an unprivileged user in a read-only tree', () => {
  it('the tree is read-only to the user the services run as', () => {
    expect(statSync(tree).mode & 0o222).toBe(0);
    expect(statSync(path.join(tree, 'services')).mode & 0o222).toBe(0);
    expect(statSync(tree).uid).not.toBe(NOBODY);
  });

  it('reaches healthy with DATABASE_URL and REDIS_URL, creates no data folder, and stops with 0 on SIGTERM', async () => {
    // The API first: it applies the migrations the workers then find done.
    const api = await start('api');
    expect(await healthy(api)).toMatchObject({ status: 'ok', database: 'ok', queue: 'ok', queue_backend: 'redis' });
    // The buyer's help page every deal page links to is in the image (the Dockerfile copies docs/).
    const help = await fetch(api.healthUrl.replace('/api/health/', '/docs/deal-score.md'));
    expect(help.status).toBe(200);
    const workers = await Promise.all(ENTRY_POINTS.filter((n) => n !== 'api').map((n) => start(n)));
    for (const worker of workers) {
      expect(await healthy(worker), worker.name).toMatchObject({ status: 'ok', database: 'ok', queue: 'ok', services: [worker.name] });
      // Its metrics answer on loopback.
      const metrics = await fetch(worker.healthUrl.replace('/health', '/metrics'));
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('dealradar_queue_jobs{queue="crawl",state="waiting"}');
    }
    expect(existsSync(path.join(tree, '.data'))).toBe(false);

    for (const proc of procs) {
      const exited = new Promise<number | null>((resolve) => proc.child.once('exit', (code) => resolve(code)));
      proc.child.kill('SIGTERM');
      expect(await exited, `${proc.name}:\n${proc.output().slice(-3000)}`).toBe(0);
      expect(proc.output(), proc.name).not.toMatch(/EACCES|EROFS|"level":(50|60)|snapshot not written/);
    }
    // The API kept its listing index's snapshot on its volume, for a fast next start.
    expect(existsSync(path.join(snapshotDir, 'listing-index.snapshot'))).toBe(true);
  }, 240_000);
});
