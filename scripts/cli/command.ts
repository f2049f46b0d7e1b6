import type { AppContext } from '../../services/shared/context.js';

/** A flag a command takes: `value` ones read the next argument (or `--name=value`), `boolean` ones stand alone. */
export type FlagSpec = { kind: 'value' | 'boolean'; help?: string };

/** One operator command. `run` gets the shared context (database, queues) and its own arguments. */
export type CliCommand = {
  name: string;
  summary: string;
  usage?: string;
  /**
   * The flags it takes, with a line of help each. Without, they are read from `usage`
   * (`--name <x>` or `--name word` takes a value, `[--name]` stands alone).
   */
  flags?: Record<string, FlagSpec>;
  /** How many plain arguments it takes (default: as many `<…>` as `usage` names outside flags). */
  positional?: number;
  /** Commands that only print and need no database set this to false. */
  needsContext?: boolean;
  run(ctx: AppContext, args: string[]): Promise<number | void>;
};

/** A command line the command does not take: the CLI prints the message and the command's usage, exit 2. */
export class CliUsageError extends Error {
  override name = 'CliUsageError';
}

export type ParsedArgs = { flags: Record<string, string | true>; positional: string[] };

/**
 * `--name value` / `--name=value` / `--flag` arguments into a map; the rest stay positional.
 * With `spec` it is strict: an unknown flag, a missing value, a value given to a flag that takes
 * none or a repeated flag throws CliUsageError, and a boolean flag never swallows the argument
 * after it. (The CLI runner checks every command's arguments against its spec before `run`, so
 * commands calling this without one get strict flags too.)
 */
export function parseArgs(args: string[], spec?: Record<string, FlagSpec>): ParsedArgs {
  const flags: Record<string, string | true> = {};
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const key = eq >= 0 ? arg.slice(2, eq) : arg.slice(2);
    const inline = eq >= 0 ? arg.slice(eq + 1) : undefined;
    const next = args[i + 1];
    if (!spec) {
      if (inline !== undefined) flags[key] = inline;
      else if (next !== undefined && !next.startsWith('--')) {
        flags[key] = next;
        i++;
      } else flags[key] = true;
      continue;
    }
    const flag = spec[key];
    if (!flag) throw new CliUsageError(`Unknown option --${key}.`);
    if (key in flags) throw new CliUsageError(`--${key} is given twice.`);
    if (flag.kind === 'boolean') {
      if (inline !== undefined) throw new CliUsageError(`--${key} takes no value.`);
      flags[key] = true;
    } else if (inline !== undefined) {
      if (inline === '') throw new CliUsageError(`--${key} needs a value.`);
      flags[key] = inline;
    } else if (next !== undefined && !next.startsWith('--')) {
      flags[key] = next;
      i++;
    } else throw new CliUsageError(`--${key} needs a value.`);
  }
  return { flags, positional };
}

/** The flags and plain-argument count a usage line names (for commands that declare no `flags`). */
export function specFromUsage(name: string, usage = ''): { flags: Record<string, FlagSpec>; positional: number } {
  // `<SalesID,SalePrice csv>` is one placeholder; brackets and alternatives only group.
  const tokens = usage
    .replace(/<[^>]*>/g, '<value>')
    .replace(/[[\]]/g, ' ')
    .split(/\s+/)
    .filter((t) => t && t !== '|' && t !== '…' && t !== '...');
  if (tokens[0] === name) tokens.shift();
  const flags: Record<string, FlagSpec> = {};
  let positional = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.startsWith('--')) {
      const next = tokens[i + 1];
      const takesValue = next !== undefined && !next.startsWith('--');
      flags[token.slice(2).split('=')[0]!] = { kind: takesValue ? 'value' : 'boolean' };
      if (takesValue) i++;
    } else if (token.startsWith('<')) positional++;
  }
  return { flags, positional };
}

/** What a command accepts: its declared flags, else those its usage names. */
export function commandSpec(command: CliCommand): { flags: Record<string, FlagSpec>; positional: number } {
  const fromUsage = specFromUsage(command.name, command.usage);
  return { flags: command.flags ?? fromUsage.flags, positional: command.positional ?? (command.flags ? 0 : fromUsage.positional) };
}

/** Checks a command line against the command's spec; throws CliUsageError naming the problem. */
export function checkArgs(command: CliCommand, args: string[]): ParsedArgs {
  const spec = commandSpec(command);
  const parsed = parseArgs(args, spec.flags);
  if (parsed.positional.length > spec.positional) {
    throw new CliUsageError(`Unexpected argument "${parsed.positional[spec.positional]}".`);
  }
  return parsed;
}

/** `--help` for one command: usage, summary, then each flag with its help. */
export function commandHelp(command: CliCommand): string {
  const { flags } = commandSpec(command);
  const usage = (command.usage ?? '').replace(new RegExp(`^${command.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*`), '');
  const lines = [`Usage: npm run cli -- ${command.name}${usage ? ` ${usage}` : ''}`, '', command.summary];
  const described = Object.entries(flags).filter(([, f]) => f.help);
  if (described.length > 0) {
    lines.push('', 'Options:');
    const width = Math.max(...described.map(([k, f]) => k.length + (f.kind === 'value' ? 8 : 0)));
    for (const [key, flag] of described) lines.push(`  ${`--${key}${flag.kind === 'value' ? ' <value>' : ''}`.padEnd(width + 2)}  ${flag.help}`);
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
