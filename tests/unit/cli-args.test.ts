/** The operator CLI's argument rules: strict flags per command, specs read from usage lines, plain tables. */
import { describe, expect, it } from 'vitest';
import { checkArgs, CliUsageError, commandHelp, parseArgs, specFromUsage, type CliCommand } from '../../scripts/cli/command.js';
import { COMMANDS } from '../../scripts/cli/index.js';
import { textTable } from '../../scripts/cli/table.js';

const command = (name: string): CliCommand => COMMANDS.find((c) => c.name === name)!;

describe('parseArgs with a spec', () => {
  const spec = { json: { kind: 'boolean' as const }, limit: { kind: 'value' as const } };

  it('reads values, inline values and booleans without swallowing the next argument', () => {
    expect(parseArgs(['--limit', '5', '--json', 'file.csv'], spec)).toEqual({ flags: { limit: '5', json: true }, positional: ['file.csv'] });
    expect(parseArgs(['--limit=7'], spec).flags).toEqual({ limit: '7' });
    expect(parseArgs(['--', '--json'], spec)).toEqual({ flags: {}, positional: ['--json'] });
  });

  it.each([
    [['--jsn'], 'Unknown option --jsn.'],
    [['--limit'], '--limit needs a value.'],
    [['--limit', '--json'], '--limit needs a value.'],
    [['--limit='], '--limit needs a value.'],
    [['--json=yes'], '--json takes no value.'],
    [['--json', '--json'], '--json is given twice.'],
  ])('refuses %j', (args, message) => {
    expect(() => parseArgs(args, spec)).toThrow(new CliUsageError(message));
  });

  it('without a spec keeps the old loose reading', () => {
    expect(parseArgs(['--anything', 'x', '--flag'])).toEqual({ flags: { anything: 'x', flag: true }, positional: [] });
  });
});

describe('specs read from usage lines (commands that declare no flags)', () => {
  it('import-sales: --format and --prices take values, one file', () => {
    const spec = specFromUsage('import-sales', 'import-sales --format fastiron <file.csv|file.csv.gz> [--prices <SalesID,SalePrice csv>]');
    expect(spec).toEqual({ flags: { format: { kind: 'value' }, prices: { kind: 'value' } }, positional: 1 });
  });

  it('model:train: one boolean flag, no arguments', () => {
    expect(specFromUsage('model:train', 'model:train [--no-rescore]')).toEqual({ flags: { 'no-rescore': { kind: 'boolean' } }, positional: 0 });
  });

  it('model:eval: the protocols\' flags take a value, --json and --no-fast-iron-alone are switches', () => {
    const spec = specFromUsage('model:eval', command('model:eval').usage);
    expect(Object.keys(spec.flags).sort()).toEqual(['calibrate-on', 'data', 'dump-errors', 'index-months', 'json', 'load-model', 'no-fast-iron-alone', 'offers-for-hours', 'protocol', 'save-model', 'spread', 'test', 'test-before', 'test-from', 'test-prices', 'train', 'train-before', 'train-prices']);
    expect(Object.entries(spec.flags).filter(([, f]) => f.kind === 'boolean').map(([name]) => name).sort()).toEqual(['json', 'no-fast-iron-alone']);
    expect(spec.positional).toBe(0);
  });

  it("checks every command's own command line", () => {
    expect(() => checkArgs(command('model:train'), ['--no-rescore'])).not.toThrow();
    expect(() => checkArgs(command('model:train'), ['--norescore'])).toThrow('Unknown option --norescore.');
    expect(() => checkArgs(command('import-sales'), ['--format', 'fastiron', 'a.csv'])).not.toThrow();
    expect(() => checkArgs(command('import-sales'), ['--format', 'fastiron', 'a.csv', 'b.csv'])).toThrow('Unexpected argument "b.csv".');
    expect(() => checkArgs(command('sources'), ['--json'])).not.toThrow();
    expect(() => checkArgs(command('sources'), ['--enable', 'demo'])).toThrow('Unknown option --enable.');
    expect(() => checkArgs(command('queues'), ['extra'])).toThrow('Unexpected argument "extra".');
  });

  it('every command has a usage its spec agrees with, and a --help naming each flag', () => {
    for (const c of COMMANDS) {
      const help = commandHelp(c);
      expect(help).toMatch(new RegExp(`^Usage: npm run cli -- ${c.name}`));
      for (const flag of Object.keys(c.flags ?? {})) {
        expect(help, `${c.name} --${flag}`).toContain(`--${flag}`);
        expect(c.usage ?? '', `${c.name}'s usage names --${flag}`).toContain(`--${flag}`);
      }
    }
  });
});

describe('textTable', () => {
  it('pads columns, right-aligns numbers, no index column or quotes, one line per row', () => {
    expect(textTable(['queue', 'failed', 'note'], [['score', 12, 'bad\nline'], ['crawl', 3, null]])).toEqual([
      'queue  failed  note',
      'score      12  bad line',
      'crawl       3  —',
    ]);
    expect(textTable(['a'], [])).toEqual(['(none)']);
  });
});
