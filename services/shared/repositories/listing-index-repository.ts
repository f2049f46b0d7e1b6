/**
 * SQL behind the list route's in-memory index (services/listings/listing-index*.ts): loading the
 * open listings under one snapshot, reading the change log since a snapshot (migration 0014),
 * reading changed listings, pruning the log, and turning search words into lexemes with
 * PostgreSQL's own parser (so a query word is stemmed exactly as the indexed text was).
 */
import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { DbOrTx, Sql } from '../database/db.js';
import { executePrepared } from '../database/prepared.js';
import { intArray, textArray } from '../database/sql-arrays.js';
import { parseTsvector } from '../rules/search-vector.js';
import { weightClass, type WeightClass } from '../rules/freight-rates.js';

/** A listing as the index needs it (from `listings`; see the sync's load query). */
export type IndexedListing = {
  id: number;
  dealScore: number | null;
  priceUsd: number | null;
  categoryId: number;
  /** Two-letter code as stored. */
  state: string | null;
  /** Lower-cased, as the location filter compares it. */
  city: string | null;
  /** Epoch milliseconds; null when the listing has no end time. */
  endAt: number | null;
  /** Where the lot is (services/shared/geo/); null when it could not be placed. */
  lat: number | null;
  lon: number | null;
  /**
   * What the price delivered needs (issue 30), all optional (mid-size, none, none): the machine's
   * weight class (freight.ts weightClass, from its type and title, computed when the row is read),
   * the buyer's premium the source states (percent) and the fair value (USD), for "worth the trip".
   */
  weightClass?: WeightClass;
  buyersPremiumPct?: number | null;
  fairValue?: number | null;
  /** The search vector's lexemes, each with its best weight (3 = A … 0 = D). */
  lexemes: readonly string[];
  weights: readonly number[];
};

/** A PostgreSQL snapshot (pg_current_snapshot()): what a reader saw. */
export type Snapshot = { xmin: string; xmax: string; inProgress: string[] };

export function parseSnapshot(text: string): Snapshot {
  const [xmin, xmax, xip = ''] = text.split(':');
  if (!xmin || !xmax || !/^\d+$/.test(xmin) || !/^\d+$/.test(xmax)) throw new Error(`not a snapshot: ${text}`);
  return { xmin, xmax, inProgress: xip ? xip.split(',') : [] };
}

export function formatSnapshot(snapshot: Snapshot): string {
  return `${snapshot.xmin}:${snapshot.xmax}:${snapshot.inProgress.join(',')}`;
}

type IndexRow = {
  id: number;
  status: string;
  deal_score: number | null;
  price_usd: number | null;
  category_id: number;
  state: string | null;
  city: string | null;
  end_at: number | null;
  lat: number | null;
  lon: number | null;
  title: string;
  buyers_premium_pct: number | null;
  fair_value: number | null;
  search_vector: string | null;
};

const dialect = new PgDialect();

/** Listed: open at the source and not past its end time. */
const IS_LISTED = sql`l.status = 'open' AND (l.auction_end_at IS NULL OR l.auction_end_at > now())`;

const INDEX_COLUMNS = sql`
  l.id, l.status, l.deal_score, l.price_usd::float8 AS price_usd, l.category_id, l.state, lower(l.city) AS city,
  (extract(epoch FROM l.auction_end_at) * 1000)::float8 AS end_at, l.lat, l.lon,
  l.title, l.buyers_premium_pct::float8 AS buyers_premium_pct, l.fair_value::float8 AS fair_value, l.search_vector::text AS search_vector`;

function toIndexed(row: IndexRow): IndexedListing {
  const { lexemes, weights } = parseTsvector(row.search_vector ?? '');
  return {
    id: row.id,
    dealScore: row.deal_score,
    priceUsd: row.price_usd,
    categoryId: row.category_id,
    state: row.state,
    city: row.city,
    endAt: row.end_at,
    lat: row.lat,
    lon: row.lon,
    // The haul's weight class from type and title words, once per row read (the index keeps the class, not the title).
    weightClass: weightClass(row.category_id, row.title),
    buyersPremiumPct: row.buyers_premium_pct,
    fairValue: row.fair_value,
    lexemes,
    weights,
  };
}

/**
 * Every listing that is listed now, in batches, and the snapshot they were read under (one
 * repeatable-read transaction: the changes to follow are exactly those it could not see).
 */
export async function loadListedListings(client: Sql, onBatch: (listings: IndexedListing[]) => void, batchSize = 5000): Promise<Snapshot> {
  return client.begin('isolation level repeatable read read only', async (tx) => {
    const [{ snapshot } = { snapshot: '' }] = await tx<Array<{ snapshot: string }>>`SELECT pg_current_snapshot()::text AS snapshot`;
    // A cursor needs postgres.js itself: the same columns as the sync's reads, as plain SQL text.
    const load = dialect.sqlToQuery(sql`
      SELECT ${INDEX_COLUMNS} FROM listings l WHERE ${IS_LISTED}`);
    const query = tx.unsafe<IndexRow[]>(load.sql, load.params as never[]);
    await query.cursor(batchSize, (rows) => {
      onBatch(rows.map(toIndexed));
    });
    return parseSnapshot(snapshot);
  }) as Promise<Snapshot>;
}

/** The sync's query (exported so the benchmark can EXPLAIN exactly what runs). */
export function changesSinceQuery(since: Snapshot, limit: number): SQL {
  return sql`
    SELECT pg_current_snapshot()::text AS snapshot, array(
      SELECT DISTINCT c.listing_id FROM listing_changes c
      WHERE c.xid >= ${since.xmax}::xid8 OR c.xid = ANY(${textArray(since.inProgress, 'xid8')})
      LIMIT ${limit + 1}
    ) AS ids`;
}

export type ChangesSince = {
  snapshot: Snapshot;
  /** Ids of listings changed since the given snapshot; `null` means reload everything. */
  ids: number[] | null;
};

/**
 * The listings changed by transactions the previous snapshot could not see. More than `limit`
 * changes (a rescore of everything, say), or a TRUNCATE, answer `ids: null`: reloading is cheaper.
 */
export async function listingChangesSince(db: DbOrTx, since: Snapshot, limit: number): Promise<ChangesSince> {
  const [row] = await executePrepared<{ snapshot: string; ids: Array<number | null> }>(db, changesSinceQuery(since, limit));
  if (!row) throw new Error('no snapshot');
  const ids = row.ids.length > limit || row.ids.some((id) => !Number.isInteger(id)) ? null : (row.ids as number[]);
  return { snapshot: parseSnapshot(row.snapshot), ids };
}

/** The current state of some listings: listed ones to index; the rest (closed, ended, deleted) are absent. */
export async function findListedForIndex(db: DbOrTx, ids: number[]): Promise<IndexedListing[]> {
  if (ids.length === 0) return [];
  const rows = await executePrepared<IndexRow>(db, sql`
    SELECT ${INDEX_COLUMNS} FROM listings l
    WHERE l.id = ANY(${intArray(ids)}) AND ${IS_LISTED}
  `);
  return rows.map(toIndexed);
}

/** Drops change-log rows every reader has long read (readers reload if they fell further behind). */
/**
 * Deletes change-log rows older than `olderThanSeconds` whose transaction ended before `endedBefore`
 * (an `xmin` the caller observed a while ago). The age alone is not enough: a row's time is its
 * transaction's *start*, so a transaction open for longer than the retention would have its rows
 * pruned the moment it commits, before readers had synced them.
 */
export async function pruneListingChanges(db: DbOrTx, olderThanSeconds: number, endedBefore: string): Promise<number> {
  const rows = await executePrepared<{ n: number }>(db, sql`
    WITH gone AS (
      DELETE FROM listing_changes
      WHERE changed_at < now() - make_interval(secs => ${olderThanSeconds}) AND xid < ${endedBefore}::xid8
      RETURNING 1)
    SELECT count(*)::int AS n FROM gone
  `);
  return rows[0]?.n ?? 0;
}

/**
 * Each alternative spelling of a search word as the lexemes the indexed text would hold: looked up
 * in both configurations the search vector uses ('simple' for make/model, 'english' for title and
 * description, which stems "excavators" to "excav"); `prefix` words (model codes such as 320) also
 * match every lexeme starting with them. One round trip for all words.
 */
export async function analyseSearchWords(
  db: DbOrTx,
  groups: Array<{ alternatives: string[]; prefix: boolean }>,
): Promise<Array<{ exact: string[]; prefixes: string[] }>> {
  if (groups.length === 0) return [];
  const texts = groups.map((g) => {
    for (const word of g.alternatives) if (!/^[a-z0-9]+$/.test(word)) throw new Error(`unsafe search word: ${word}`);
    return g.alternatives.map((w, i) => (i === 0 && g.prefix ? `${w}:*` : w)).join(' | ');
  });
  const rows = await executePrepared<{ ord: number; query: string }>(db, sql`
    SELECT t.ord::int AS ord, (to_tsquery('simple'::regconfig, t.text) || to_tsquery('english'::regconfig, t.text))::text AS query
    FROM unnest(${textArray(texts)}) WITH ORDINALITY AS t(text, ord)
  `);
  const result = groups.map(() => ({ exact: [] as string[], prefixes: [] as string[] }));
  for (const row of rows) {
    const group = result[row.ord - 1]!;
    for (const match of row.query.matchAll(/'((?:[^']|'')*)'(:\*)?/g)) {
      const lexeme = match[1]!.replace(/''/g, "'");
      (match[2] ? group.prefixes : group.exact).push(lexeme);
    }
  }
  return result.map((g) => ({ exact: [...new Set(g.exact)], prefixes: [...new Set(g.prefixes)] }));
}

/**
 * Which database this is (the cluster's system identifier and the database's oid), so an index
 * snapshot is only ever caught up against the database it was taken from. The identifier needs
 * pg_control_system(), which a role without monitoring rights may not call: the oid alone then.
 */
export async function databaseIdentity(client: Sql): Promise<string> {
  const [{ oid } = { oid: '' }] = await client<Array<{ oid: string }>>`SELECT oid::text AS oid FROM pg_database WHERE datname = current_database()`;
  try {
    const [{ id } = { id: '' }] = await client<Array<{ id: string }>>`SELECT system_identifier::text AS id FROM pg_control_system()`;
    return `${id}:${oid}`;
  } catch {
    return `?:${oid}`;
  }
}

/** Whether the change log can bring a snapshot's content up to date: its transactions are not from this database's future. */
export async function snapshotIsPast(db: DbOrTx, since: Snapshot): Promise<boolean> {
  const rows = await executePrepared<{ ok: boolean }>(db, sql`
    SELECT pg_snapshot_xmax(pg_current_snapshot()) >= ${since.xmax}::xid8 AS ok`);
  return rows[0]?.ok === true;
}
