/**
 * `npm run compose:smoke [-- --pull] [-- --keep] [-- --compose "docker compose"]`: the compose stack
 * run for real on this host's Docker engine (issue 40). Builds the images, starts PostgreSQL, Redis,
 * the demo auction site and every service as docker-compose.yml defines them, then checks, one line
 * each: every health check healthy within 3 minutes; the API answers health, list and detail; a
 * crawl of the demo site stores listings; the scorer imports the sales histories, trains and scores;
 * an instant alert's e-mail reaches the outbox; `restart` keeps every row; three crawler replicas
 * share the site's per-host limits; `down` leaves nothing. Closes with `N passed, N failed`.
 *
 * Without a Docker engine (or a Compose CLI) it says why and exits 0 having counted nothing.
 * Base images missing on the host are built from Debian's packages (scripts/compose/images.ts);
 * `--pull` tries the registry first. The stack runs as its own project (`dealradarsmoke`) with its
 * own settings file, publishes the API on 127.0.0.1 only, and crawls only its demo-site container:
 * nothing talks to any host but the stack's containers and 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { childEnvironment } from '../services/shared/config.js';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from './cli/command.js';
import { prepareBaseImages } from './compose/images.js';
import { SERVICES, SmokeChecks } from './compose/smoke-checks.js';
import { smokeEnvFile } from './compose/smoke-rules.js';
import { ComposeStack, dockerEngine, findCompose } from './compose/stack.js';

const HEALTHY_WITHIN_MS = 3 * 60_000;
/** The demo site reads its catalog from the sales files before it listens. */
const DEMO_SITE_WITHIN_MS = 6 * 60_000;
const repo = path.resolve(import.meta.dirname, '..');
const { flags } = parseArgs(process.argv.slice(2), {
  pull: { kind: 'boolean', help: 'pull base images missing on the host before building stand-ins' },
  keep: { kind: 'boolean', help: 'leave the stack running at the end (no down check)' },
  compose: { kind: 'value', help: 'the Compose CLI, e.g. "docker compose" or docker-compose' },
  project: { kind: 'value', help: 'the compose project name (default dealradarsmoke)' },
});

const say = (line: string) => process.stdout.write(`${line}\n`);
const results: boolean[] = [];
let blocked: string | null = null;

async function check(name: string, run: () => Promise<string>): Promise<boolean> {
  if (blocked) {
    say(`FAIL  ${name}: not run (${blocked})`);
    results.push(false);
    return false;
  }
  const started = Date.now();
  try {
    const detail = await run();
    say(`PASS  ${name}: ${detail}`);
    results.push(true);
    return true;
  } catch (err) {
    say(`FAIL  ${name} (after ${Math.round((Date.now() - started) / 1000)} s): ${err instanceof Error ? err.message : String(err)}`);
    results.push(false);
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const engine = await dockerEngine();
if ('problem' in engine) {
  say(`compose smoke not run: ${engine.problem}. It needs a Docker engine (docs/operations.md, "The compose smoke").`);
  process.exit(0);
}
const cli = await findCompose(typeof flags.compose === 'string' ? flags.compose : undefined);
if (!cli) {
  say('compose smoke not run: neither `docker compose` nor `docker-compose` answers on this host.');
  process.exit(0);
}
say(`compose smoke, ${new Date().toISOString()}: Docker engine ${engine.version}, ${cli.argv.join(' ')} ${cli.version} (Compose v${cli.generation})`);

const dir = mkdtempSync(path.join(os.tmpdir(), 'deal-radar-compose-smoke-'));
const envFile = path.join(dir, 'smoke.env');
const apiPort = await freePort();
writeFileSync(envFile, smokeEnvFile({ jwtSecret: randomBytes(36).toString('base64url'), apiPublish: `127.0.0.1:${apiPort}` }));
const project = typeof flags.project === 'string' ? flags.project : 'dealradarsmoke';
const stack = new ComposeStack(
  cli,
  project,
  envFile,
  // The classic builder: BuildKit would fetch its frontend from a registry. COMPOSE_PROFILES
  // brings in the demo site (profile `demo`).
  childEnvironment({ DEAL_RADAR_ENV_FILE: envFile, COMPOSE_PROFILES: 'demo', DOCKER_BUILDKIT: '0', COMPOSE_DOCKER_CLI_BUILD: '0' }),
  repo,
);
const checks = new SmokeChecks(stack, `http://127.0.0.1:${apiPort}`);

let stop = false;
const interrupted = () => {
  if (stop) process.exit(130);
  stop = true;
  say('interrupted: taking the stack down');
  void stack.compose(['down', '-v', '--remove-orphans', '-t', '30']).then(() => process.exit(130));
};
process.on('SIGINT', interrupted);
process.on('SIGTERM', interrupted);
// A fault of the smoke itself still takes its stack down.
process.on('uncaughtException', (err) => {
  say(`FAIL  the smoke itself: ${err.stack ?? err.message}`);
  void stack.compose(['down', '-v', '--remove-orphans', '-t', '30']).then(() => process.exit(1));
});

try {
  await check('compose file', async () => {
    await stack.composeOrThrow(['config', '-q']);
    return `\`${cli.argv.join(' ')} config\` accepts docker-compose.yml (${SERVICES.length} services with the demo profile)`;
  });
  await check('images', async () => {
    const plan = await prepareBaseImages(stack, { pull: flags.pull === true, repo });
    Object.assign(stack.env, plan.env);
    const started = Date.now();
    // Both targets; every other service runs one of these two images.
    await stack.composeOrThrow(['build', 'api', 'crawler'], 40 * 60_000);
    return `built deal-radar:latest (app) and deal-radar-crawler:latest (crawler) in ${Math.round((Date.now() - started) / 1000)} s on ${plan.lines.join(', ')}`;
  });
  if (results.includes(false)) blocked = 'the stack could not be built';

  await check('demo site up', async () => {
    // The test's stand-in auction site first (not part of the product): the crawler crawls its
    // only source as it starts, and reads the site's robots.txt then.
    const started = Date.now();
    await stack.composeOrThrow(['up', '-d', 'postgres', 'redis', 'demo-site']);
    await checks.waitHealthy(DEMO_SITE_WITHIN_MS, {}, ['postgres', 'redis', 'demo-site']);
    return `postgres, redis and the demo site healthy ${Math.round((Date.now() - started) / 1000)} s after \`up\``;
  });
  if (!blocked && results.at(-1) === false) blocked = 'the demo site did not come up';
  await check('healthy within 3 min', async () => {
    const upAt = Date.now();
    await stack.composeOrThrow(['up', '-d']);
    const all = await checks.waitHealthy(HEALTHY_WITHIN_MS - (Date.now() - upAt));
    return `all ${all.length} containers healthy ${Math.round((Date.now() - upAt) / 1000)} s after \`up\` (${all.map((c) => c.service).join(', ')})`;
  });
  if (!blocked && results.at(-1) === false) blocked = 'the stack did not come up healthy';

  await check('crawl stores listings', () => checks.crawlStoresListings());
  await check('API answers', () => checks.apiAnswers());
  await check('scorer imports, trains, scores', () => checks.scorerTrainsAndScores());
  await check('instant alert e-mail in the outbox', () => checks.instantAlertEmail());
  await check('restart keeps every row', () => checks.restartKeepsRows(DEMO_SITE_WITHIN_MS));
  await check('--scale crawler=3 shares the per-host limits', () => checks.scaledCrawlSharesLimits(HEALTHY_WITHIN_MS));
} finally {
  blocked = null;
  if (flags.keep === true) {
    say(`the stack is left running (--keep): ${cli.argv.join(' ')} -p ${project} --env-file ${envFile} down -v   takes it down`);
  } else {
    await check('down leaves no container', async () => {
      await stack.composeOrThrow(['down', '-v', '--remove-orphans', '-t', '30']);
      const containers = await stack.containers();
      const { volumes, networks } = await stack.leftovers();
      if (containers.length + volumes.length + networks.length > 0) throw new Error(`left: ${[...containers.map((c) => c.name), ...volumes, ...networks].join(', ')}`);
      return 'no container, volume or network of the project left';
    });
    rmSync(dir, { recursive: true, force: true });
  }
}

const passed = results.filter(Boolean).length;
say(`${passed} passed, ${results.length - passed} failed`);
process.exit(results.length === passed ? 0 : 1);
