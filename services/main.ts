/**
 * The launcher: runs every service (or those named in SERVICES) in one process, sharing one
 * database pool and queue connection set. The embedded PostgreSQL, when used, is its child.
 * Once running it prints a short banner: the app's address, the sources and their first crawl.
 */
import { selectServices } from './all-services.js';
import { runServices } from './runner.js';
import { bannerFacts, formatBanner } from './startup-banner.js';

await runServices((config) => selectServices(config.SERVICES), {
  onStarted: async (ctx) => {
    process.stdout.write(formatBanner(await bannerFacts(ctx)));
  },
});
