/**
 * `npm run sources` (`--json` for machines): every source with its health — enabled or why not,
 * status (`layout changed` and `login required` with the failing URLs and the parser's message),
 * last run and outcome, lots stored, error rate of the last run, blocked since.
 *
 * Every adapter the product has is listed, registered or not: on a fresh data folder (the crawler
 * registers sources only when it starts) each shows as this shell's configuration sets it,
 * "configured / not yet crawled" or "disabled (not in CRAWL_SOURCES)". Nothing is written.
 */
import { createRegistry, sourceRegistrations } from '../../services/crawler/adapters/index.js';
import { listRecentRuns } from '../../services/shared/repositories/crawl-runs-repository.js';
import { countSourceListings } from '../../services/shared/repositories/listing-store-repository.js';
import { listSources, type SourceRegistration, type SourceRow } from '../../services/shared/repositories/sources-repository.js';
import { parseArgs, type CliCommand, type FlagSpec } from './command.js';
import { textTable } from './table.js';

const FLAGS: Record<string, FlagSpec> = { json: { kind: 'boolean', help: 'print JSON instead of a table' } };

const when = (d: Date | null) => (d ? d.toISOString().replace('T', ' ').slice(0, 16) : '—');

export const sourcesCommand: CliCommand = {
  name: 'sources',
  summary: 'List sources with health: enabled, status and last problem, last run, outcome, lots, error rate (read-only)',
  usage: '[--json]',
  flags: FLAGS,
  async run(ctx, args) {
    const json = parseArgs(args, FLAGS).flags.json === true;
    const header = ['source', 'enabled', 'status', 'last run', 'last outcome', 'lots', 'error rate', 'blocked since', 'problem'];
    const rows = [];
    const notes: string[] = [];
    const records = [];
    const entries = sourceEntries(await listSources(ctx.database.db), sourceRegistrations(createRegistry(), ctx.config));
    for (const source of entries) {
      const [last] = source.id === null ? [] : await listRecentRuns(ctx.database.db, source.id, 1);
      const attempted = last ? last.stepsTotal : 0;
      const lots = source.id === null ? 0 : await countSourceListings(ctx.database.db, source.id);
      rows.push([
        source.name + (source.isDemo ? ' (demo)' : ''),
        enabledText(source, notes),
        statusText(source),
        when(source.lastRunAt),
        last ? (last.outcome ?? `${last.state} (${last.pendingSteps} pending)`) : '—',
        lots,
        last && attempted > 0 ? `${((100 * last.errors) / attempted).toFixed(1)}%` : '—',
        when(source.blockedSince),
        // Last: the one long column, free to run past the terminal's edge.
        problemText(source.statusMessage, source.statusUrls),
      ]);
      records.push({
        name: source.name,
        registered: source.id !== null,
        enabled: source.enabled,
        disabledReason: source.disabledReason,
        status: source.status,
        statusMessage: source.statusMessage,
        failingUrls: source.statusUrls,
        statusSince: source.statusSince?.toISOString() ?? null,
        lastRunAt: source.lastRunAt?.toISOString() ?? null,
        lastOutcome: last?.outcome ?? null,
        lots,
        blockedSince: source.blockedSince?.toISOString() ?? null,
      });
    }
    if (json) {
      process.stdout.write(`${JSON.stringify(records, null, 2)}\n`);
      return;
    }
    if (rows.length > 0) process.stdout.write(`${textTable(header, rows).join('\n')}\n`);
    if (notes.length > 0) process.stdout.write(`\nWhy disabled:\n${notes.map((n) => `  ${n}`).join('\n')}\n`);
    const unregistered = entries.filter((e) => e.id === null).length;
    if (unregistered > 0) {
      process.stdout.write(
        `\n${unregistered === entries.length ? 'No source registered yet' : `${unregistered} source${unregistered === 1 ? '' : 's'} not registered yet`}: ` +
          "shown as this shell's configuration (CRAWL_SOURCES) sets them; the crawler registers sources when it starts (`npm start`).\n",
      );
    }
  },
};

/** A source as listed: its row, or (id null) an adapter not registered yet, as configuration sets it. */
export type SourceEntry = Pick<SourceRow, 'name' | 'isDemo' | 'enabled' | 'disabledReason' | 'status' | 'statusMessage' | 'statusUrls' | 'statusSince' | 'lastRunAt' | 'blockedSince'> & {
  id: number | null;
};

/**
 * The registered sources and every adapter without a row yet, by name. A row is the crawler's
 * word (the product's configuration); an unregistered adapter can only be shown as this process's
 * configuration would register it, never crawled.
 */
export function sourceEntries(rows: SourceRow[], registrations: SourceRegistration[]): SourceEntry[] {
  const registered = new Set(rows.map((r) => r.name));
  const pending: SourceEntry[] = registrations
    .filter((r) => !registered.has(r.name))
    .map((r) => ({
      id: null,
      name: r.name,
      isDemo: r.isDemo,
      enabled: r.enabled,
      disabledReason: r.disabledReason,
      // the column's own default for a source nothing is known of yet
      status: 'unknown',
      statusMessage: null,
      statusUrls: [],
      statusSince: null,
      lastRunAt: null,
      blockedSince: null,
    }));
  return [...rows, ...pending].sort((a, b) => a.name.localeCompare(b.name));
}

/** Longer reasons (an adapter's own, a sentence) go under the table: the columns stay readable. */
const SHORT_REASON = 40;

/** "yes", "no: <reason>", or "no: see below" with the reason added to `notes`. */
function enabledText(source: Pick<SourceEntry, 'name' | 'enabled' | 'disabledReason'>, notes: string[]): string {
  if (source.enabled) return 'yes';
  const reason = source.disabledReason ?? 'disabled';
  if (reason.length <= SHORT_REASON) return `no: ${reason}`;
  notes.push(`${source.name}: ${reason}`);
  return 'no: see below';
}

/** The status in an operator's words: a never-crawled source says whether it will be crawled. */
export function statusText(source: Pick<SourceEntry, 'enabled' | 'disabledReason' | 'status' | 'lastRunAt'>): string {
  if (source.status === 'unknown' && source.lastRunAt === null) {
    if (source.enabled) return 'configured / not yet crawled';
    // any other reason (the adapter's own, no base URL) is in the enabled column, said once
    return source.disabledReason === 'not listed in CRAWL_SOURCES' ? 'disabled (not in CRAWL_SOURCES)' : 'disabled';
  }
  // `layout-changed` → "layout changed": the words an operator reads.
  return source.status.replace(/-/g, ' ');
}

/** The parser's or fetcher's message and the first failing URL (with how many more), or —. */
function problemText(message: string | null, urls: string[]): string {
  if (!message && urls.length === 0) return '—';
  const where = urls.length > 0 ? ` at ${urls[0]}${urls.length > 1 ? ` (+${urls.length - 1} more)` : ''}` : '';
  return `${message ?? 'failed'}${where}`;
}
