/**
 * Read-only figures for operators: `/metrics`, the start-up banner, the dashboard's first-run
 * state. Each is one small grouped query. Windows of 24 hours keep the
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

/**
 * Enabled sources that no crawl run has started for yet (crawled at start: the first run), or,
 * with `finished`, that no crawl has finished for yet (the banner: a first crawl under way).
 */
export async function sourcesNeverCrawled(sql: Sql, opts: { finished?: boolean } = {}): Promise<string[]> {
  const rows = await sql<{ name: string }[]>`
    SELECT s.name FROM sources s
    WHERE s.enabled AND NOT EXISTS (
      SELECT 1 FROM crawl_runs r WHERE r.source_id = s.id AND NOT r.dry_run AND (${!opts.finished} OR r.state = 'finished'))
    ORDER BY s.name`;
  return rows.map((r) => r.name);
}

export type CrawlState = { enabledSources: string[]; running: number; finished: number; listings: number };

/** Enabled sources (display names), crawl runs running and finished, and whether listings exist. */
export async function crawlState(sql: Sql): Promise<CrawlState> {
  const [row] = await sql<{ enabled: string[] | null; running: number; finished: number; listings: number }[]>`
    SELECT
      (SELECT array_agg(display_name ORDER BY display_name) FROM sources WHERE enabled) AS enabled,
      (SELECT count(*)::int FROM crawl_runs r JOIN sources s ON s.id = r.source_id WHERE s.enabled AND r.state = 'running' AND NOT r.dry_run) AS running,
      (SELECT count(*)::int FROM crawl_runs r JOIN sources s ON s.id = r.source_id WHERE s.enabled AND r.state = 'finished' AND NOT r.dry_run) AS finished,
      (SELECT count(*)::int FROM (SELECT 1 FROM listings LIMIT 1) l) AS listings`;
  return { enabledSources: row?.enabled ?? [], running: row?.running ?? 0, finished: row?.finished ?? 0, listings: row?.listings ?? 0 };
}

/** Names (adapter keys) of the enabled sources. */
export async function enabledSourceNames(sql: Sql): Promise<string[]> {
  const rows = await sql<{ name: string }[]>`SELECT name FROM sources WHERE enabled ORDER BY name`;
  return rows.map((r) => r.name);
}

/** Client connections to this database other than this process's pool (application_name `deal-radar`). */
export async function otherClientConnections(sql: Sql): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND backend_type = 'client backend'
      AND pid <> pg_backend_pid() AND application_name IS DISTINCT FROM 'deal-radar'`;
  return row?.n ?? 0;
}
