/**
 * `npm run sources` (`--json` for machines): every source with its health — enabled or why not,
 * status (`layout changed` and `login required` with the failing URLs and the parser's message),
 * last run and outcome, lots stored, error rate of the last run, blocked since.
 */
import { listRecentRuns } from '../../services/shared/repositories/crawl-runs-repository.js';
import { countSourceListings } from '../../services/shared/repositories/listing-store-repository.js';
import { listSources } from '../../services/shared/repositories/sources-repository.js';
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
    const records = [];
    for (const source of await listSources(ctx.database.db)) {
      const [last] = await listRecentRuns(ctx.database.db, source.id, 1);
      const attempted = last ? last.stepsTotal : 0;
      const lots = await countSourceListings(ctx.database.db, source.id);
      rows.push([
        source.name + (source.isDemo ? ' (demo)' : ''),
        source.enabled ? 'yes' : `no: ${source.disabledReason ?? 'disabled'}`,
        // `layout-changed` → "layout changed": the words an operator reads.
        source.status.replace(/-/g, ' '),
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
    if (rows.length === 0) process.stdout.write('No sources registered yet: the crawler registers them when it starts (`npm start`).\n');
    else process.stdout.write(`${textTable(header, rows).join('\n')}\n`);
  },
};

/** The parser's or fetcher's message and the first failing URL (with how many more), or —. */
function problemText(message: string | null, urls: string[]): string {
  if (!message && urls.length === 0) return '—';
  const where = urls.length > 0 ? ` at ${urls[0]}${urls.length > 1 ? ` (+${urls.length - 1} more)` : ''}` : '';
  return `${message ?? 'failed'}${where}`;
}
