/**
 * SQL for the record of sales-history imports (sales_imports): one row per imported file, its
 * status and how far it got. A running import holds a session advisory lock on its row's id
 * (class SALES_IMPORT_LOCK); a row saying "importing" whose lock nobody holds was cut off
 * (kill -9, a power loss) and counts as interrupted. Reading the state takes no lock and writes
 * nothing, so `npm run cli -- sales` can ask while an import runs.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx, Sql } from '../database/db.js';

/** The advisory lock class of sales imports (the row id is the lock's second key). */
export const SALES_IMPORT_LOCK = 29_001;

export type SalesImportStatus = 'importing' | 'complete' | 'interrupted';

export type SalesImportRow = {
  id: number;
  origin: string;
  file: string;
  pricesFile: string;
  trigger: 'bootstrap' | 'cli';
  /** As stored, except that "importing" without a live importer reads "interrupted". */
  status: SalesImportStatus;
  fingerprint: string;
  rowsDone: number;
  written: number;
  attempts: number;
  error: string | null;
  startedAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
};

export type SalesImportKey = { origin: string; file: string; pricesFile: string; trigger: 'bootstrap' | 'cli' };

const SELECT = sql`
  SELECT si.id, si.origin, si.file, si.prices_file AS "pricesFile", si.trigger,
         CASE WHEN si.status = 'importing' AND NOT EXISTS (
           SELECT 1 FROM pg_locks l
           WHERE l.locktype = 'advisory' AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
             AND l.classid = ${SALES_IMPORT_LOCK}::int::oid AND l.objid = si.id::oid AND l.objsubid = 2
         ) THEN 'interrupted' ELSE si.status END AS status,
         si.fingerprint, si.rows_done AS "rowsDone", si.written, si.attempts, si.error,
         si.started_at AS "startedAt", si.updated_at AS "updatedAt", si.finished_at AS "finishedAt"
  FROM sales_imports si`;

function toRow(r: Record<string, unknown>): SalesImportRow {
  const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string | Date));
  return { ...(r as SalesImportRow), startedAt: date(r.startedAt)!, updatedAt: date(r.updatedAt)!, finishedAt: date(r.finishedAt) };
}

export async function listSalesImports(db: DbOrTx): Promise<SalesImportRow[]> {
  const rows = await db.execute(sql`${SELECT} ORDER BY si.id`);
  return (rows as unknown as Record<string, unknown>[]).map(toRow);
}

export async function findSalesImport(db: DbOrTx, key: Omit<SalesImportKey, 'trigger'>): Promise<SalesImportRow | null> {
  const rows = await db.execute(sql`${SELECT} WHERE si.origin = ${key.origin} AND si.file = ${key.file} AND si.prices_file = ${key.pricesFile}`);
  const row = (rows as unknown as Record<string, unknown>[])[0];
  return row ? toRow(row) : null;
}

/** The row of this file, created (as interrupted, nothing done) when it is new. */
export async function ensureSalesImport(db: DbOrTx, key: SalesImportKey): Promise<SalesImportRow> {
  await db.execute(sql`
    INSERT INTO sales_imports (origin, file, prices_file, trigger, status)
    VALUES (${key.origin}, ${key.file}, ${key.pricesFile}, ${key.trigger}, 'interrupted')
    ON CONFLICT (origin, file, prices_file) DO NOTHING`);
  return (await findSalesImport(db, key))!;
}

/** Marks the import running from `rowsDone` (0: from the start), one more attempt. */
export async function markSalesImportStarted(db: DbOrTx, id: number, opts: { rowsDone: number; fingerprint: string }): Promise<void> {
  const fresh = opts.rowsDone === 0;
  await db.execute(sql`
    UPDATE sales_imports SET status = 'importing', fingerprint = ${opts.fingerprint}, rows_done = ${opts.rowsDone},
      written = CASE WHEN ${fresh} THEN 0 ELSE written END,
      attempts = CASE WHEN ${fresh} THEN 1 ELSE attempts + 1 END,
      started_at = CASE WHEN ${fresh} THEN now() ELSE started_at END,
      error = NULL, finished_at = NULL, updated_at = now()
    WHERE id = ${id}`);
}

/** Progress, in the transaction that wrote the batch: rows read up to `rowsDone` are in. */
export async function recordSalesImportProgress(db: DbOrTx, id: number, rowsDone: number, written: number): Promise<void> {
  await db.execute(sql`UPDATE sales_imports SET rows_done = ${rowsDone}, written = written + ${written}, updated_at = now() WHERE id = ${id}`);
}

export async function markSalesImportFinished(db: DbOrTx, id: number, status: 'complete' | 'interrupted', error?: string): Promise<void> {
  await db.execute(sql`
    UPDATE sales_imports SET status = ${status}, error = ${error ?? null}, updated_at = now(),
      finished_at = CASE WHEN ${status} = 'complete' THEN now() ELSE NULL END
    WHERE id = ${id}`);
}

/**
 * Takes the import's lock on a dedicated connection (held until `release`): false when another
 * process is importing this file right now.
 */
export async function lockSalesImport(sql: Sql, id: number): Promise<{ release(): Promise<void> } | null> {
  const conn = await sql.reserve();
  try {
    const [row] = await conn<{ ok: boolean }[]>`SELECT pg_try_advisory_lock(${SALES_IMPORT_LOCK}, ${id}) AS ok`;
    if (!row?.ok) {
      conn.release();
      return null;
    }
  } catch (err) {
    conn.release();
    throw err;
  }
  return {
    async release() {
      try {
        await conn`SELECT pg_advisory_unlock(${SALES_IMPORT_LOCK}, ${id})`;
      } finally {
        conn.release();
      }
    },
  };
}

/** Imports not complete (running, stopped, or cut off): what a training waits for. */
export async function listUnfinishedSalesImports(db: DbOrTx): Promise<SalesImportRow[]> {
  return (await listSalesImports(db)).filter((r) => r.status !== 'complete');
}
