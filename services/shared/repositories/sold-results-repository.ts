/**
 * SQL for sales history (sold_results): the importer's upserts, the training set, and the
 * comparables candidates for one listing.
 */
import { sql } from 'drizzle-orm';
import { soldResults } from '../../../db/schema/index.js';
import type { DbOrTx, Tx } from '../database/db.js';

export type NewSoldResult = typeof soldResults.$inferInsert;

export type SoldResultRow = {
  id: number;
  origin: string;
  externalId: string;
  title: string;
  make: string | null;
  model: string | null;
  modelFamily: string | null;
  year: number | null;
  hours: number | null;
  condition: string | null;
  categoryId: number;
  state: string | null;
  saleChannel: string | null;
  soldAt: Date;
  price: number;
  url: string | null;
  attributes: Record<string, string | number | null>;
  /** The crawled source's display name, when the origin is `crawl:<source>`. */
  sourceName: string | null;
};

/** Inserts or refreshes sales by (origin, external id); returns how many rows were written. */
export async function upsertSoldResults(db: DbOrTx, rows: NewSoldResult[]): Promise<number> {
  if (rows.length === 0) return 0;
  const written = await db
    .insert(soldResults)
    .values(rows)
    .onConflictDoUpdate({
      target: [soldResults.origin, soldResults.externalId],
      set: {
        title: sql`excluded.title`,
        make: sql`excluded.make`,
        model: sql`excluded.model`,
        modelFamily: sql`excluded.model_family`,
        year: sql`excluded.year`,
        hours: sql`excluded.hours`,
        condition: sql`excluded.condition`,
        categoryId: sql`excluded.category_id`,
        state: sql`excluded.state`,
        saleChannel: sql`excluded.sale_channel`,
        soldAt: sql`excluded.sold_at`,
        price: sql`excluded.price`,
        currency: sql`excluded.currency`,
        url: sql`excluded.url`,
        attributes: sql`excluded.attributes`,
      },
    })
    .returning({ id: soldResults.id });
  return written.length;
}

const SELECT_SALES = sql`
  SELECT s.id, s.origin, s.external_id AS "externalId", s.title, s.make, s.model, s.model_family AS "modelFamily",
         s.year, s.hours, s.condition, s.category_id AS "categoryId", s.state, s.sale_channel AS "saleChannel",
         s.sold_at AS "soldAt", s.price::float8 AS price, s.url, s.attributes, src.display_name AS "sourceName"
  FROM sold_results s
  LEFT JOIN sources src ON s.origin = 'crawl:' || src.name`;

function toRow(r: Record<string, unknown>): SoldResultRow {
  return { ...(r as SoldResultRow), soldAt: new Date(r.soldAt as string | Date), price: Number(r.price) };
}

const TRAINING = sql`s.price > 0 AND s.currency = 'USD'`;

/** How many sales the training set holds. */
export async function countTrainingSales(db: DbOrTx): Promise<number> {
  const [row] = (await db.execute(sql`SELECT count(*)::int AS n FROM sold_results s WHERE ${TRAINING}`)) as unknown as { n: number }[];
  return row?.n ?? 0;
}

/**
 * The training set in order of sale, a page at a time through a server-side cursor: a million rows
 * need not be held at once. Inside a transaction (a cursor lives in one); a repeatable-read one
 * makes the pages agree with a count read in it.
 */
export async function* trainingSalePages(tx: Tx, pageSize = 10_000): AsyncGenerator<SoldResultRow[]> {
  await tx.execute(sql`DECLARE training_sales NO SCROLL CURSOR FOR ${SELECT_SALES} WHERE ${TRAINING} ORDER BY s.sold_at, s.id`);
  for (;;) {
    const rows = (await tx.execute(sql`FETCH FORWARD ${sql.raw(String(Math.max(1, Math.floor(pageSize))))} FROM training_sales`)) as unknown as Record<string, unknown>[];
    if (rows.length === 0) break;
    yield rows.map(toRow);
  }
  // (a reader that stops early leaves it to the transaction's end, which closes every cursor)
  await tx.execute(sql`CLOSE training_sales`);
}

/**
 * Sales of the same type whose model or model family matches (case and punctuation ignored),
 * most recent first: the pool comparables are picked from.
 */
export async function findComparableCandidates(
  db: DbOrTx,
  target: { categoryId: number; model: string | null; modelFamily: string | null; make?: string | null },
  limit = 400,
): Promise<SoldResultRow[]> {
  const norm = (v: string | null | undefined) => (v ? v.toUpperCase().replace(/[^A-Z0-9]/g, '') : '');
  const model = norm(target.model);
  const family = norm(target.modelFamily);
  // without a model, the same make (as comparables.ts selects)
  const make = !model && !family ? norm(target.make) : '';
  if (!model && !family && !make) return [];
  const rows = await db.execute(sql`${SELECT_SALES}
    WHERE s.category_id = ${target.categoryId} AND s.price > 0 AND (
      (${family} <> '' AND regexp_replace(upper(coalesce(s.model_family, '')), '[^A-Z0-9]', '', 'g') = ${family})
      OR (${model} <> '' AND regexp_replace(upper(coalesce(s.model, '')), '[^A-Z0-9]', '', 'g') = ${model})
      OR (${make} <> '' AND regexp_replace(upper(coalesce(s.make, '')), '[^A-Z0-9]', '', 'g') = ${make})
    )
    ORDER BY s.sold_at DESC, s.id DESC
    LIMIT ${limit}`);
  return (rows as unknown as Record<string, unknown>[]).map(toRow);
}

export async function countSoldResultsByOrigin(db: DbOrTx): Promise<Record<string, number>> {
  const rows = (await db.execute(sql`SELECT origin, count(*)::int AS n FROM sold_results GROUP BY origin`)) as unknown as { origin: string; n: number }[];
  return Object.fromEntries(rows.map((r) => [r.origin, Number(r.n)]));
}

/**
 * Every sale comparables can be picked from (positive price, any currency, as
 * findComparableCandidates reads them): loaded once by a batch rescore, which then looks
 * candidates up in memory instead of one query per listing.
 */
export async function listComparablePool(db: DbOrTx): Promise<SoldResultRow[]> {
  const rows = await db.execute(sql`${SELECT_SALES} WHERE s.price > 0`);
  return (rows as unknown as Record<string, unknown>[]).map(toRow);
}
