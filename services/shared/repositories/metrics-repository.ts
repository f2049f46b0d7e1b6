/**
 * Read-only figures for `/metrics`, each one small grouped query. Windows of 24 hours keep the
 * crawl-run and message scans on their time indexes however long the product runs.
 */
import type { Sql } from 'postgres';

export type SourceStatusRow = { source: string; status: string; enabled: boolean };
export type CrawlOutcomeRow = { source: string; outcome: string; runs: number };
export type MessageCountRow = { channel: string; status: string; messages: number };

/** Every source with its current status (whatever statuses other parts add). */
export async function sourceStatuses(sql: Sql): Promise<SourceStatusRow[]> {
  return sql<SourceStatusRow[]>`SELECT name AS source, status, enabled FROM sources ORDER BY name`;
}

/** Finished crawl runs of the last 24 hours per source and outcome; running ones as `running`. */
export async function recentCrawlOutcomes(sql: Sql): Promise<CrawlOutcomeRow[]> {
  return sql<CrawlOutcomeRow[]>`
    SELECT s.name AS source, COALESCE(r.outcome, r.state) AS outcome, count(*)::int AS runs
    FROM crawl_runs r JOIN sources s ON s.id = r.source_id
    WHERE r.started_at > now() - interval '24 hours' AND NOT r.dry_run
    GROUP BY 1, 2`;
}

/** Outgoing messages created in the last 24 hours per channel and status (sent, failed, queued…). */
export async function recentMessageCounts(sql: Sql): Promise<MessageCountRow[]> {
  return sql<MessageCountRow[]>`
    SELECT channel, status, count(*)::int AS messages
    FROM outbox_messages
    WHERE created_at > now() - interval '24 hours'
    GROUP BY 1, 2`;
}

/** Whether any crawl run of an enabled source has ever started (the first-run banner and empty state). */
export async function sourcesNeverCrawled(sql: Sql): Promise<string[]> {
  const rows = await sql<{ name: string }[]>`
    SELECT s.name FROM sources s
    WHERE s.enabled AND NOT EXISTS (SELECT 1 FROM crawl_runs r WHERE r.source_id = s.id AND NOT r.dry_run)
    ORDER BY s.name`;
  return rows.map((r) => r.name);
}
