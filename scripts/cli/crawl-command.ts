/**
 * `npm run crawl -- --source <name> [--once] [--dry-run] [--limit N]`: asks for a crawl of one
 * source. With --once this process crawls it to the end (a worker of its own, a progress bar,
 * then a summary); without, the run is queued for the running product's crawler.
 * The demo source needs the demo site: with --once and no DEMO_SITE_URL, one is started here.
 */
import cliProgress from 'cli-progress';
import type { CrawlRun } from '../../db/schema/crawl.js';
import { startDemoSite, type DemoSite } from '../demo-site/demo-server.js';
import { createRegistry } from '../../services/crawler/adapters/index.js';
import { requestCrawl, waitForRun } from '../../services/crawler/crawl-requests.js';
import { startCrawlWorker, syncSourcesFromConfig } from '../../services/crawler/index.js';
import { listRunErrors } from '../../services/shared/repositories/crawl-errors-repository.js';
import type { AppContext } from '../../services/shared/context.js';
import { parseArgs, type CliCommand } from './command.js';

function seconds(run: CrawlRun): string {
  const end = run.finishedAt ?? new Date();
  return `${((end.getTime() - run.startedAt.getTime()) / 1000).toFixed(1)} s`;
}

export function formatRunSummary(run: CrawlRun): string {
  const rows: [string, string | number][] = [
    ['run', `#${run.id}${run.dryRun ? ' (dry run: nothing stored)' : ''}`],
    ['outcome', run.outcome ?? run.state],
    ['pages', run.pages],
    ['lots new', run.lotsNew],
    ['lots updated', run.lotsUpdated],
    ['lots unchanged', run.lotsUnchanged],
    ['errors', run.errors],
    ['blocked', run.blocked ? 'yes' : 'no'],
    ['time', seconds(run)],
  ];
  return rows.map(([k, v]) => `  ${k.padEnd(16)} ${v}`).join('\n');
}

export const crawlCommand: CliCommand = {
  name: 'crawl',
  summary: 'Crawl one source now (--once: here, with progress and a summary)',
  usage: '--source <name> [--once] [--dry-run] [--limit <lots>]',
  async run(baseCtx, args) {
    const { flags } = parseArgs(args);
    const registry = createRegistry();
    const name = typeof flags.source === 'string' ? flags.source : undefined;
    if (!name || !registry.has(name)) {
      process.stderr.write(`${name ? `Unknown source "${name}". ` : '--source is required. '}Sources: ${[...registry.keys()].join(', ')}\n`);
      return 2;
    }
    let limit: number | null = null;
    if (flags.limit !== undefined) {
      limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1_000_000) {
        process.stderr.write('--limit must be a whole number of lots from 1 to 1000000\n');
        return 2;
      }
    }
    const once = flags.once === true;
    const dryRun = flags['dry-run'] === true;

    let site: DemoSite | undefined;
    let ctx: AppContext = baseCtx;
    if (name === 'demo' && !ctx.config.DEMO_SITE_URL) {
      if (!once) {
        process.stderr.write('The demo source needs the demo site: use --once (starts one here) or `npm run demo`.\n');
        return 2;
      }
      site = await startDemoSite({ sharedDir: ctx.config.SHARED_DIR, seed: ctx.config.DEMO_SITE_SEED, lots: ctx.config.DEMO_SITE_LOTS, speed: ctx.config.DEMO_SITE_SPEED });
      process.stdout.write(`Demo auction site started at ${site.url}\n`);
      ctx = { ...ctx, config: { ...ctx.config, DEMO_SITE_URL: site.url } };
    }
    try {
      await syncSourcesFromConfig(ctx, registry);
      if (!once) {
        const run = await requestCrawl(ctx, name, { dryRun, limit });
        process.stdout.write(`Queued crawl run #${run.id} of ${name}; a running crawler carries it out. \`npm run sources\` shows the result.\n`);
        return 0;
      }
      const worker = await startCrawlWorker(ctx, { registry });
      const bar = new cliProgress.SingleBar(
        { format: `${name} [{bar}] {value}/{total} steps | pages {pages} | new {lotsNew} updated {lotsUpdated} unchanged {lotsUnchanged} | errors {errors}`, hideCursor: true, noTTYOutput: false },
        cliProgress.Presets.shades_classic,
      );
      let finished: CrawlRun;
      try {
        const run = await requestCrawl(ctx, name, { dryRun, limit });
        bar.start(1, 0, { pages: 0, lotsNew: 0, lotsUpdated: 0, lotsUnchanged: 0, errors: 0 });
        finished = await waitForRun(ctx, run.id, {
          pollMs: 250,
          timeoutMs: 6 * 3600_000,
          onProgress: (r) => {
            bar.setTotal(Math.max(1, r.stepsTotal));
            bar.update(r.stepsTotal - r.pendingSteps, { pages: r.pages, lotsNew: r.lotsNew, lotsUpdated: r.lotsUpdated, lotsUnchanged: r.lotsUnchanged, errors: r.errors });
          },
        });
      } finally {
        bar.stop();
        await worker.stop();
      }
      process.stdout.write(`\nCrawl of ${name} finished\n${formatRunSummary(finished)}\n`);
      const errors = await listRunErrors(ctx.database.db, finished.id, 10);
      if (errors.length > 0) {
        process.stdout.write(`\nLatest errors:\n${errors.map((e) => `  [${e.kind}${e.statusCode ? ` ${e.statusCode}` : ''}] ${e.url ?? ''} ${e.message}`).join('\n')}\n`);
      }
      return finished.outcome === 'ok' || finished.outcome === 'empty' ? 0 : 1;
    } finally {
      await site?.close();
    }
  },
};
