/**
 * `npm run demo`: the product with the demo auction site as its one source, offline. Starts the
 * demo site, then the launcher (services/main.ts) with the demo source enabled, a crawl at
 * start and frequent schedules, so a new user sees lots arrive, get scored and alert within
 * minutes. Ctrl-C stops both.
 */
import { spawn } from 'node:child_process';
import { loadConfig } from '../services/shared/config.js';
import { startDemoSite } from './demo-site/demo-server.js';

const config = loadConfig();
const site = await startDemoSite({ port: config.DEMO_SITE_PORT, sharedDir: config.SHARED_DIR, seed: config.DEMO_SITE_SEED, speed: config.DEMO_SITE_SPEED, lots: config.DEMO_SITE_LOTS });
process.stdout.write(
  [
    '',
    `  Demo auction site:  ${site.url}/auctions   (seed ${config.DEMO_SITE_SEED}, clock ×${config.DEMO_SITE_SPEED}, ${config.DEMO_SITE_LOTS} lots)`,
    `  Publish a lot now:  curl -X POST ${site.url}/_control/publish -H 'content-type: application/json' -d '{"price": 15000}'`,
    `  Deal Radar:         ${config.APP_URL}   (crawls the demo site now, then every 3 minutes)`,
    '',
    '',
  ].join('\n'),
);

const child = spawn(process.execPath, ['--import', 'tsx', 'services/main.ts'], {
  stdio: 'inherit',
  // The launcher reads its configuration from its environment; the demo adds its own on top.
  env: {
    ...process.env,
    CRAWL_SOURCES: 'demo',
    DEMO_SITE_URL: site.url,
    CRAWL_ON_START: 'true',
    CRAWL_SCHEDULE: '*/3 * * * *',
    CRAWL_ENDING_SOON_SCHEDULE: '* * * * *',
  },
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => {
  void site.close().then(() => process.exit(code ?? 0));
});
