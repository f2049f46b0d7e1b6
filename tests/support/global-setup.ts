/**
 * Once per test run: an embedded PostgreSQL in a child process (never in-process: its exit hook
 * would turn a failing run into exit code 0) with a migrated template database, and a
 * redis-server. A missing binary fails the run with how to install it.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
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
  const [pg, redis] = await Promise.all([startEmbeddedPostgres({ dataDir }), startRedisServer()]);

  const templateDb = 'dealradar_template';
  const admin = postgres(pg.url.replace(/\/dealradar$/, '/postgres'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${templateDb}`);
  await admin.end();
  await runMigrations(pg.url.replace(/\/dealradar$/, `/${templateDb}`));

  project.provide('pgAdminUrl', pg.url.replace(/\/dealradar$/, '/postgres'));
  project.provide('templateDb', templateDb);
  project.provide('redisUrl', redis.url);

  return async () => {
    await Promise.allSettled([pg.stop(), redis.stop()]);
  };
}
