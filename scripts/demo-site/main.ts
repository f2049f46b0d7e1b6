/**
 * `npm run demo:site`: the demo auction site alone (DEMO_SITE_PORT, DEMO_SITE_HOST, DEMO_SITE_URL,
 * DEMO_SITE_CRAWL_DELAY, DEMO_SITE_SEED, DEMO_SITE_SPEED, DEMO_SITE_LOTS), until Ctrl-C.
 */
import { loadConfig } from '../../services/shared/config.js';
import { startDemoSite } from './demo-server.js';

const config = loadConfig();
// In its own container (docker-compose.yml's demo-site) it listens on every address and its pages
// link to DEMO_SITE_URL, the address the crawler reaches it by.
const site = await startDemoSite({
  port: config.DEMO_SITE_PORT,
  host: config.DEMO_SITE_HOST,
  publicUrl: config.DEMO_SITE_URL,
  crawlDelaySeconds: config.DEMO_SITE_CRAWL_DELAY,
  sharedDir: config.SHARED_DIR,
  seed: config.DEMO_SITE_SEED,
  speed: config.DEMO_SITE_SPEED,
  lots: config.DEMO_SITE_LOTS,
});
process.stdout.write(`Demo auction site on ${site.url}/auctions (seed ${config.DEMO_SITE_SEED}, clock ×${config.DEMO_SITE_SPEED}, ${config.DEMO_SITE_LOTS} lots)\n`);
const stop = () => void site.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
