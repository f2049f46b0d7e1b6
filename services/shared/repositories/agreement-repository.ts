/**
 * SQL of `cli agreement` (issue 28): the columns the deal page's valuation is made of, page by
 * page in id order, so a million listings' comparables are never read at once. Read-only.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../database/db.js';
import type { ListingStatus } from '../../../db/schema/listings.js';

/** What the report reads of a listing (the columns the deal page's valuation is made of). */
export type AgreementRow = {
  source: string;
  status: ListingStatus;
  title: string;
  description: string;
  year: number | null;
  hours: number | null;
  fairValue: number | null;
  dealScore: number | null;
  /** As stored (jsonb): parsed here exactly as the detail route parses it. */
  comparables: unknown;
};

export const AGREEMENT_PAGE_SIZE = 1000;

export type AgreementScope = {
  /** A source's name (its key); every source without. */
  source?: string;
  /** Every status; without, open lots only. */
  all?: boolean;
  pageSize?: number;
};

/** The listings in scope, a page (ordered by id, at most `pageSize` rows) at a time. */
export async function* agreementRowPages(db: DbOrTx, scope: AgreementScope = {}): AsyncGenerator<AgreementRow[]> {
  const pageSize = scope.pageSize ?? AGREEMENT_PAGE_SIZE;
  let after = 0;
  for (;;) {
    const page = (await db.execute(sql`
      SELECT l.id, s.name AS source, l.status, l.title, l.description, l.year, l.hours,
        l.fair_value::float8 AS "fairValue", l.deal_score AS "dealScore",
        -- the comparables matter only where there is a fair value to set against them
        CASE WHEN l.fair_value IS NOT NULL THEN l.comparables END AS comparables
      FROM listings l JOIN sources s ON s.id = l.source_id
      WHERE l.id > ${after}
        ${scope.all ? sql`` : sql`AND l.status = 'open'`}
        ${scope.source !== undefined ? sql`AND s.name = ${scope.source}` : sql``}
      ORDER BY l.id
      LIMIT ${pageSize}`)) as unknown as Array<AgreementRow & { id: number }>;
    if (page.length === 0) return;
    yield page;
    if (page.length < pageSize) return;
    after = page[page.length - 1]!.id;
  }
}
