/**
 * A crawl worker in its own process, as a crawler replica runs: configuration from the
 * environment the test gives it, short stalled-job timings from argv. Prints "ready" once
 * consuming; the crash test kills it with SIGKILL mid-crawl.
 */
import { loadConfig } from '../../services/shared/config.js';
import { createContext } from '../../services/shared/context.js';
import { createLogger } from '../../services/shared/logger.js';
import { startCrawlWorker } from '../../services/crawler/index.js';

const [lockDuration, stalledInterval] = process.argv.slice(2).map(Number);
const config = loadConfig();
const ctx = await createContext(config, createLogger(config, 'crawl-child'), { migrate: false });
await startCrawlWorker(ctx, { lockDuration, stalledInterval });
process.stdout.write('ready\n');
