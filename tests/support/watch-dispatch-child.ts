/**
 * The watchlist dispatcher in its own process, as a matcher replica runs it: configuration from
 * the environment the test gives it, the clock from WATCH_NOW. Its database connections are named
 * `watch-child` so the test can find them. Prints the outcome as JSON and exits.
 */
import { dispatchDueWatches } from '../../services/matcher/dispatch-watch-notices.js';
import { loadConfig } from '../../services/shared/config.js';
import { connectDatabase } from '../../services/shared/database/db.js';
import { createLogger } from '../../services/shared/logger.js';
import { QueueRuntime } from '../../services/shared/queues.js';

const config = loadConfig();
const logger = createLogger(config, 'watch-child');
const database = connectDatabase(config.DATABASE_URL!, { max: 2, applicationName: 'watch-child' });
const queues = new QueueRuntime({ kind: 'postgres', url: config.DATABASE_URL! }, logger);
const outcome = await dispatchDueWatches({ config, logger, database, queues }, new Date(process.env.WATCH_NOW!));
process.stdout.write(`${JSON.stringify(outcome)}\n`);
await queues.close();
await database.close();
