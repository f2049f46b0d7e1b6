/**
 * The set-up the in-process benchmarks share (bench:match, bench:notify, bench:remind, and
 * bench:api's percentiles): a fresh embedded PostgreSQL in a random folder under --dir, migrated,
 * with a pool, removed again at the end; the production-mode config their services run on; the
 * context (logger, PostgreSQL queue backend) the services start with; and the percentile their
 * figures are read with. Talks only to 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { parseConfig, type Config } from '../../services/shared/config.js';
import type { AppContext } from '../../services/shared/context.js';
import { connectDatabase, runMigrations, type Database } from '../../services/shared/database/db.js';
import { startEmbeddedPostgres } from '../../services/shared/database/embedded-postgres.js';
import { createLogger } from '../../services/shared/logger.js';
import { QueueRuntime } from '../../services/shared/queues.js';

export type BenchDatabase = {
  url: string;
  /** The run's own data folder (removed by `close`). */
  dir: string;
  database: Database;
  /** Closes the pool, stops PostgreSQL and removes the folder. */
  close(): Promise<void>;
};

/** A fresh PostgreSQL for one run, under `parentDir/<random>`, migrated, with a pool of `poolSize`. */
export async function startBenchDatabase(parentDir: string, poolSize = 10): Promise<BenchDatabase> {
  const dir = path.join(parentDir, randomBytes(4).toString('hex'));
  const pg = await startEmbeddedPostgres({ dataDir: dir });
  const database = connectDatabase(pg.url, { max: poolSize });
  const close = async () => {
    await database.close().catch(() => {});
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await runMigrations(pg.url);
  } catch (err) {
    await close();
    throw err;
  }
  return { url: pg.url, dir, database, close };
}

/** The config a bench's services run on: production mode, quiet, its own database and folder, plus `extra`. */
export function benchConfig(bench: Pick<BenchDatabase, 'url' | 'dir'>, extra: Record<string, string> = {}): Config {
  return parseConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATABASE_URL: bench.url,
    DATA_DIR: bench.dir,
    JWT_SECRET: randomBytes(32).toString('hex'),
    APP_URL: 'http://127.0.0.1:8080',
    ...extra,
  });
}

/** What the services start with: the config, a logger named for the bench, the pool, queues on PostgreSQL. */
export function benchContext(bench: Pick<BenchDatabase, 'url' | 'database'>, config: Config, name: string): AppContext {
  const logger = createLogger(config, name);
  return { config, logger, database: bench.database, queues: new QueueRuntime({ kind: 'postgres', url: bench.url }, logger) };
}

/** The p-th percentile of sorted values (nearest rank; NaN when there are none). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
