/** The `sources` rows the crawler owns the state of: registration, enablement, outcome, blocked. */
import { and, eq, sql } from 'drizzle-orm';
import { sources, type SourceStatus } from '../../../db/schema/catalog.js';
import type { DbOrTx } from '../database/db.js';

export type SourceRow = typeof sources.$inferSelect;

export type SourceRegistration = {
  name: string;
  displayName: string;
  baseUrl: string;
  accessKind: string;
  isDemo: boolean;
  enabled: boolean;
  disabledReason: string | null;
};

/** Inserts or refreshes each adapter's row; enablement follows configuration on every start. */
export async function syncSources(db: DbOrTx, registrations: SourceRegistration[]): Promise<void> {
  for (const r of registrations) {
    await db
      .insert(sources)
      .values(r)
      .onConflictDoUpdate({
        target: sources.name,
        set: {
          displayName: r.displayName,
          baseUrl: r.baseUrl,
          accessKind: r.accessKind,
          isDemo: r.isDemo,
          enabled: r.enabled,
          disabledReason: r.disabledReason,
          updatedAt: sql`now()`,
        },
      });
  }
}

export async function findSourceByName(db: DbOrTx, name: string): Promise<SourceRow | undefined> {
  const [row] = await db.select().from(sources).where(eq(sources.name, name));
  return row;
}

export async function listSources(db: DbOrTx): Promise<SourceRow[]> {
  return db.select().from(sources).orderBy(sources.name);
}

/** A challenge/block page was seen: blocked from now (or since the first time, if still blocked). */
export async function markSourceBlocked(db: DbOrTx, sourceId: number): Promise<void> {
  await db
    .update(sources)
    .set({
      status: 'blocked',
      statusSince: sql`CASE WHEN ${sources.status} = 'blocked' THEN ${sources.statusSince} ELSE now() END`,
      blockedSince: sql`coalesce(${sources.blockedSince}, now())`,
      updatedAt: sql`now()`,
    })
    .where(eq(sources.id, sourceId));
}

/** What went wrong, for the statuses that name a problem; empty for the others. */
export type StatusDetail = { message: string | null; urls: string[] };

/**
 * Records a finished run's outcome with its detail (the failing URLs and the message of a
 * changed layout, a login wall or a block); a clean run clears `blocked_since` and the detail.
 * The source's listings are left alone whatever the outcome: a broken page is not an empty site.
 */
export async function recordSourceOutcome(db: DbOrTx, sourceId: number, outcome: SourceStatus, at: Date, detail: StatusDetail = { message: null, urls: [] }): Promise<void> {
  await db
    .update(sources)
    .set({
      status: outcome,
      statusMessage: detail.message?.slice(0, 2000) ?? null,
      statusUrls: detail.urls.slice(0, MAX_STATUS_URLS).map((u) => u.slice(0, 2048)),
      statusSince: sql`CASE WHEN ${sources.status} = ${outcome} AND ${sources.statusSince} IS NOT NULL THEN ${sources.statusSince} ELSE ${at.toISOString()}::timestamptz END`,
      lastRunAt: at,
      blockedSince: outcome === 'blocked' ? sql`coalesce(${sources.blockedSince}, now())` : null,
      updatedAt: sql`now()`,
    })
    .where(and(eq(sources.id, sourceId)));
}

const MAX_STATUS_URLS = 5;
