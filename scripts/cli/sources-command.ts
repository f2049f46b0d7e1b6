/**
 * `npm run sources`: every source with its health — enabled or why not, last run and outcome,
 * lots stored, error rate of the last run, blocked since.
 */
import { createRegistry } from '../../services/crawler/adapters/index.js';
import { syncSourcesFromConfig } from '../../services/crawler/index.js';
import { listRecentRuns } from '../../services/shared/repositories/crawl-runs-repository.js';
import { countSourceListings } from '../../services/shared/repositories/listing-store-repository.js';
import { listSources } from '../../services/shared/repositories/sources-repository.js';
import type { CliCommand } from './command.js';

const when = (d: Date | null) => (d ? d.toISOString().replace('T', ' ').slice(0, 16) : '—');

export const sourcesCommand: CliCommand = {
  name: 'sources',
  summary: 'List sources with health (last run, outcome, lots, error rate, blocked since)',
  async run(ctx) {
    await syncSourcesFromConfig(ctx, createRegistry());
    const rows = [];
    for (const source of await listSources(ctx.database.db)) {
      const [last] = await listRecentRuns(ctx.database.db, source.id, 1);
      const attempted = last ? last.stepsTotal : 0;
      rows.push({
        source: source.name + (source.isDemo ? ' (demo)' : ''),
        enabled: source.enabled ? 'yes' : `no: ${source.disabledReason ?? 'disabled'}`,
        status: source.status,
        'last run': when(source.lastRunAt),
        'last outcome': last ? (last.outcome ?? `${last.state} (${last.pendingSteps} pending)`) : '—',
        lots: await countSourceListings(ctx.database.db, source.id),
        'error rate': last && attempted > 0 ? `${((100 * last.errors) / attempted).toFixed(1)}%` : '—',
        'blocked since': when(source.blockedSince),
      });
    }
    if (rows.length === 0) process.stdout.write('No sources registered.\n');
    else console.table(rows);
  },
};
