/**
 * `npm run demo`: the product with the demo auction site as its one source, offline. Runs the
 * demo site and every service in this one process (so one Ctrl-C stops all, in order: the API
 * and workers drain, the database stops, the site closes last), with the demo source enabled,
 * a crawl at start and frequent schedules, so a new user sees lots arrive, get scored and alert
 * within minutes. Creates a demo account and prints its login.
 */
import { selectServices } from '../services/all-services.js';
import { accountsFor } from '../services/accounts/accounts-service.js';
import { runServices } from '../services/runner.js';
import { ConfigError, layeredEnvironment, parseConfig, type Config } from '../services/shared/config.js';
import type { AppContext } from '../services/shared/context.js';
import { findUserByEmail, setUserZip } from '../services/shared/repositories/users-repository.js';
import type { ServiceStarter } from '../services/shared/service.js';
import { US_STATES } from '../services/shared/us-states.js';
import type { Walkthrough } from './demo-site/demo-auction.js';
import { startDemoSite } from './demo-site/demo-server.js';

type DemoSite = Awaited<ReturnType<typeof startDemoSite>>;

/** A local demo's login, printed on every start; nothing here is reachable beyond this machine. */
export const DEMO_LOGIN = { email: 'demo@dealradar.local', password: 'iron-ridge-demo-2026' };
/** Where the demo buyer is (Des Moines, Iowa: the middle of the demo's lots), so distances and prices delivered show at once. */
export const DEMO_ZIP = '50309';

// The demo's own defaults sit under `.env` and the environment (LOG_LEVEL=info brings the
// detail back); its source and schedules sit over them.
const DEMO_DEFAULTS = { LOG_LEVEL: 'warn' };
const demoOverrides = (siteUrl: string) => ({
  CRAWL_SOURCES: 'demo',
  DEMO_SITE_URL: siteUrl,
  CRAWL_ON_START: 'true',
  CRAWL_SCHEDULE: '*/3 * * * *',
  CRAWL_ENDING_SOON_SCHEDULE: '* * * * *',
});

function configOrExit(overrides: Record<string, string> = {}): Config {
  try {
    return parseConfig(layeredEnvironment({ defaults: DEMO_DEFAULTS, overrides }));
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\nSee .env.example for every variable.\n`);
    process.exit(1);
  }
}

/** Registers the demo account once; later starts find it and print the same login. */
async function ensureDemoAccount(ctx: AppContext): Promise<void> {
  const existing = await findUserByEmail(ctx.database.db, DEMO_LOGIN.email);
  if (existing) {
    if (!existing.zip) await setUserZip(ctx.database.db, existing.id, DEMO_ZIP);
    return;
  }
  await accountsFor(ctx).register({
    email: DEMO_LOGIN.email,
    password1: DEMO_LOGIN.password,
    password2: DEMO_LOGIN.password,
    first_name: 'Demo',
    last_name: 'Buyer',
    terms_accepted: true,
  });
  const created = await findUserByEmail(ctx.database.db, DEMO_LOGIN.email);
  if (created) await setUserZip(ctx.database.db, created.id, DEMO_ZIP);
}

/** A span of real hours in words: "12 minutes", "2 hours". */
const realTime = (hours: number) => (hours < 1.5 ? `${Math.max(1, Math.round(hours * 60))} minutes` : `${Math.round(hours)} hours`);

/**
 * The alert walkthrough, for the demo's own lots: the alert to create and the command that
 * publishes a bargain only that alert hears of (README "See it in one minute").
 */
function walkthroughLines(pick: Walkthrough | undefined, siteUrl: string, speed: number): string[] {
  const publish = (body: string) => `curl -X POST ${siteUrl}/_control/publish -H 'content-type: application/json' -d '${body}'`;
  if (!pick) return [`  Publish a lot now:  ${publish('{"price": 15000}')}`];
  const m = pick.lot.machine;
  const state = pick.state ? (US_STATES[pick.state] ?? pick.state) : null;
  return [
    `  Try an alert:       Alerts → Add Alert: Excavators${state ? `, Location ${state}` : ''}, e-mail, instant`,
    `  Then publish a bargain (${m.title}${state ? ` in ${state}` : ''}, at $${pick.price.toLocaleString('en-US')}, closing in ${pick.hoursLeft} demo hours${speed > 1 ? `: ${realTime(pick.hoursLeft / speed)} from now` : ''}):`,
    `                      ${publish(JSON.stringify({ lot_id: pick.lot.id, price: pick.price, hours_left: pick.hoursLeft }))}`,
    '  Read the e-mail:    npm run outbox   (within about three minutes)',
  ];
}

const base = configOrExit();
// The crawler needs the site's address in its configuration, so the site listens first, on the
// port asked for or one the OS gives it (never a port picked "free" and taken later: a race).
const site: DemoSite = await startDemoSite({ port: base.DEMO_SITE_PORT || 0, host: '127.0.0.1', sharedDir: base.SHARED_DIR, seed: base.DEMO_SITE_SEED, speed: base.DEMO_SITE_SPEED, lots: base.DEMO_SITE_LOTS });
const siteUrl = site.url;
const config = configOrExit(demoOverrides(siteUrl));

// The site is a service like the others: already started, stopped last, after the crawler.
const demoSite: ServiceStarter = async () => ({ name: 'demo-site', stop: () => site.close() });

await runServices(
  { 'demo-site': demoSite, ...selectServices(config.SERVICES) },
  {
    config,
    onStarted: async (ctx) => {
      await ensureDemoAccount(ctx);
      process.stdout.write(
        [
          '',
          `  Deal Radar:         ${config.APP_URL}   (crawls the demo site now, then every 3 minutes)`,
          `  Sign in with:       ${DEMO_LOGIN.email}  /  ${DEMO_LOGIN.password}`,
          `  Demo auction site:  ${siteUrl}/auctions   (seed ${config.DEMO_SITE_SEED}, clock ×${config.DEMO_SITE_SPEED}, ${config.DEMO_SITE_LOTS} lots)`,
          ...walkthroughLines(site?.auction.walkthrough(), siteUrl, config.DEMO_SITE_SPEED),
          '  Stop with Ctrl-C.',
          '',
          '',
        ].join('\n'),
      );
    },
  },
);

