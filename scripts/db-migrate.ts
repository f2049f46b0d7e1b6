/** `npm run db:migrate`: applies pending migrations to DATABASE_URL, or to the embedded database. */
import { loadConfig } from '../services/shared/config.js';
import { runMigrations } from '../services/shared/database/db.js';
import { startEmbeddedPostgres } from '../services/shared/database/embedded-postgres.js';

const config = loadConfig();
const embedded = config.DATABASE_URL ? undefined : await startEmbeddedPostgres({ dataDir: config.DATA_DIR });
try {
  await runMigrations(config.DATABASE_URL ?? embedded!.url);
  process.stdout.write('migrations applied\n');
} finally {
  await embedded?.stop();
}
