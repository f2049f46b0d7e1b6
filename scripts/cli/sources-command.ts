/**
 * `npm run sources` (`--json` for machines): every source with its health — enabled or why not,
 * status (`layout changed` and `login required` with the failing URLs and the parser's message),
 * last run and outcome, lots stored, error rate of the last run, blocked since.
 */
import { createRegistry } from '../../services/crawler/adapters/index.js';
import { syncSourcesFromConfig } from '../../services/crawler/index.js';
import { listRecentRuns } from '../../services/shared/repositories/crawl-runs-repository.js';
import { countSourceListings } from '../../services/shared/repositories/listing-store-repository.js';
import { listSources } from '../../services/shared/repositories/sources-repository.js';
import { parseArgs, type CliCommand } from './command.js';

const when = (d: Date | null) => (d ? d.toISOString().replace('T', ' ').slice(0, 16) : '—');

export const sourcesCommand: CliCommand = {
  name: 'sources',
  summary: 'List sources with health (last run, outcome, lots, error rate, blocked since)',
  usage: '[--json]',
  async run(ctx, args) {
    const json = parseArgs(args).flags.json === true;
    await syncSourcesFromConfig(ctx, createRegistry());
    const rows = [];
    const records = [];
    for (const source of await listSources(ctx.database.db)) {
      const [last] = await listRecentRuns(ctx.database.db, source.id, 1);
      const attempted = last ? last.stepsTotal : 0;
      rows.push({
        source: source.name + (source.isDemo ? ' (demo)' : ''),
        enabled: source.enabled ? 'yes' : `no: ${source.disabledReason ?? 'disabled'}`,
        // `layout-changed` → "layout changed": the words an operator reads.
        status: source.status.replace(/-/g, ' '),
        problem: problemText(source.statusMessage, source.statusUrls),
        'last run': when(source.lastRunAt),
        'last outcome': last ? (last.outcome ?? `${last.state} (${last.pendingSteps} pending)`) : '—',
        lots: await countSourceListings(ctx.database.db, source.id),
        'error rate': last && attempted > 0 ? `${((100 * last.errors) / attempted).toFixed(1)}%` : '—',
        'blocked since': when(source.blockedSince),
      });
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
        lots: rows[rows.length - 1]!.lots,
        blockedSince: source.blockedSince?.toISOString() ?? null,
      });
    }
    if (json) {
      process.stdout.write(`${JSON.stringify(records, null, 2)}\n`);
      return;
    }
    if (rows.length === 0) process.stdout.write('No sources registered.\n');
    else console.table(rows);
  },
};

/** The parser's or fetcher's message and the first failing URL (with how many more), or —. */
function problemText(message: string | null, urls: string[]): string {
  if (!message && urls.length === 0) return '—';
  const where = urls.length > 0 ? ` at ${urls[0]}${urls.length > 1 ? ` (+${urls.length - 1} more)` : ''}` : '';
  return `${message ?? 'failed'}${where}`;
}
