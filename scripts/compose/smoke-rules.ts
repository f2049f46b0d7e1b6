/**
 * The compose smoke's judgements, pure so unit tests can hold them to failing cases: the stack's
 * settings, whether the crawler replicas kept to the demo site's limits together, and whether a
 * restart kept every row.
 */
import type { RequestSummary } from '../demo-site/request-log.js';

/**
 * The demo site's Crawl-delay in the smoke (s). It must bind, or the scaled crawl shows nothing:
 * at 0.75 s three replicas on a 2-core host at load 8–33 fetched only 1.00 pages/s together
 * (2026-11-29), under the limit's 1.33/s, so the limit never held them back. One crawler alone
 * fetches about 2 pages a second there: at one per 2 s three replicas keeping the delay each on
 * their own would go about three times over, and sharing it keeps them at the limit.
 */
export const SMOKE_CRAWL_DELAY_S = 2;
/**
 * The share of the host's rate the scaled crawl must reach for the check to mean anything: slower
 * than this, the replicas were held back by something other than the limit.
 */
export const BINDING_SHARE = 0.6;
/** Lots on the demo site: enough for a crawl of ~100 pages, short at the delay above. */
export const SMOKE_DEMO_LOTS = 160;
/**
 * The most a single request may take from its host slot's claim (the crawler's clock in
 * PostgreSQL) to its arrival at the site: the only allowance the rate check makes.
 */
export const CLAIM_TO_ARRIVAL_MS = 1000;

/** The env file the smoke's stack reads (compose interpolation and every container's settings). */
export function smokeEnvFile(opts: { jwtSecret: string; apiPublish: string }): string {
  return [
    '# Written by the compose smoke (scripts/compose-smoke.ts) for its own project; removed at its end.',
    `JWT_SECRET=${opts.jwtSecret}`,
    `API_PUBLISH=${opts.apiPublish}`,
    // The demo site is the one source: nothing is crawled beyond the stack's own containers.
    'CRAWL_SOURCES=demo',
    'DEMO_SITE_URL=http://demo-site:8090',
    `DEMO_SITE_LOTS=${SMOKE_DEMO_LOTS}`,
    `DEMO_SITE_CRAWL_DELAY=${SMOKE_CRAWL_DELAY_S}`,
    // No SendGrid, SMTP or Twilio: messages stay in the outbox table.
    'LOG_LEVEL=info',
    '',
  ].join('\n');
}

export type Verdict = { ok: boolean; detail: string };

/**
 * The crawler replicas shared the host's limits: the site never answered more requests at once
 * than the host's concurrency, and over the crawl the requests came no faster than one per
 * minimum delay (their count times the delay fits in their span, allowing one request's trip from
 * claim to arrival; three replicas limiting themselves separately would come about three times
 * as fast). Every crawler replica must have made requests, or the limits were never shared.
 */
export function politenessVerdict(summary: RequestSummary, limits: { minDelayMs: number; maxConcurrency: number }, crawlerIps: string[]): Verdict {
  const problems: string[] = [];
  const clients = Object.keys(summary.clients).map((ip) => ip.replace(/^::ffff:/, ''));
  const idle = crawlerIps.filter((ip) => !clients.includes(ip));
  const strangers = clients.filter((ip) => !crawlerIps.includes(ip));
  if (summary.requests < 20) problems.push(`only ${summary.requests} requests: too few to judge`);
  if (idle.length > 0) problems.push(`crawler ${idle.join(', ')} made no request`);
  if (strangers.length > 0) problems.push(`requests from ${strangers.join(', ')}, not a crawler`);
  if (summary.max_concurrent > limits.maxConcurrency) problems.push(`${summary.max_concurrent} requests at once, over the host's ${limits.maxConcurrency}`);
  const needed = (summary.requests - 1) * limits.minDelayMs;
  if (limits.minDelayMs <= 0) problems.push('no minimum delay registered for the host (robots.txt Crawl-delay not read)');
  else if (needed > summary.span_ms + CLAIM_TO_ARRIVAL_MS) problems.push(`${summary.requests} requests in ${summary.span_ms} ms: one per ${limits.minDelayMs} ms needs ${needed} ms`);
  const perClient = Object.values(summary.clients).join('/');
  const rate = summary.span_ms > 0 ? ((summary.requests - 1) * 1000) / summary.span_ms : 0;
  if (limits.minDelayMs > 0 && rate < (BINDING_SHARE * 1000) / limits.minDelayMs) {
    problems.push(`the crawl ran under ${Math.round(BINDING_SHARE * 100)}% of the host's rate: the limit never held the replicas back, so sharing it is not shown`);
  }
  const detail = `${summary.requests} requests from ${clients.length} crawlers (${perClient}) in ${(summary.span_ms / 1000).toFixed(1)} s: ${rate.toFixed(2)}/s against the limit ${(1000 / limits.minDelayMs).toFixed(2)}/s, at most ${summary.max_concurrent} at once (limit ${limits.maxConcurrency}), closest starts ${summary.min_gap_ms} ms apart`;
  return problems.length === 0 ? { ok: true, detail } : { ok: false, detail: `${problems.join('; ')} — ${detail}` };
}

/**
 * Tables whose rows are leases or counters that end by design (a crawl slot's lease is deleted
 * when its request ends): a restart may leave fewer of them.
 */
export const TRANSIENT_TABLES = ['host_leases'];

/** Every table has at least the rows it had before (a restart loses nothing; work may add rows). */
export function rowsKept(before: Record<string, number>, after: Record<string, number>): Verdict & { rows: number; tables: number } {
  const lost = Object.entries(before)
    .filter(([table, n]) => !TRANSIENT_TABLES.includes(table) && (after[table] ?? 0) < n)
    .map(([table, n]) => `${table} ${n} → ${after[table] ?? 0}`);
  const rows = Object.entries(before)
    .filter(([table]) => !TRANSIENT_TABLES.includes(table))
    .reduce((sum, [, n]) => sum + n, 0);
  const tables = Object.keys(before).length;
  return lost.length === 0
    ? { ok: true, rows, tables, detail: `${tables} tables, ${rows.toLocaleString('en-US')} rows before, every one there after` }
    : { ok: false, rows, tables, detail: `rows lost: ${lost.join(', ')}` };
}

/** The run id in `cli crawl`'s answer ("Queued crawl run #12 of demo; …"). */
export function queuedRunId(output: string): number {
  const m = /Queued crawl run #(\d+)/.exec(output);
  if (!m) throw new Error(`no run id in: ${output.trim().slice(0, 200)}`);
  return Number(m[1]);
}
