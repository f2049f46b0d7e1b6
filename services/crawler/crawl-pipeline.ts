/**
 * One crawl job, whatever the source: the `start` step opens a run and queues where the
 * adapter starts; each `list`/`detail` step passes robots.txt, waits its turn on the host
 * (shared politeness, by moving the job back to delayed — never sleeping in the worker),
 * fetches, recognises block pages, routes the response through the adapter's label router,
 * stores what it found, enqueues scoring for every stored change and queues the next steps.
 *
 * Faults: network errors and 5xx are retried with exponential backoff (the queue's job
 * options); 429/503 with Retry-After put the step (and the host) back until then; a 404, a
 * refused URL, an oversize body or a page that does not parse is recorded and skipped; a
 * challenge page marks the source blocked and stops the run; a login wall is recorded as such
 * and never parsed. A first list page with content that yields nothing, and does not say it is
 * empty, is recorded as a parse failure: a run of only those is a changed layout (closeRun).
 */
import { DelayedError, type Job } from 'bullmq';
import type { AppContext } from '../shared/context.js';
import { NonRetryableError, RetryableError, errorMessage } from '../shared/errors.js';
import { digest, type Payload } from '../shared/queues.js';
import { adapterEnv, adapterHosts, NotFoundError, ParseError, type CrawlStep, type FetchedPage, type SourceAdapter } from './adapter.js';
import type { AdapterRegistry } from './adapters/index.js';
import { detectBlock } from './fetchers/block-detection.js';
import { detectLoginWall } from './fetchers/login-detection.js';
import type { BrowserFetcher } from './fetchers/browser-fetcher.js';
import { FetchRefusedError, httpFetch, retryAfterMs, userAgent, type FetchPolicy, type HttpResponse } from './fetchers/http-fetcher.js';
import { normalizeListing, type LotPatch, type NormalizedListing, type ScrapedListing } from '../shared/lots/normalize-listing.js';
import type { RobotsGate } from './politeness/robots.js';
import { recordCrawlError, type CrawlErrorKind } from '../shared/repositories/crawl-errors-repository.js';
import {
  addSteps,
  closeRun,
  closeStaleRuns,
  findRun,
  finishStep,
  markRunBlocked,
  openRun,
  reserveLots,
  type RunStats,
} from '../shared/repositories/crawl-runs-repository.js';
import { backOffHost, claimHostSlot, registerHost, releaseHostSlot } from '../shared/repositories/host-politeness-repository.js';
import { applyLotUpdate, listEndingSoon, previewListings, previewUpdates, storeListing, type StoredListing } from '../shared/repositories/listing-store-repository.js';
import { findSourceByName, markSourceBlocked } from '../shared/repositories/sources-repository.js';
import { listWatchedClosingSoon } from '../shared/repositories/watchlist-repository.js';

type SourceRef = { id: number; name: string };
import type { CrawlRun } from '../../db/schema/crawl.js';
import { faultPoint } from '../shared/fault-points.js';

type CrawlPayload = Payload<'crawl'>;

export type StepResult =
  | { kind: 'started'; runId: number; steps: number }
  /** `dropped`: partial updates whose lot is not stored (never seen, or cut by the run's lot limit). */
  | { kind: 'done'; runId: number; pages: number; stored: number; updates: number; dropped: number }
  | { kind: 'skipped'; runId?: number; reason: string };

const RAW_PAYLOAD_MAX_CHARS = 256_000;
const ENDING_SOON_MS = 24 * 3600_000;
/** Watched lots ending within this (or ended within the hour, still open) are re-checked on the `watched` schedule. */
const WATCHED_RECHECK_MS = 15 * 60_000;
const STALE_RUN_MS = 6 * 3600_000;
const MAX_RETRY_AFTER_DEFERRALS = 20;
/** A list page this long that yields nothing holds content its adapter no longer finds (an empty API answer is a few bytes). */
const CONTENT_PAGE_MIN_CHARS = 4096;

export function stepKey(step: { label: string; url?: string; page?: number; externalId?: string }): string {
  return `${step.label}-${digest(`${step.url ?? ''}|${step.page ?? ''}|${step.externalId ?? ''}`)}`;
}

export type PipelineDeps = {
  ctx: AppContext;
  adapters: AdapterRegistry;
  robots: RobotsGate;
  browser: BrowserFetcher;
};

export class CrawlPipeline {
  /** Hosts whose politeness row this process has created with these limits. */
  private readonly registeredHosts = new Set<string>();
  /** Source ids by name: stable for a source's lifetime. */
  private readonly sourceIds = new Map<string, number>();

  constructor(private readonly deps: PipelineDeps) {}

  private get db() {
    return this.deps.ctx.database.db;
  }

  private async sourceRef(name: string): Promise<SourceRef | undefined> {
    let id = this.sourceIds.get(name);
    if (id === undefined) {
      id = (await findSourceByName(this.db, name))?.id;
      if (id !== undefined) this.sourceIds.set(name, id);
    }
    return id === undefined ? undefined : { id, name };
  }

  private adapter(name: string): SourceAdapter {
    const adapter = this.deps.adapters.get(name);
    if (!adapter) throw new NonRetryableError(`no adapter for source "${name}"`);
    return adapter;
  }

  policy(adapter: SourceAdapter): FetchPolicy {
    const config = this.deps.ctx.config;
    return {
      allowedHosts: adapterHosts(adapter, config),
      allowOnlyLoopback: config.CRAWL_ALLOW_ONLY_LOOPBACK,
      userAgent: userAgent(config.CRAWL_USER_AGENT_CONTACT),
      timeoutMs: config.CRAWL_TIMEOUT_MS,
      maxBytes: config.CRAWL_MAX_BODY_BYTES,
    };
  }

  async handle(payload: CrawlPayload, job: Job, token?: string): Promise<StepResult> {
    if (payload.label === 'start') return this.start(payload, job);
    return this.step(payload, job, token);
  }

  /** Opens the run (once per trigger) and queues where the adapter starts. */
  private async start(payload: CrawlPayload, job: Job): Promise<StepResult> {
    const adapter = this.adapter(payload.source);
    const source = await findSourceByName(this.db, payload.source);
    if (!source) throw new NonRetryableError(`source "${payload.source}" is not registered`);
    if (!source.enabled && payload.reason !== 'manual') return { kind: 'skipped', reason: `source ${source.name} is disabled` };
    const env = adapterEnv(adapter, this.deps.ctx.config);
    let steps: CrawlStep[];
    if (payload.reason === 'ending-soon' || payload.reason === 'watched') {
      // Lots ending soon are re-checked one by one where the source has a per-lot view; a source
      // without one is covered by its regular crawl. Watched lots near their close are re-checked
      // more often (issue 31), so the final price is known within minutes of the close.
      const lots = !adapter.detailStep
        ? []
        : payload.reason === 'watched'
          ? await listWatchedClosingSoon(this.db, source.id, WATCHED_RECHECK_MS)
          : await listEndingSoon(this.db, source.id, ENDING_SOON_MS);
      steps = lots.map((lot) => adapter.detailStep!(lot, env)).filter((s): s is CrawlStep => s !== null);
      // Nothing to re-check: no run, so the source's health reflects real crawls only.
      if (steps.length === 0 && !payload.runId) return { kind: 'skipped', reason: payload.reason === 'watched' ? 'no watched lot is closing' : 'no open lot ends within 24 h' };
    } else {
      steps = adapter.start(env);
    }
    const run = payload.runId
      ? await findRun(this.db, payload.runId)
      : (await openRun(this.db, { sourceId: source.id, reason: payload.reason, triggerKey: `${payload.reason}-${payload.slot ?? job.id}` })).run;
    if (!run) throw new NonRetryableError(`crawl run ${payload.runId} does not exist`);
    if (run.state !== 'running') return { kind: 'skipped', runId: run.id, reason: 'run already finished' };
    await closeStaleRuns(this.db, source.id, STALE_RUN_MS);

    const queued = await this.queueSteps(run, source, steps);
    if (queued === 0 && run.pendingSteps === 0) await closeRun(this.db, run.id);
    return { kind: 'started', runId: run.id, steps: queued };
  }

  /** Registers steps on the run (detail steps within its lot limit) and adds their jobs. */
  private async queueSteps(run: CrawlRun, source: SourceRef, steps: CrawlStep[]): Promise<number> {
    let lists = steps.filter((s) => s.label === 'list');
    let details = steps.filter((s) => s.label === 'detail');
    // Update steps complete lots already counted by the page that asked for them.
    const updates = steps.filter((s) => s.label === 'update');
    if (details.length > 0 && run.lotLimit !== null) {
      const wanted = details.length;
      details = details.slice(0, await reserveLots(this.db, run.id, wanted));
      // The lot limit is reached: further list pages would only find lots over it.
      if (details.length < wanted) lists = [];
    }
    const selected = [...lists, ...details, ...updates];
    if (selected.length === 0) return 0;
    await addSteps(this.db, run.id, selected.map(stepKey));
    await this.deps.ctx.queues.enqueueBulk(
      'crawl',
      selected.map((s) => ({ source: source.name, label: s.label, url: s.url, page: s.page, externalId: s.externalId, lotIds: s.lotIds, runId: run.id, reason: run.reason as CrawlPayload['reason'] })),
    );
    return selected.length;
  }

  private async endStep(run: CrawlRun, key: string, state: 'done' | 'skipped' | 'failed', stats: RunStats = {}): Promise<void> {
    await finishStep(this.db, run.id, key, state, stats);
  }

  private async skip(run: CrawlRun, source: SourceRef, key: string, url: string, kind: CrawlErrorKind, message: string, statusCode?: number): Promise<StepResult> {
    await recordCrawlError(this.db, { runId: run.id, sourceId: source.id, url, kind, statusCode, message });
    await this.endStep(run, key, 'skipped');
    return { kind: 'skipped', runId: run.id, reason: message };
  }

  /** Puts the job back until `at`; the worker is free meanwhile. */
  private async defer(job: Job, token: string | undefined, waitMs: number, data?: Partial<CrawlPayload>): Promise<never> {
    if (!token) throw new RetryableError(`host busy for ${waitMs} ms`, waitMs);
    if (data) await job.updateData({ ...job.data, ...data });
    // A little jitter so deferred jobs of one host do not all wake in the same millisecond.
    await job.moveToDelayed(Date.now() + waitMs + Math.floor(Math.random() * 50), token);
    throw new DelayedError();
  }

  private async step(payload: CrawlPayload, job: Job, token?: string): Promise<StepResult> {
    const adapter = this.adapter(payload.source);
    if (!payload.url) throw new NonRetryableError(`${payload.label} step without a URL`);
    if (!payload.runId) throw new NonRetryableError(`${payload.label} step without a run`);
    const [run, source] = await Promise.all([findRun(this.db, payload.runId), this.sourceRef(payload.source)]);
    if (!run || !source) throw new NonRetryableError(`run ${payload.runId} or source ${payload.source} is missing`);
    const key = stepKey(payload);
    if (run.state !== 'running') return { kind: 'skipped', runId: run.id, reason: 'run already finished' };
    if (run.blocked) {
      await this.endStep(run, key, 'skipped');
      return { kind: 'skipped', runId: run.id, reason: 'source blocked during this run' };
    }
    const crawlStep: CrawlStep = { label: payload.label as CrawlStep['label'], url: payload.url, page: payload.page, externalId: payload.externalId, lotIds: payload.lotIds };
    const env = adapterEnv(adapter, this.deps.ctx.config);
    const request = adapter.request?.(crawlStep, env) ?? { url: crawlStep.url };
    const policy = this.policy(adapter);

    let robotsDelayMs: number | undefined;
    if (adapter.obeyRobots !== false) {
      let verdict;
      try {
        verdict = await this.deps.robots.check(request.url);
      } catch (err) {
        if (err instanceof FetchRefusedError) return this.skip(run, source, key, request.url, 'refused', err.message);
        throw err;
      }
      if (!verdict.allowed) return this.skip(run, source, key, request.url, 'robots', `robots.txt disallows ${new URL(request.url).pathname}`);
      robotsDelayMs = verdict.crawlDelayMs;
    }

    let host: string;
    try {
      host = new URL(request.url).host;
    } catch {
      return this.skip(run, source, key, request.url, 'refused', 'not a URL');
    }
    const limits = { minDelayMs: Math.max(adapter.politeness.minDelayMs, robotsDelayMs ?? 0), maxConcurrency: adapter.politeness.maxConcurrency };
    const limitsKey = `${host}|${limits.minDelayMs}|${limits.maxConcurrency}`;
    if (!this.registeredHosts.has(limitsKey)) {
      await registerHost(this.db, host, limits);
      this.registeredHosts.add(limitsKey);
    }
    const claim = await claimHostSlot(this.db, host, this.deps.ctx.config.CRAWL_TIMEOUT_MS + 30_000);
    if (!claim.granted) return this.defer(job, token, claim.waitMs);

    let response: HttpResponse;
    const finalAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
    try {
      response =
        adapter.fetcher === 'browser'
          ? await this.deps.browser.fetch(request.url, policy, { waitForSelector: adapter.waitForSelector })
          : await httpFetch(request, policy);
    } catch (err) {
      if (err instanceof FetchRefusedError) return this.skip(run, source, key, request.url, 'refused', err.message);
      if (finalAttempt) {
        await recordCrawlError(this.db, { runId: run.id, sourceId: source.id, url: request.url, kind: 'network', message: errorMessage(err) });
        await this.endStep(run, key, 'failed');
      }
      throw err instanceof RetryableError ? err : new RetryableError(errorMessage(err));
    } finally {
      await releaseHostSlot(this.db, host, claim.leaseId);
    }

    const block = detectBlock(response);
    if (block) {
      await markRunBlocked(this.db, run.id);
      await markSourceBlocked(this.db, source.id);
      return this.skip(run, source, key, response.url, 'blocked', block.reason, response.status);
    }
    const login = detectLoginWall(response, request.url);
    if (login) return this.skip(run, source, key, response.url, 'login', `login required: ${login.reason}`, response.status);
    if (response.status === 429 || response.status === 503) {
      const waitMs = retryAfterMs(response.headers['retry-after']);
      const deferrals = payload.deferrals ?? 0;
      if (waitMs !== undefined && deferrals < MAX_RETRY_AFTER_DEFERRALS) {
        await backOffHost(this.db, host, waitMs);
        return this.defer(job, token, waitMs, { deferrals: deferrals + 1 });
      }
      return this.retryOrFail(run, source, key, response, finalAttempt);
    }
    if (response.status >= 500) return this.retryOrFail(run, source, key, response, finalAttempt);
    if (response.status >= 400) return this.skip(run, source, key, response.url, 'http', `HTTP ${response.status}`, response.status);
    if (response.truncated) {
      return this.skip(run, source, key, response.url, 'too-large', `response over ${policy.maxBytes} bytes: cut there, not parsed`, response.status);
    }

    const page: FetchedPage = { step: crawlStep, url: response.url, status: response.status, contentType: response.contentType, body: response.body, fetchedAt: new Date() };
    let routed;
    try {
      routed = adapter.router.route(page, env);
    } catch (err) {
      if (err instanceof NotFoundError) return this.skip(run, source, key, response.url, 'not-found', err.message, response.status);
      const message = err instanceof ParseError ? err.message : `handler crashed: ${errorMessage(err)}`;
      await recordCrawlError(this.db, { runId: run.id, sourceId: source.id, url: response.url, kind: 'parse', statusCode: response.status, message });
      await this.endStep(run, key, 'skipped', { pages: 1 });
      return { kind: 'skipped', runId: run.id, reason: message };
    }

    if (isSilentContentPage(crawlStep, routed, response.body)) {
      const message = `${adapter.displayName}: a page with content (${Math.round(response.body.length / 1024)} KB) yielded no listings and does not say it is empty`;
      await recordCrawlError(this.db, { runId: run.id, sourceId: source.id, url: response.url, kind: 'parse', statusCode: response.status, message });
      await this.endStep(run, key, 'skipped', { pages: 1 });
      return { kind: 'skipped', runId: run.id, reason: message };
    }

    const stats: RunStats = { pages: 1, lotsNew: 0, lotsUpdated: 0, lotsUnchanged: 0 };
    let lots = routed.listings;
    // Lots found on list pages count against the run's limit here; detail steps reserved theirs when queued.
    if (crawlStep.label !== 'detail' && run.lotLimit !== null) lots = lots.slice(0, await reserveLots(this.db, run.id, lots.length));
    const normalized: { listing: NormalizedListing; lot: ScrapedListing; raw: unknown }[] = [];
    for (const lot of lots) {
      if (!lot.externalId || !String(lot.externalId).trim() || !lot.title || !String(lot.title).trim()) {
        await recordCrawlError(this.db, { runId: run.id, sourceId: source.id, url: response.url, kind: 'parse', message: 'lot without an id or a title' });
        continue;
      }
      const listing = normalizeListing(lot, response.url);
      const raw = lot.raw ?? { url: response.url, contentType: response.contentType, body: response.body.slice(0, RAW_PAYLOAD_MAX_CHARS) };
      normalized.push({ listing, lot, raw: { fetchedAt: page.fetchedAt.toISOString(), url: response.url, payload: raw } });
    }
    const updates: { lot: LotPatch; raw: unknown }[] = [];
    for (const update of routed.updates ?? []) {
      if (!update.externalId || !String(update.externalId).trim()) {
        await recordCrawlError(this.db, { runId: run.id, sourceId: source.id, url: response.url, kind: 'parse', message: 'update without a lot id' });
        continue;
      }
      const raw = update.raw ?? { url: response.url, contentType: response.contentType, body: response.body.slice(0, RAW_PAYLOAD_MAX_CHARS) };
      updates.push({ lot: { ...update, externalId: String(update.externalId).trim() }, raw: { fetchedAt: page.fetchedAt.toISOString(), url: response.url, payload: raw } });
    }
    let dropped = 0;

    const stored: StoredListing[] = [];
    if (run.dryRun) {
      const at = { pageUrl: response.url, fetchedAt: page.fetchedAt };
      for (const outcome of await previewListings(this.db, source, normalized.map(({ listing, lot }) => ({ listing, lot, ...at })))) countOutcome(stats, outcome);
      for (const outcome of await previewUpdates(this.db, source, updates.map(({ lot }) => ({ lot, ...at })))) {
        if (outcome) countOutcome(stats, outcome);
        else dropped++;
      }
    } else {
      for (const { listing, lot, raw } of normalized) {
        const result = await storeListing(this.db, source, { listing, lot, pageUrl: response.url, fetchedAt: page.fetchedAt }, raw);
        faultPoint('crawl-listing-stored');
        stored.push(result);
        countOutcome(stats, result.outcome);
      }
      for (const { lot, raw } of updates) {
        const result = await applyLotUpdate(this.db, source, { lot, pageUrl: response.url, fetchedAt: page.fetchedAt }, raw);
        if (!result) {
          dropped++;
          continue;
        }
        stored.push(result);
        countOutcome(stats, result.outcome);
      }
      // A retried or restarted job re-announces every lot (idempotent job ids): a crash between
      // the commit and the enqueue of an earlier attempt then loses no scoring.
      const announce = job.attemptsStarted > 1 || job.attemptsMade > 0 ? stored : stored.filter((s) => s.outcome !== 'unchanged');
      await this.deps.ctx.queues.enqueueBulk(
        'score',
        announce.map((s) => ({ listingId: s.listingId, reason: s.outcome === 'new' ? 'new' : 'changed', version: s.version })),
      );
    }
    await this.queueSteps(run, source, routed.next);
    await this.endStep(run, key, 'done', stats);
    return { kind: 'done', runId: run.id, pages: 1, stored: normalized.length, updates: updates.length - dropped, dropped };
  }

  private async retryOrFail(run: CrawlRun, source: SourceRef, key: string, response: HttpResponse, finalAttempt: boolean): Promise<never> {
    const message = `HTTP ${response.status} from ${response.url}`;
    if (finalAttempt) {
      await recordCrawlError(this.db, { runId: run.id, sourceId: source.id, url: response.url, kind: 'http', statusCode: response.status, message });
      await this.endStep(run, key, 'failed');
    }
    throw new RetryableError(message);
  }
}

/**
 * A source's first list page (where every crawl starts) that answers with content but gives no
 * lot, no update and no further step, without saying it is empty: the layout has most likely
 * moved under the adapter. Later pages may legitimately run dry.
 */
export function isSilentContentPage(step: CrawlStep, routed: { listings: unknown[]; updates?: unknown[]; next: unknown[]; empty?: boolean }, body: string): boolean {
  if (step.label !== 'list' || (step.page ?? 1) > 1 || routed.empty) return false;
  if (routed.listings.length > 0 || (routed.updates?.length ?? 0) > 0 || routed.next.length > 0) return false;
  return body.length >= CONTENT_PAGE_MIN_CHARS;
}

function countOutcome(stats: RunStats, outcome: 'new' | 'updated' | 'unchanged'): void {
  if (outcome === 'new') stats.lotsNew = (stats.lotsNew ?? 0) + 1;
  else if (outcome === 'updated') stats.lotsUpdated = (stats.lotsUpdated ?? 0) + 1;
  else stats.lotsUnchanged = (stats.lotsUnchanged ?? 0) + 1;
}
