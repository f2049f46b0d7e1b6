import { backfillListingPlaces } from '../../services/crawler/place-backfill.js';
import { placeSharesBySource } from '../../services/shared/repositories/listing-places-repository.js';
import { parseArgs, type CliCommand, type FlagSpec } from './command.js';
import { textTable } from './table.js';

const FLAGS: Record<string, FlagSpec> = {
  backfill: { kind: 'boolean', help: 'first place the listings never tried (stored before issue 30) (writes)' },
  json: { kind: 'boolean', help: 'print JSON instead of text' },
};

const percent = (part: number, whole: number) => (whole === 0 ? '—' : `${((100 * part) / whole).toFixed(1)}%`);

/**
 * `npm run cli -- places [--backfill] [--json]`: per source, how many listings are placed on the
 * map and how exactly (ZIP code, city, state centroid), how many nothing places, how many were
 * never tried. Read-only unless `--backfill`.
 */
export const placesCommand: CliCommand = {
  name: 'places',
  summary: 'Share of listings placed on the map per source (ZIP, city, state); --backfill places old rows',
  usage: '[--backfill] [--json]',
  flags: FLAGS,
  async run(ctx, args) {
    const { flags } = parseArgs(args, FLAGS);
    const backfill = flags.backfill ? await backfillListingPlaces(ctx.database.db) : null;
    const shares = await placeSharesBySource(ctx.database.db);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify({ backfill, sources: shares })}\n`);
      return 0;
    }
    if (backfill) process.stdout.write(`Backfill: ${backfill.tried} listings tried, ${backfill.written} written.\n\n`);
    const header = ['source', 'listings', 'placed', 'zip', 'city', 'state', 'none', 'untried'];
    const rows = shares.map((s) => [s.source, s.listings, percent(s.zip + s.city + s.state, s.listings), s.zip, s.city, s.state, s.none, s.untried]);
    process.stdout.write(`${textTable(header, rows).join('\n')}\n`);
    return 0;
  },
};
