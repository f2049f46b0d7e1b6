import { listLotOutcomes } from '../../services/shared/repositories/watchlist-repository.js';
import { parseSince, summarizeOutcomes, type SourceOutcomes } from '../../services/valuation/outcomes-report.js';
import { CliUsageError, parseArgs, type CliCommand, type FlagSpec } from './command.js';
import { textTable } from './table.js';

const FLAGS: Record<string, FlagSpec> = {
  since: { kind: 'value', help: 'the window: 30d (default), 12h, or a date YYYY-MM-DD' },
  json: { kind: 'boolean', help: 'print JSON instead of a table' },
};

const pct = (v: number | null) => (v === null ? '—' : `${Math.round(v * 100)}%`);
const ratio = (v: number | null) => (v === null ? '—' : v.toFixed(2));

/**
 * `npm run cli -- outcomes [--since 30d] [--json]` (issue 31): how our claims fared on the lots
 * the crawler saw close — per source, the final price against the fair value shown while the lot
 * was open, and how often lots we called good or better really sold under their fair value.
 * Read-only.
 */
export const outcomesCommand: CliCommand = {
  name: 'outcomes',
  summary: 'How our fair values and deal levels fared on lots that closed, per source',
  usage: '[--since 30d] [--json]',
  flags: FLAGS,
  async run(ctx, args) {
    const { flags } = parseArgs(args, FLAGS);
    const sinceText = typeof flags.since === 'string' ? flags.since : '30d';
    const since = parseSince(sinceText, new Date());
    if (!since) throw new CliUsageError(`--since takes 30d, 12h or a date like 2026-11-01, not "${sinceText}"`);
    const report: SourceOutcomes[] = summarizeOutcomes(await listLotOutcomes(ctx.database.db, since));
    if (flags.json === true) {
      process.stdout.write(`${JSON.stringify({ since: since.toISOString(), sources: report }, null, 2)}\n`);
      return;
    }
    process.stdout.write(
      [
        `Lots closed since ${since.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
        ...textTable(
          ['source', 'closed', 'sold', 'unsold', 'withdrawn', 'valued', 'median final/fair', 'in range', 'good+ (sold under fair)', 'excellent (under fair)', 'all (under fair)'],
          report.map((r) => [
            r.source,
            r.closed,
            r.sold,
            r.unsold,
            r.withdrawn,
            r.valued,
            ratio(r.medianFinalToFair),
            pct(r.inRange),
            `${r.goodOrBetter} (${pct(r.goodOrBetterUnderFair)})`,
            `${r.excellent} (${pct(r.excellentUnderFair)})`,
            pct(r.allUnderFair),
          ]),
        ),
        report.length === 0 ? 'No lot closed in this window.' : '',
        '',
      ].join('\n'),
    );
  },
};
