/**
 * Drives one adapter the way the crawl pipeline does, minus storage: from its start steps,
 * each request built by the adapter goes through the REAL http fetcher (loopback-only policy,
 * the adapter's hosts, User-Agent, size cap), block and login-wall detection, then the adapter's label router;
 * the steps it returns are followed breadth-first. Used against recorded-site servers.
 */
import { adapterEnv, adapterHosts, NotFoundError, ParseError, type CrawlStep, type SourceAdapter } from '../../services/crawler/adapter.js';
import { detectBlock } from '../../services/crawler/fetchers/block-detection.js';
import { detectLoginWall } from '../../services/crawler/fetchers/login-detection.js';
import { httpFetch, userAgent } from '../../services/crawler/fetchers/http-fetcher.js';
import type { LotPatch, ScrapedListing } from '../../services/shared/lots/normalize-listing.js';
import type { Config } from '../../services/shared/config.js';

export type CrawlOutcome = {
  listings: ScrapedListing[];
  /** Partial updates (bid info, galleries, listing-page re-checks), in the order they came. */
  updates: LotPatch[];
  steps: { step: CrawlStep; status: number | null; outcome: 'routed' | 'http-error' | 'parse-error' | 'not-found' | 'blocked' | 'login-required'; message?: string; found: number }[];
};

export async function crawlThroughFetcher(adapter: SourceAdapter, config: Config, opts: { maxSteps?: number; startSteps?: CrawlStep[] } = {}): Promise<CrawlOutcome> {
  const env = adapterEnv(adapter, config);
  const policy = {
    allowedHosts: adapterHosts(adapter, config),
    allowOnlyLoopback: true,
    userAgent: userAgent(config.CRAWL_USER_AGENT_CONTACT),
    timeoutMs: 10_000,
    maxBytes: config.CRAWL_MAX_BODY_BYTES,
  };
  const queue = [...(opts.startSteps ?? adapter.start(env))];
  const seen = new Set<string>();
  const outcome: CrawlOutcome = { listings: [], updates: [], steps: [] };
  while (queue.length > 0 && outcome.steps.length < (opts.maxSteps ?? 50)) {
    const step = queue.shift()!;
    const key = `${step.label}|${step.url}|${step.page ?? ''}|${step.externalId ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const response = await httpFetch(adapter.request?.(step, env) ?? { url: step.url }, policy);
    const block = detectBlock(response);
    if (block) {
      outcome.steps.push({ step, status: response.status, outcome: 'blocked', message: block.reason, found: 0 });
      continue;
    }
    const request = adapter.request?.(step, env) ?? { url: step.url };
    const login = detectLoginWall(response, request.url);
    if (login) {
      outcome.steps.push({ step, status: response.status, outcome: 'login-required', message: login.reason, found: 0 });
      continue;
    }
    if (response.status >= 400) {
      outcome.steps.push({ step, status: response.status, outcome: 'http-error', found: 0 });
      continue;
    }
    try {
      const routed = adapter.router.route({ step, url: response.url, status: response.status, contentType: response.contentType, body: response.body, fetchedAt: new Date() }, env);
      outcome.listings.push(...routed.listings);
      outcome.updates.push(...(routed.updates ?? []));
      queue.push(...routed.next);
      outcome.steps.push({ step, status: response.status, outcome: 'routed', found: routed.listings.length + (routed.updates?.length ?? 0) });
    } catch (err) {
      if (err instanceof NotFoundError) {
        outcome.steps.push({ step, status: response.status, outcome: 'not-found', message: err.message, found: 0 });
        continue;
      }
      if (!(err instanceof ParseError)) throw err;
      outcome.steps.push({ step, status: response.status, outcome: 'parse-error', message: err.message, found: 0 });
    }
  }
  return outcome;
}
