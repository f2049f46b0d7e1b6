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
  const config: Config = parseConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: testDb.url,
    ...(backend === 'redis' ? { REDIS_URL: redisUrl } : {}),
    APP_URL: 'http://localhost:8080',
    JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-signing',
    SHARED_DIR: process.env.SHARED_DIR ?? '../shared',
    ...opts.env,
  });
  const logger = createLogger(config, 'test');
  const database = connectDatabase(testDb.url, { max: 5 });
  const queues = new QueueRuntime(
    backend === 'redis' ? { kind: 'redis', url: redisUrl } : { kind: 'postgres', url: testDb.url },
    logger,
    { prefix: backend === 'redis' ? `t${randomBytes(4).toString('hex')}` : undefined, poolMax: 3 },
  );
  return {
    config,
    logger,
    database,
    queues,
    async close() {
      await queues.close();
      await database.close();
      await testDb.drop();
    },
  };
}
