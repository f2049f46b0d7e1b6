/**
 * Asking for a crawl and following it: used by the operator CLI, the tests and the benchmark.
 * The run is opened here (so its id is known at once) and its start job queued; any crawler
 * process — this one or a running product's — carries it out.
 */
import { randomUUID } from 'node:crypto';
import type { CrawlRun } from '../../db/schema/crawl.js';
import type { AppContext } from '../shared/context.js';
import { findRun, openRun } from '../shared/repositories/crawl-runs-repository.js';
import { findSourceByName } from '../shared/repositories/sources-repository.js';

export async function requestCrawl(
  ctx: AppContext,
  sourceName: string,
  opts: { dryRun?: boolean; limit?: number | null; reason?: 'manual' | 'scheduled' | 'ending-soon' | 'watched' } = {},
): Promise<CrawlRun> {
  const source = await findSourceByName(ctx.database.db, sourceName);
  if (!source) throw new Error(`unknown source "${sourceName}"`);
  const reason = opts.reason ?? 'manual';
  const { run } = await openRun(ctx.database.db, {
    sourceId: source.id,
    reason,
    triggerKey: `${reason}-${randomUUID()}`,
    dryRun: opts.dryRun ?? false,
    lotLimit: opts.limit ?? null,
  });
  await ctx.queues.enqueue('crawl', { source: source.name, label: 'start', runId: run.id, reason });
  return run;
}

/** Polls the run until it finishes; `onProgress` sees it on each poll. */
export async function waitForRun(
  ctx: AppContext,
  runId: number,
  opts: { timeoutMs?: number; pollMs?: number; onProgress?: (run: CrawlRun) => void } = {},
): Promise<CrawlRun> {
  const deadline = Date.now() + (opts.timeoutMs ?? 10 * 60_000);
  for (;;) {
    const run = await findRun(ctx.database.db, runId);
    if (!run) throw new Error(`crawl run ${runId} does not exist`);
    opts.onProgress?.(run);
    if (run.state === 'finished') return run;
    if (Date.now() > deadline) throw new Error(`crawl run ${runId} did not finish in time (${run.pendingSteps} steps pending)`);
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 100));
  }
}
