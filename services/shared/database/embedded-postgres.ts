/** Starts the embedded PostgreSQL child (see embedded-postgres-server.ts) and hands back its URL. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SERVER_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'embedded-postgres-server.ts');

export type EmbeddedPostgres = {
  url: string;
  port: number;
  /** Stops PostgreSQL cleanly and waits for the child to exit. */
  stop(): Promise<void>;
  child: ChildProcess;
};

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * As root, embedded-postgres runs the server as the OS user `postgres`, so every folder above the
 * data folder must be enterable by others. Adds only the missing o+rx bits, nothing else.
 */
function ensureTraversable(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o755 });
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return;
  let current = path.resolve(dir);
  for (;;) {
    const mode = statSync(current).mode;
    if ((mode & 0o005) !== 0o005) chmodSync(current, (mode & 0o7777) | 0o005);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
}

/** The password is generated once per data folder and kept beside it. */
function passwordFor(stateDir: string): string {
  const file = path.join(stateDir, 'embedded-postgres.json');
  if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { password: string }).password;
  const password = randomBytes(18).toString('base64url');
  writeFileSync(file, JSON.stringify({ password }), { mode: 0o600 });
  return password;
}

export async function startEmbeddedPostgres(opts: {
  dataDir: string;
  port?: number;
  timeoutMs?: number;
  onLog?: (line: string) => void;
}): Promise<EmbeddedPostgres> {
  const stateDir = path.resolve(opts.dataDir);
  ensureTraversable(stateDir);
  const pgDir = path.join(stateDir, 'postgres');
  const password = passwordFor(stateDir);
  const port = opts.port && opts.port > 0 ? opts.port : await freePort();

  const child = spawn(process.execPath, ['--import', 'tsx', SERVER_SCRIPT, pgDir, String(port), password], {
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own process group: a terminal's Ctrl-C (sent to the whole group) must not stop the
    // database under the services still draining; the parent stops it last. Should the parent
    // die without doing so, its closed stdin pipe stops the server (embedded-postgres-server.ts).
    detached: true,
  });
  const stderr: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    stderr.push(text);
    if (stderr.length > 50) stderr.shift();
    opts.onLog?.(text.trimEnd());
  });

  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`embedded PostgreSQL did not start within ${opts.timeoutMs ?? 60_000} ms\n${stderr.join('')}`));
    }, opts.timeoutMs ?? 60_000);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (line.includes('"ready":true')) {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`embedded PostgreSQL exited with code ${code} before it was ready\n${stderr.join('')}`));
    });
  });

  return {
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/dealradar`,
    port,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The URL of an embedded PostgreSQL already running on this data folder (e.g. the product's,
 * when an operator command runs beside it), or undefined. Reads the port from postmaster.pid.
 */
export function findRunningEmbeddedPostgres(dataDir: string): string | undefined {
  const stateDir = path.resolve(dataDir);
  const pidFile = path.join(stateDir, 'postgres', 'postmaster.pid');
  const passwordFile = path.join(stateDir, 'embedded-postgres.json');
  if (!existsSync(pidFile) || !existsSync(passwordFile)) return undefined;
  const [pidLine, , , portLine] = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(pidLine);
  const port = Number(portLine);
  if (!pid || !port) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  const { password } = JSON.parse(readFileSync(passwordFile, 'utf8')) as { password: string };
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/dealradar`;
}
