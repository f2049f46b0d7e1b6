/**
 * Runs a set of services in this process: parses config (exiting with every bad variable named),
 * creates the shared context, starts each service, and shuts all down gracefully on
 * SIGINT/SIGTERM (services in reverse order, then queues, pool and embedded database).
 */
import { loadConfig, ConfigError, type Config } from './shared/config.js';
import { closeContext, createContext, type AppContext } from './shared/context.js';
import { startHealthServer, type HealthServer } from './shared/health-server.js';
import { createLogger } from './shared/logger.js';
import { registerContextMetrics } from './shared/metrics.js';
import type { ServiceHandle, ServiceStarter } from './shared/service.js';

/**
 * A terminal's Ctrl-C reaches every process of the group, and npm forwards the same signal to
 * its child again: signals this close together are one request to stop, not the operator's
 * second "stop now".
 */
export const DUPLICATE_SIGNAL_WINDOW_MS = 1500;

export type RunOptions = {
  /** The configuration to run with (default: the process's environment and `.env`). */
  config?: Config;
  /** Runs once every service has started (the launcher's banner, the demo's account). */
  onStarted?: (ctx: AppContext) => Promise<void>;
};

export async function runServices(
  starters: Record<string, ServiceStarter> | ((config: Config) => Record<string, ServiceStarter>),
  opts: RunOptions = {},
): Promise<void> {
  let config: Config;
  try {
    config = opts.config ?? loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\nSee .env.example for every variable.\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config);
  const selected = typeof starters === 'function' ? starters(config) : starters;

  const handles: ServiceHandle[] = [];
  let ctx: AppContext | undefined;
  let healthServer: HealthServer | undefined;
  let firstSignalAt: number | undefined;
  let stopping: Promise<void> | undefined;
  const shutdown = (signal: string, code = 0): Promise<void> => {
    if (stopping) {
      if (firstSignalAt !== undefined && Date.now() - firstSignalAt > DUPLICATE_SIGNAL_WINDOW_MS) {
        logger.warn({ signal }, 'second signal: exiting now');
        void (ctx?.embedded?.stop() ?? Promise.resolve()).finally(() => process.exit(1));
      }
      return stopping;
    }
    firstSignalAt = Date.now();
    stopping = (async () => {
      logger.info({ signal }, 'shutting down');
      const force = setTimeout(() => {
        logger.error({ timeoutMs: config.SHUTDOWN_TIMEOUT_MS }, 'graceful shutdown timed out; exiting');
        void (ctx?.embedded?.stop() ?? Promise.resolve()).finally(() => process.exit(1));
      }, config.SHUTDOWN_TIMEOUT_MS);
      force.unref();
      for (const handle of [...handles].reverse()) {
        await handle.stop().catch((err: unknown) => logger.error({ err, service: handle.name }, 'stop failed'));
      }
      await healthServer?.close();
      if (ctx) await closeContext(ctx).catch((err: unknown) => logger.error({ err }, 'closing resources failed'));
      logger.info('stopped');
      process.exit(code);
    })();
    return stopping;
  };
  // Installed before anything starts: a signal during start-up (the embedded database
  // initialising, migrations) still stops what has started, the database last.
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  try {
    ctx = await createContext(config, logger);
    registerContextMetrics(ctx);
  } catch (err) {
    if (stopping) return;
    logger.fatal({ err }, 'start-up failed');
    process.exit(1);
  }

  try {
    for (const [name, start] of Object.entries(selected)) {
      if (stopping) return;
      handles.push(await start(ctx));
      logger.info({ service: name }, 'service started');
    }
    // The API serves /api/health/ and /metrics itself; a process without it (a worker's own
    // entry point, a container) serves them on its own small endpoint.
    if (!('api' in selected) && !stopping) {
      healthServer = await startHealthServer(ctx, Object.keys(selected));
      logger.info({ url: healthServer.url }, 'health and metrics endpoint listening');
    }
    if (!stopping) await opts.onStarted?.(ctx);
  } catch (err) {
    if (stopping) return;
    logger.fatal({ err }, 'a service failed to start');
    await shutdown('startup-failure', 1);
  }
}
