/**
 * Runs a set of services in this process: parses config (exiting with every bad variable named),
 * creates the shared context, starts each service, and shuts all down gracefully on
 * SIGINT/SIGTERM (services in reverse order, then queues, pool and embedded database).
 */
import { loadConfig, ConfigError, type Config } from './shared/config.js';
import { closeContext, createContext } from './shared/context.js';
import { createLogger } from './shared/logger.js';
import type { ServiceHandle, ServiceStarter } from './shared/service.js';

export async function runServices(starters: Record<string, ServiceStarter>): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\nSee .env.example for every variable.\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config);
  const ctx = await createContext(config, logger).catch((err: unknown) => {
    logger.fatal({ err }, 'start-up failed');
    process.exit(1);
  });

  const handles: ServiceHandle[] = [];
  let shuttingDown = false;
  const shutdown = async (signal: string, code = 0) => {
    if (shuttingDown) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    shuttingDown = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('graceful shutdown timed out; exiting');
      void ctx.embedded?.stop().finally(() => process.exit(1));
    }, config.SHUTDOWN_TIMEOUT_MS);
    force.unref();
    for (const handle of [...handles].reverse()) {
      await handle.stop().catch((err: unknown) => logger.error({ err, service: handle.name }, 'stop failed'));
    }
    await closeContext(ctx).catch((err: unknown) => logger.error({ err }, 'closing resources failed'));
    logger.info('stopped');
    process.exit(code);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    for (const [name, start] of Object.entries(starters)) {
      handles.push(await start(ctx));
      logger.info({ service: name }, 'service started');
    }
  } catch (err) {
    logger.fatal({ err }, 'a service failed to start');
    await shutdown('startup-failure', 1);
  }
}
