import type { AppContext } from '../../services/shared/context.js';

/** One operator command. `run` gets the shared context (database, queues) and its own arguments. */
export type CliCommand = {
  name: string;
  summary: string;
  usage?: string;
  /** Commands that only print and need no database set this to false. */
  needsContext?: boolean;
  run(ctx: AppContext, args: string[]): Promise<number | void>;
};

/** `--name value` / `--flag` arguments into a map; the rest stay positional. */
export function parseArgs(args: string[]): { flags: Record<string, string | true>; positional: string[] } {
  const flags: Record<string, string | true> = {};
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith('--')) {
      const [key, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
      const next = args[i + 1];
      if (inline !== undefined) flags[key] = inline;
      else if (next !== undefined && !next.startsWith('--')) {
        flags[key] = next;
        i++;
      } else flags[key] = true;
    } else positional.push(arg);
  }
  return { flags, positional };
}
