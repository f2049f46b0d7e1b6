/**
 * PostgreSQL connection URLs, including the libpq form for a Unix socket that the embedded
 * database uses (`postgres://user:pw@localhost:5432/db?host=/path/to/socket-dir`): no TCP port,
 * so nothing else on the machine can take it or race for it. node-postgres (the queue backend)
 * reads that form as is; postgres.js needs the socket folder as its `host` option, so every
 * postgres.js client is opened through `openSql`.
 */
import postgres from 'postgres';

/** The socket folder a URL names in its `host` query parameter, or undefined for a TCP URL. */
export function socketDirOf(url: string): string | undefined {
  try {
    const host = new URL(url).searchParams.get('host');
    return host && host.startsWith('/') ? host : undefined;
  } catch {
    return undefined;
  }
}

/** The same server and credentials, another database. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** The database a URL names. */
export function databaseOf(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
}

/** The URL for a Unix-socket server in `socketDir` (libpq's form; `port` names the socket file). */
export function socketUrl(opts: { user: string; password: string; socketDir: string; port: number; database: string }): string {
  return `postgres://${encodeURIComponent(opts.user)}:${encodeURIComponent(opts.password)}@localhost:${opts.port}/${encodeURIComponent(opts.database)}?host=${encodeURIComponent(opts.socketDir)}`;
}

/** A postgres.js client for a URL of either form. */
export function openSql<T extends Record<string, postgres.PostgresType> = {}>(url: string, options?: postgres.Options<T>) {
  const socketDir = socketDirOf(url);
  if (!socketDir) return postgres(url, options);
  const u = new URL(url);
  u.searchParams.delete('host');
  return postgres(u.toString(), { ...options, host: socketDir } as postgres.Options<T>);
}
