/**
 * The operator CLI: `npm run cli -- <command> [options]`. Joins the running product's embedded
 * database when there is one (or DATABASE_URL), else starts the embedded database for the command.
 * Every command's flags are checked before it runs (unknown ones are errors, with its usage);
 * `--help` after any command shows its options.
 */
import type { AppContext } from '../services/shared/context.js';
import { ConfigError, loadConfig } from '../services/shared/config.js';
import { closeContext, createContext } from '../services/shared/context.js';
import { errorMessage } from '../services/shared/errors.js';
import { createLogger } from '../services/shared/logger.js';
import { checkArgs, CliUsageError, commandHelp, type CliCommand } from './cli/command.js';
import { COMMANDS } from './cli/index.js';
import { missingSharedDataMessage } from './cli/shared-data.js';

function help(): void {
  process.stdout.write('Deal Radar operator CLI\n\nUsage: npm run cli -- <command> [options]   (`<command> --help` for its options)\n\nCommands:\n');
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  for (const c of COMMANDS) process.stdout.write(`  ${c.name.padEnd(width)}  ${c.summary}\n`);
}

function usageError(command: CliCommand, message: string): number {
  process.stderr.write(`${message}\n\n${commandHelp(command)}`);
  return 2;
}

export async function runCli(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    const about = name === 'help' ? COMMANDS.find((c) => c.name === args[0]) : undefined;
    if (about) process.stdout.write(commandHelp(about));
    else help();
    return name ? 0 : 1;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`Unknown command "${name}".\n\n`);
    help();
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  try {
    checkArgs(command, args);
  } catch (err) {
    if (err instanceof CliUsageError) return usageError(command, err.message);
    throw err;
  }
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    throw err;
  }
  // A file stream that fails to open under SHARED_DIR can throw outside any await (an 'error'
  // event nobody listens to): it still ends in the message, not a stack trace.
  process.on('uncaughtException', (err) => {
    process.stderr.write(missingSharedDataMessage(err, config.SHARED_DIR) ?? `${err.stack ?? String(err)}\n`);
    process.exit(1);
  });
  const logger = createLogger({ LOG_LEVEL: config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL });
  let ctx: AppContext | undefined;
  try {
    if (command.needsContext === false) return (await command.run(undefined as never, args)) ?? 0;
    try {
      ctx = await createContext(config, logger, { reuseRunning: true });
    } catch (err) {
      process.stderr.write(`Could not open the database: ${errorMessage(err)}\n`);
      return 1;
    }
    return (await command.run(ctx, args)) ?? 0;
  } catch (err) {
    if (err instanceof CliUsageError) return usageError(command, err.message);
    const missing = missingSharedDataMessage(err, config.SHARED_DIR);
    if (missing) {
      process.stderr.write(missing);
      return 1;
    }
    throw err;
  } finally {
    if (ctx) await closeContext(ctx);
  }
}

process.exit(await runCli(process.argv.slice(2)));
