import { agreementRowPages } from '../../services/shared/repositories/agreement-repository.js';
import { findSourceByName } from '../../services/shared/repositories/sources-repository.js';
import { AgreementTally, type SourceAgreement } from '../../services/valuation/agreement-report.js';
import { CliUsageError, parseArgs, type CliCommand, type FlagSpec } from './command.js';
import { textTable } from './table.js';

const FLAGS: Record<string, FlagSpec> = {
  source: { kind: 'value', help: 'one source only, by its key (as `sources` lists it)' },
  all: { kind: 'boolean', help: 'every listing, ended ones too (default: open lots only)' },
  json: { kind: 'boolean', help: 'print JSON instead of a table' },
};

const pct = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(1)}%`);
const signedPct = (v: number | null) => (v === null ? '—' : `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}%`);

/**
 * `npm run cli -- agreement [--source <key>] [--all] [--json]` (issue 28): whether the deal page
 * tells one story — per source, of the scored listings, how many have comparables, whether the
 * fair value lies within, above or below their today prices' span (as the detail route returns
 * them), the median fair value against the median comparable, the notes the page shows, and the
 * deal levels. Read-only: it reads the listings a page at a time.
 */
export const agreementCommand: CliCommand = {
  name: 'agreement',
  summary: 'Fair value against its comparables as the deal page shows them, notes and deal levels, per source (read-only)',
  usage: '[--source <key>] [--all] [--json]',
  flags: FLAGS,
  async run(ctx, args) {
    const { flags } = parseArgs(args, FLAGS);
    const source = typeof flags.source === 'string' ? flags.source : undefined;
    if (source !== undefined && !(await findSourceByName(ctx.database.db, source))) throw new CliUsageError(`no source "${source}" (see npm run cli -- sources)`);
    const all = flags.all === true;
    const tally = new AgreementTally();
    for await (const page of agreementRowPages(ctx.database.db, { source, all })) tally.add(page);
    const report: SourceAgreement[] = tally.summaries();
    if (flags.json === true) {
      process.stdout.write(`${JSON.stringify({ scope: all ? 'all' : 'open', source: source ?? null, sources: report }, null, 2)}\n`);
      return;
    }
    process.stdout.write(
      [
        `Fair value against its comparables' today prices, as the deal page shows them (${all ? 'every listing' : 'open lots'})`,
        ...textTable(
          ['source', 'listings', 'valued', 'with comparables', 'within', 'above', 'below', 'median fair/comparable', 'notes', 'no year', 'unlike', 'also weighs', 'impaired', 'reserve', 'no comparables'],
          report.map((r) => [
            r.source,
            r.listings,
            r.valued,
            r.withComparables,
            `${r.within} (${pct(r.withinShare)})`,
            `${r.above} (${pct(r.aboveShare)})`,
            `${r.below} (${pct(r.belowShare)})`,
            signedPct(r.medianPercent),
            r.notes.total,
            r.notes.noYear,
            r.notes.unlike,
            r.notes.alsoWeighs,
            r.notes.impaired,
            r.notes.reserve,
            r.notes.noComparables,
          ]),
        ),
        '',
        'Deal levels',
        ...textTable(
          ['source', 'scored', 'excellent', 'good', 'fair', 'poor', 'unscored', 'fair share'],
          report.map((r) => [r.source, r.scored, r.levels.excellent, r.levels.good, r.levels.fair, r.levels.poor, r.levels.unscored, pct(r.fairShare)]),
        ),
        report.length === 0 ? 'No listing in scope.' : '',
        '',
      ].join('\n'),
    );
  },
};
