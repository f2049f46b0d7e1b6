/**
 * The operator CLI: `npm run cli -- <command> [options]`. Joins the running product's embedded
 * database when there is one (or DATABASE_URL), else starts the embedded database for the command.
 */
import { ConfigError, loadConfig } from '../services/shared/config.js';
import { closeContext, createContext } from '../services/shared/context.js';
import { createLogger } from '../services/shared/logger.js';
import { COMMANDS } from './cli/index.js';

function help(): void {
  process.stdout.write('Deal Radar operator CLI\n\nUsage: npm run cli -- <command> [options]\n\nCommands:\n');
  for (const c of COMMANDS) process.stdout.write(`  ${c.name.padEnd(16)} ${c.summary}\n${c.usage ? `  ${''.padEnd(16)} ${c.usage}\n` : ''}`);
}

export async function runCli(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === 'help' || name === '--help') {
    help();
    return name ? 0 : 1;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`Unknown command "${name}".\n\n`);
    help();
    return 2;
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
  const logger = createLogger({ LOG_LEVEL: config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL });
  const ctx = await createContext(config, logger, { reuseRunning: true });
  try {
    return (await command.run(ctx, args)) ?? 0;
  } finally {
    await closeContext(ctx);
  }
}

process.exit(await runCli(process.argv.slice(2)));
