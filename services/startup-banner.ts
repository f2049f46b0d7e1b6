/**
 * What `npm start` prints once every service runs: where the app is, which sources are crawled
 * and when each is first crawled, and — while there are no listings — what to expect and how to
 * see the product work at once (`npm run demo`).
 */
import type { AppContext } from './shared/context.js';
import { importBannerLine } from './scorer/sales-import-state.js';
import { crawlState, enabledSourceNames, sourcesNeverCrawled } from './shared/repositories/operations-repository.js';
import { listSalesImports } from './shared/repositories/sales-imports-repository.js';

export type BannerFacts = {
  appUrl: string;
  enabledSources: string[];
  /** Enabled sources being crawled now for the first time. */
  firstCrawlNow: string[];
  schedule: string;
  hasListings: boolean;
  crawlerRunning: boolean;
  /** While a sales import is unfinished: that it is resumed, or under way (sales-import-state.ts). */
  salesImport?: string;
};

export function formatBanner(facts: BannerFacts): string {
  const lines = ['', `  Deal Radar is running: ${facts.appUrl}`];
  if (facts.enabledSources.length === 0) {
    lines.push('  Sources: none enabled (set CRAWL_SOURCES in .env; `npm run sources` lists them).');
  } else {
    for (const source of facts.enabledSources) {
      const first = facts.firstCrawlNow.includes(source) && facts.crawlerRunning;
      lines.push(`  Source ${source}: ${first ? 'first crawl now, then' : 'crawled'} on schedule "${facts.schedule}" (CRAWL_SCHEDULE, UTC)`);
    }
  }
  if (!facts.hasListings) {
    lines.push(
      facts.enabledSources.length > 0 && facts.crawlerRunning
        ? '  No listings yet: the first crawl needs the internet and takes a few minutes.'
        : '  No listings yet.',
      '  To see the whole product at work offline right now: stop (Ctrl-C) and run `npm run demo`.',
    );
  }
  if (facts.salesImport) lines.push(facts.salesImport);
  lines.push('  Stop with Ctrl-C.', '', '');
  return lines.join('\n');
}

export async function bannerFacts(ctx: AppContext): Promise<BannerFacts> {
  const sql = ctx.database.sql;
  const [state, enabled, never, imports] = await Promise.all([
    crawlState(sql),
    enabledSourceNames(sql),
    sourcesNeverCrawled(sql, { finished: true }),
    listSalesImports(ctx.database.db),
  ]);
  const salesImport = importBannerLine(imports, ctx.config.SERVICES.includes('scorer'));
  return {
    appUrl: ctx.config.APP_URL,
    enabledSources: enabled,
    firstCrawlNow: never,
    schedule: ctx.config.CRAWL_SCHEDULE,
    hasListings: state.listings > 0,
    crawlerRunning: ctx.config.SERVICES.includes('crawler'),
    ...(salesImport ? { salesImport } : {}),
  };
}
