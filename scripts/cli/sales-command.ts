/**
 * `npm run cli -- sales [--json]`: the sales history the model learns from, by origin, and the
 * state of its imports (complete, importing, or interrupted and waiting to be resumed), with the
 * newest model and how many listings it has scored. Read-only: it writes nothing, and may run
 * while an import does.
 */
import { overallImportState } from '../../services/scorer/sales-import-state.js';
import { countListingsByModelVersion } from '../../services/shared/repositories/listing-scores-repository.js';
import { latestModelVersion } from '../../services/shared/repositories/model-versions-repository.js';
import { listSalesImports } from '../../services/shared/repositories/sales-imports-repository.js';
import { countSoldResultsByOrigin } from '../../services/shared/repositories/sold-results-repository.js';
import { parseArgs, type CliCommand, type FlagSpec } from './command.js';
import { textTable } from './table.js';

const FLAGS: Record<string, FlagSpec> = { json: { kind: 'boolean', help: 'print one JSON object instead of tables' } };

export const salesCommand: CliCommand = {
  name: 'sales',
  summary: 'Sales history by origin and the state of its imports (complete, importing, interrupted); the newest model and the listings it scored',
  usage: '[--json]',
  flags: FLAGS,
  async run(ctx, args) {
    const { flags } = parseArgs(args, FLAGS);
    const { db } = ctx.database;
    const [byOrigin, imports, model, byVersion] = await Promise.all([
      countSoldResultsByOrigin(db),
      listSalesImports(db),
      latestModelVersion(db),
      countListingsByModelVersion(db),
    ]);
    const rows = Object.values(byOrigin).reduce((a, b) => a + b, 0);
    const state = overallImportState(imports);
    const notOnNewest = model ? Object.entries(byVersion).reduce((n, [v, count]) => (v === String(model.version) ? n : n + count), 0) : 0;
    if (flags.json === true) {
      const out = {
        rows,
        by_origin: byOrigin,
        import: state,
        imports: imports.map((r) => ({
          origin: r.origin,
          file: r.file,
          ...(r.pricesFile ? { prices_file: r.pricesFile } : {}),
          trigger: r.trigger,
          status: r.status,
          rows_done: r.rowsDone,
          written: r.written,
          attempts: r.attempts,
          started_at: r.startedAt.toISOString(),
          finished_at: r.finishedAt?.toISOString() ?? null,
          ...(r.error ? { error: r.error } : {}),
        })),
        model: model ? { version: model.version, trained_at: model.createdAt.toISOString(), training_rows: model.trainingRows } : null,
        listings_by_model_version: byVersion,
        rescore_pending: notOnNewest,
      };
      process.stdout.write(`${JSON.stringify(out)}\n`);
      return 0;
    }
    const lines = [`Sales history: ${rows} sales; import ${state}.`, ''];
    lines.push(...textTable(['origin', 'sales'], Object.entries(byOrigin).sort().map(([o, n]) => [o, n])), '');
    lines.push(
      ...textTable(
        ['file', 'status', 'rows in', 'attempts', 'started', 'finished'],
        imports.map((r) => [r.file, r.status, r.rowsDone, r.attempts, r.startedAt.toISOString(), r.finishedAt?.toISOString() ?? null]),
      ),
    );
    if (state === 'interrupted') lines.push('', 'An interrupted import resumes where it stopped when the scorer starts (or run the same import-sales command again).');
    if (state === 'importing') lines.push('', 'An import is running; the model trains once it is complete.');
    lines.push('');
    if (model) {
      lines.push(`Newest model: version ${model.version}, trained ${model.createdAt.toISOString()} on ${model.trainingRows} sales.`);
      lines.push(notOnNewest > 0 ? `${notOnNewest} listings not yet scored by it (queued at the scorer's next start if not already).` : 'Every listing is scored by it.');
    } else {
      lines.push('No model yet.');
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  },
};
