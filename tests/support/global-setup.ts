/**
 * Once per test run: an embedded PostgreSQL in a child process (never in-process: its exit hook
 * would turn a failing run into exit code 0) with a migrated template database, and a
 * redis-server. A missing binary fails the run with how to install it.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { openSql, withDatabase } from '../../services/shared/database/connection-url.js';
import type { TestProject } from 'vitest/node';
import { runMigrations } from '../../services/shared/database/db.js';
import { startEmbeddedPostgres } from '../../services/shared/database/embedded-postgres.js';
import { startRedisServer } from './redis-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    templateDb: string;
    redisUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'deal-radar-test-'));
  const started = await Promise.allSettled([startEmbeddedPostgres({ dataDir }), startRedisServer()]);
  const [pgStart, redisStart] = started;
  if (pgStart.status === 'rejected' || redisStart.status === 'rejected') {
    // Stop whichever did start, or it outlives the failed run (and vitest waits on it).
    await Promise.allSettled(started.map((s) => (s.status === 'fulfilled' ? s.value.stop() : undefined)));
    throw pgStart.status === 'rejected' ? pgStart.reason : (redisStart as PromiseRejectedResult).reason;
  }
  const pg = pgStart.value;
  const redis = redisStart.value;

  const templateDb = 'dealradar_template';
  const admin = openSql(withDatabase(pg.url, 'postgres'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${templateDb}`);
  await admin.end();
  await runMigrations(withDatabase(pg.url, templateDb));

  project.provide('pgAdminUrl', withDatabase(pg.url, 'postgres'));
  project.provide('templateDb', templateDb);
  project.provide('redisUrl', redis.url);

  return async () => {
    await Promise.allSettled([pg.stop(), redis.stop()]);
  };
}
