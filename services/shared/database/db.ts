/** postgres.js + drizzle. One client per process; migrations applied under an advisory lock. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle, type PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { openSql } from './connection-url.js';
import * as schema from '../../../db/schema/index.js';

export type Schema = typeof schema;
export type Db = PostgresJsDatabase<Schema>;
/** A database handle or an open transaction: repositories accept either. */
export type DbOrTx = Db | Tx;
/** An open transaction. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type Sql = postgres.Sql;

export type Database = {
  db: Db;
  sql: Sql;
  url: string;
  close(): Promise<void>;
};

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../db/migrations');

export function connectDatabase(url: string, opts: { max?: number; applicationName?: string } = {}): Database {
  const sql = openSql(url, {
    max: opts.max ?? 10,
    idle_timeout: 30,
    connect_timeout: 15,
    onnotice: () => {},
    connection: { application_name: opts.applicationName ?? 'deal-radar' },
    types: {
      // bigint counts (count(*)) as JS numbers: they stay far below 2^53 here.
      bigint: { to: 20, from: [20], serialize: (v: number) => String(v), parse: (v: string) => Number(v) },
    },
  });
  const db = drizzle(sql, { schema, casing: 'snake_case' });
  return {
    db,
    sql,
    url,
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
}

const MIGRATION_LOCK = 727_001; // any constant: serialises concurrent starters (compose replicas)

/** Applies pending migrations (idempotent). Safe to call from several processes at once. */
export async function runMigrations(url: string): Promise<void> {
  const sql = openSql(url, { max: 1, onnotice: () => {} });
  try {
    await sql`SELECT pg_advisory_lock(${MIGRATION_LOCK})`;
    await migrate(drizzle(sql), { migrationsFolder: MIGRATIONS_DIR });
    await sql`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
