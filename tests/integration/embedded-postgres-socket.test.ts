/**
 * The embedded PostgreSQL takes no TCP port: it listens on a Unix socket in its data folder, so
 * it can never take the port the product (or a test) is about to be told to serve on — the race
 * that once failed a fresh-clone CI run (the database came up on the very port handed to the
 * product). Operator commands find it by its postmaster.pid.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSql, socketDirOf, withDatabase } from '../../services/shared/database/connection-url.js';
import { findRunningEmbeddedPostgres, socketDirFor, startEmbeddedPostgres, type EmbeddedPostgres } from '../../services/shared/database/embedded-postgres.js';

let dir: string;
let pg: EmbeddedPostgres;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'deal-radar-socket-'));
  chmodSync(dir, 0o755); // the server runs as the OS user postgres under root
  pg = await startEmbeddedPostgres({ dataDir: dir });
}, 120_000);

afterAll(async () => {
  await pg?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('embedded PostgreSQL', () => {
  it('listens on a Unix socket in its data folder and on no TCP address', () => {
    const lines = readFileSync(path.join(dir, 'postgres', 'postmaster.pid'), 'utf8').split('\n');
    // postmaster.pid: pid, data dir, start time, port, socket directory, listen address, …
    expect(lines[4]).toBe(path.join(dir, 'postgres-socket'));
    expect(lines[5]?.trim()).toBe('');
    expect(socketDirOf(pg.url)).toBe(path.join(dir, 'postgres-socket'));
    expect(pg.tcp).toBe(false);
  });

  it('answers through its URL, and an operator command beside it finds the same server', async () => {
    const sql = openSql(pg.url, { max: 1, onnotice: () => {} });
    const [row] = await sql<Array<{ db: string; addr: string | null }>>`SELECT current_database() AS db, inet_server_addr()::text AS addr`;
    await sql.end();
    expect(row).toEqual({ db: 'dealradar', addr: null }); // null: not a TCP connection
    expect(findRunningEmbeddedPostgres(dir)).toBe(pg.url);
    const admin = openSql(withDatabase(pg.url, 'postgres'), { max: 1, onnotice: () => {} });
    const [{ n } = { n: 0 }] = await admin<Array<{ n: number }>>`SELECT count(*)::int AS n FROM pg_database WHERE datname = 'dealradar'`;
    await admin.end();
    expect(n).toBe(1);
  });

  it('puts the socket in a short folder of its own when the data folder is too deep for a socket path', () => {
    const deep = path.join('/tmp', 'x'.repeat(120));
    const chosen = socketDirFor(deep);
    expect(chosen.startsWith(deep)).toBe(false);
    expect(`${chosen}/.s.PGSQL.5432`.length).toBeLessThanOrEqual(100);
    expect(socketDirFor(deep)).toBe(chosen); // the same folder at every start
    expect(socketDirFor('/tmp/short')).toBe('/tmp/short/postgres-socket');
    expect(socketDirFor('/tmp/with space')).not.toBe('/tmp/with space/postgres-socket');
  });
});
