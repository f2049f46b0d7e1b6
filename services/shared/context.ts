/**
 * The resources a process shares between its services: configuration, logger, database and
 * queues. With no DATABASE_URL an embedded PostgreSQL is started under DATA_DIR.
 */
import { mkdirSync } from 'node:fs';
import type { Config } from './config.js';
import { connectDatabase, runMigrations, type Database } from './database/db.js';
import { findRunningEmbeddedPostgres, startEmbeddedPostgres, type EmbeddedPostgres } from './database/embedded-postgres.js';
import type { Logger } from './logger.js';
import { QueueRuntime } from './queues.js';
import { otherClientConnections } from './repositories/operations-repository.js';

export type AppContext = {
  config: Config;
  logger: Logger;
  database: Database;
  queues: QueueRuntime;
  /** Present when this process started the embedded database. */
  embedded?: EmbeddedPostgres;
};

export async function createContext(
  config: Config,
  logger: Logger,
  opts: { migrate?: boolean; /** Operator commands join the product's running embedded database. */ reuseRunning?: boolean } = {},
): Promise<AppContext> {
  let embedded: EmbeddedPostgres | undefined;
  let url = config.DATABASE_URL ?? (opts.reuseRunning ? findRunningEmbeddedPostgres(config.DATA_DIR) : undefined);
  if (!url) {
    // Only the embedded database needs a local folder: with DATABASE_URL nothing is created,
    // so a read-only image runs as any user.
    mkdirSync(config.DATA_DIR, { recursive: true });
    logger.info({ dataDir: config.DATA_DIR }, 'starting embedded PostgreSQL');
    embedded = await startEmbeddedPostgres({
      dataDir: config.DATA_DIR,
      port: config.EMBEDDED_PG_PORT,
      onLog: (line) => logger.debug({ component: 'embedded-postgres' }, line),
    });
    url = embedded.url;
    logger.info({ socket: embedded.socketDir, ...(embedded.tcp ? { port: embedded.port } : {}) }, 'embedded PostgreSQL ready');
  }
  try {
    if (opts.migrate !== false) await runMigrations(url);
    const database = connectDatabase(url, { max: config.DATABASE_POOL_MAX });
    const queues = new QueueRuntime(
      config.REDIS_URL ? { kind: 'redis', url: config.REDIS_URL } : { kind: 'postgres', url },
      logger,
      { lockDuration: config.QUEUE_LOCK_MS, stalledInterval: config.QUEUE_STALLED_INTERVAL_MS },
    );
    return { config, logger, database, queues, embedded };
  } catch (err) {
    await embedded?.stop();
    throw err;
  }
}

/** Closes in dependency order: queues (workers finish or release jobs), pool, then the database. */
export async function closeContext(ctx: AppContext): Promise<void> {
  await ctx.queues.close();
  // The queue backend's pg clients may still be ending when close() resolves; stopping the
  // embedded server under them would end each with "terminating connection" errors. Wait (a
  // little) until only this pool is connected.
  if (ctx.embedded) await waitForOtherClients(ctx, 5000).catch(() => {});
  await ctx.database.close();
  await ctx.embedded?.stop();
}

async function waitForOtherClients(ctx: AppContext, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await otherClientConnections(ctx.database.sql)) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
