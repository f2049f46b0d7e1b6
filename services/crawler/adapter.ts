/**
 * The contract between the crawl pipeline and one auction source. An adapter says how to reach
 * the source (base URL, hosts, fetcher, request shape), where a crawl starts, and how each
 * labelled step's response becomes listings and further steps — a label router as in Crawlee:
 *
 *   start ─► list (page 1) ─► list (page 2…) ─► detail (one lot)
 *                    └─► update (what the list page lacks: bids, a gallery — for lots it just stored)
 *
 * Handlers are pure: they get the fetched response and return data. Fetching, politeness,
 * robots.txt, block detection, storage and scoring are the pipeline's job, identical for all.
 */
import type { Config } from '../shared/config.js';
import type { LotPatch, ScrapedListing } from '../shared/lots/normalize-listing.js';

/**
 * `list`: a page of lots (and further pages); `detail`: one known lot re-checked; `update`: a
 * response that completes lots a list page has just stored (their bids, their gallery). Detail
 * steps count against a run's lot limit; update steps do not (their lots were counted already).
 */
export type CrawlLabel = 'list' | 'detail' | 'update';

/** One unit of crawl work: what a `crawl` queue job carries (besides source, run and reason). */
export type CrawlStep = {
  label: CrawlLabel;
  url: string;
  page?: number;
  externalId?: string;
  /**
   * The lots one request asks about (a batched bid-info call). Not part of the step's identity:
   * the adapter makes (url, page, externalId) unique per batch.
   */
  lotIds?: string[];
};

/** What the fetcher sends; adapters of JSON APIs may POST a body or add headers (API keys). */
export type HttpRequest = {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
};

/** A fetched response as handlers see it. */
export type FetchedPage = {
  step: CrawlStep;
  /** The URL after redirects. */
  url: string;
  status: number;
  contentType: string;
  body: string;
  fetchedAt: Date;
};

/**
 * A handler's result: listings to store, partial updates to merge, and steps to queue next.
 * A listing is a whole lot as its page shows it: stored when new, merged when known (a field the
 * page does not carry — left undefined — keeps its stored value). An update carries only some
 * fields of a lot and never creates one: for a lot not stored it is dropped (the pipeline stores
 * a page's listings before it queues the update steps that page asks for, so the lot is there).
 */
export type RouteResult = {
  listings: ScrapedListing[];
  updates?: LotPatch[];
  next: CrawlStep[];
  /**
   * The page itself says there is nothing to list ("No listings found."). Without it, a first
   * list page with content but no lots, updates or further steps is taken for a changed layout.
   */
  empty?: boolean;
};

export type RouteHandler = (page: FetchedPage, env: AdapterEnv) => RouteResult;

/** What an adapter may read at run time (never the process environment). */
export type AdapterEnv = {
  config: Config;
  baseUrl: string;
};

export type FetcherKind = 'http' | 'browser';

export type SourceAdapter = {
  /** The `sources.name` key, e.g. `demo`, `gsaauctions`. */
  name: string;
  displayName: string;
  /** `api`, `html` or `browser`, as stored in `sources.access_kind`. */
  accessKind: 'api' | 'html' | 'browser';
  isDemo?: boolean;
  /** Why the adapter must not run by default (e.g. robots.txt disallows the path it needs); shown by `npm run sources`. */
  disabledReason?: string;
  fetcher: FetcherKind;
  /** The source's base URL under this configuration (demo: the local demo site). */
  baseUrl(config: Config): string;
  /**
   * Hosts this source may be fetched from, redirects included (defaults to the base URL's
   * host). A redirect anywhere else is refused.
   */
  hosts?(config: Config): string[];
  /** Politeness per host: at most `maxConcurrency` requests at once, starts `minDelayMs` apart. */
  politeness: { minDelayMs: number; maxConcurrency: number };
  /** Whether to obey robots.txt (always true for real sites; an official API may document its own limits instead). */
  obeyRobots?: boolean;
  /** Where a full crawl starts (usually list page 1). */
  start(env: AdapterEnv): CrawlStep[];
  /** The step that re-checks one known lot (ending-soon schedule); null when the source has no per-lot view. */
  detailStep?(lot: { externalId: string; originalUrl: string }, env: AdapterEnv): CrawlStep | null;
  /** Builds the request of a step (default: GET its URL). */
  request?(step: CrawlStep, env: AdapterEnv): HttpRequest;
  /** For browser sources: a CSS selector that is present once the page has rendered. */
  waitForSelector?: string;
  router: LabelRouter;
};

/** Maps a step's label to its handler; an unknown label is a programming error. */
export class LabelRouter {
  private readonly handlers = new Map<CrawlLabel, RouteHandler>();

  addHandler(label: CrawlLabel, handler: RouteHandler): this {
    this.handlers.set(label, handler);
    return this;
  }

  route(page: FetchedPage, env: AdapterEnv): RouteResult {
    const handler = this.handlers.get(page.step.label);
    if (!handler) throw new Error(`no handler for label "${page.step.label}"`);
    return handler(page, env);
  }
}

export function createRouter(handlers: Partial<Record<CrawlLabel, RouteHandler>>): LabelRouter {
  const router = new LabelRouter();
  for (const [label, handler] of Object.entries(handlers)) if (handler) router.addHandler(label as CrawlLabel, handler);
  return router;
}

/**
 * A page that does not hold what its handler expects (garbage HTML, a changed layout).
 * Recorded against the page and skipped; the rest of the crawl goes on.
 */
export class ParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ParseError';
  }
}

/**
 * The page says the lot is not there (removed, never existed) although it answered 200: a modern
 * site renders its "not found" template with a success status. Recorded like an HTTP 404, never
 * as a parse failure (it says nothing about the layout).
 */
export class NotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotFoundError';
  }
}

export function adapterEnv(adapter: SourceAdapter, config: Config): AdapterEnv {
  return { config, baseUrl: adapter.baseUrl(config) };
}

export function adapterHosts(adapter: SourceAdapter, config: Config): string[] {
  return adapter.hosts?.(config) ?? [new URL(adapter.baseUrl(config)).host];
}
