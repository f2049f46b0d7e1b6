/** The `sources` rows the crawler owns the state of: registration, enablement, outcome, blocked. */
import { and, eq, sql } from 'drizzle-orm';
import { sources } from '../../../db/schema/catalog.js';
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
    .set({ status: 'blocked', blockedSince: sql`coalesce(${sources.blockedSince}, now())`, updatedAt: sql`now()` })
    .where(eq(sources.id, sourceId));
}

/** Records a finished run's outcome; a clean run clears `blocked_since`. */
export async function recordSourceOutcome(db: DbOrTx, sourceId: number, outcome: string, at: Date): Promise<void> {
  await db
    .update(sources)
    .set({
      status: outcome,
      lastRunAt: at,
      blockedSince: outcome === 'blocked' ? sql`coalesce(${sources.blockedSince}, now())` : null,
      updatedAt: sql`now()`,
    })
    .where(and(eq(sources.id, sourceId)));
}
