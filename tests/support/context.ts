/**
 * A real AppContext for integration tests: its own database (cloned from the template), the
 * chosen queue backend (PostgreSQL in that database, or the run's redis-server with a unique
 * prefix), a silent logger. `close()` releases everything.
 */
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { parseConfig, type Config } from '../../services/shared/config.js';
import type { AppContext } from '../../services/shared/context.js';
import { connectDatabase } from '../../services/shared/database/db.js';
import { createLogger } from '../../services/shared/logger.js';
import { QueueRuntime } from '../../services/shared/queues.js';
import { createTestDatabase } from './database.js';

export type QueueBackendKind = 'postgres' | 'redis';

export type TestContext = AppContext & { close(): Promise<void> };

export async function createTestContext(
  opts: { queueBackend?: QueueBackendKind; env?: Record<string, string> } = {},
): Promise<TestContext> {
  const testDb = await createTestDatabase();
  const backend = opts.queueBackend ?? 'postgres';
  const redisUrl = inject('redisUrl');
  const ctx = contextOn(testDb.url, {
    env: {
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      ...(backend === 'redis' ? { REDIS_URL: redisUrl } : {}),
      APP_URL: 'http://localhost:8080',
      JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-signing',
      SHARED_DIR: process.env.SHARED_DIR ?? '../shared',
      ...opts.env,
    },
    queues: backend === 'redis' ? { kind: 'redis', url: redisUrl, prefix: `t${randomBytes(4).toString('hex')}` } : undefined,
    poolMax: 3,
  });
  return {
    ...ctx,
    async close() {
      await ctx.close();
      await testDb.drop();
    },
  };
}

/**
 * An AppContext on an existing database, its configuration parsed from `env` (DATABASE_URL is
 * the database's), its queues in that database unless `queues` names a Redis (with a prefix
 * that isolates the run). `close()` releases the connections, not the database. Also used
 * outside vitest (the fault harness under `npm run soak`), so nothing here injects.
 */
export function contextOn(
  url: string,
  opts: { env: Record<string, string>; queues?: { kind: 'redis'; url: string; prefix: string }; poolMax?: number; databaseMax?: number; logName?: string },
): TestContext {
  const config: Config = parseConfig({ ...opts.env, DATABASE_URL: url });
  const logger = createLogger(config, opts.logName ?? 'test');
  const database = connectDatabase(url, { max: opts.databaseMax ?? 5 });
  const queues = opts.queues
    ? new QueueRuntime({ kind: 'redis', url: opts.queues.url }, logger, { prefix: opts.queues.prefix, poolMax: opts.poolMax })
    : new QueueRuntime({ kind: 'postgres', url }, logger, { poolMax: opts.poolMax });
  return {
    config,
    logger,
    database,
    queues,
    async close() {
      await queues.close();
      await database.close();
    },
  };
}
