import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { sources } from './catalog.js';

/**
 * One crawl of one source (scheduled tick, ending-soon re-check or operator command), with its
 * running stats. `pendingSteps` counts queued steps not yet finished; the step that brings it
 * to zero finishes the run, so any crawler replica can finish it.
 */
export const crawlRuns = pgTable(
  'crawl_runs',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    sourceId: integer('source_id')
      .notNull()
      .references(() => sources.id),
    /** `scheduled`, `ending-soon` or `manual`. */
    reason: text('reason').notNull(),
    /** The tick slot or a per-command key: one run per (source, trigger), however often the start job runs. */
    triggerKey: text('trigger_key').notNull(),
    /** `running` or `finished`. */
    state: text('state').notNull().default('running'),
    /** When finished: `ok`, `empty`, `blocked` or `error`. */
    outcome: text('outcome'),
    dryRun: boolean('dry_run').notNull().default(false),
    /** Most lots (detail steps) this run may visit; null = all. */
    lotLimit: integer('lot_limit'),
    lotsQueued: integer('lots_queued').notNull().default(0),
    stepsTotal: integer('steps_total').notNull().default(0),
    pendingSteps: integer('pending_steps').notNull().default(0),
    pages: integer('pages').notNull().default(0),
    lotsNew: integer('lots_new').notNull().default(0),
    lotsUpdated: integer('lots_updated').notNull().default(0),
    lotsUnchanged: integer('lots_unchanged').notNull().default(0),
    errors: integer('errors').notNull().default(0),
    blocked: boolean('blocked').notNull().default(false),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('crawl_runs_source_trigger_key').on(t.sourceId, t.triggerKey),
    index('crawl_runs_source_started_idx').on(t.sourceId, t.startedAt),
  ],
);

/** Each step (page or lot) a run queued, once: makes step counting idempotent under retries and restarts. */
export const crawlRunSteps = pgTable(
  'crawl_run_steps',
  {
    runId: integer('run_id')
      .notNull()
      .references(() => crawlRuns.id, { onDelete: 'cascade' }),
    stepKey: text('step_key').notNull(),
    /** `pending`, `done`, `skipped` or `failed`. */
    state: text('state').notNull().default('pending'),
  },
  (t) => [primaryKey({ columns: [t.runId, t.stepKey] })],
);

/** What went wrong where: HTTP errors, parse errors, robots refusals, block pages, oversize bodies. */
export const crawlErrors = pgTable(
  'crawl_errors',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    runId: integer('run_id').references(() => crawlRuns.id, { onDelete: 'cascade' }),
    sourceId: integer('source_id')
      .notNull()
      .references(() => sources.id),
    url: text('url'),
    /** `http`, `network`, `parse`, `robots`, `blocked`, `refused`, `too-large`, `internal`. */
    kind: text('kind').notNull(),
    statusCode: integer('status_code'),
    message: text('message').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('crawl_errors_source_time_idx').on(t.sourceId, t.createdAt), index('crawl_errors_run_idx').on(t.runId)],
);

/**
 * Per-host politeness shared by every crawler replica: the earliest time the next request may
 * start, and the host's limits. Claimed under a row lock so two replicas never both go.
 */
export const hostPoliteness = pgTable('host_politeness', {
  host: text('host').primaryKey(),
  minDelayMs: integer('min_delay_ms').notNull(),
  maxConcurrency: integer('max_concurrency').notNull(),
  /** Requests in flight (the leases below); re-read under the row lock, so claims never overshoot. */
  inFlight: integer('in_flight').notNull().default(0),
  nextAllowedAt: timestamp('next_allowed_at', { withTimezone: true }).notNull().defaultNow(),
  /** Set by 429/503 Retry-After: nobody calls the host before it. */
  backoffUntil: timestamp('backoff_until', { withTimezone: true }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/** In-flight requests per host; a lease expires by itself if its worker dies mid-request. */
export const hostLeases = pgTable(
  'host_leases',
  {
    host: text('host')
      .notNull()
      .references(() => hostPoliteness.host, { onDelete: 'cascade' }),
    leaseId: text('lease_id').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.host, t.leaseId] })],
);

/** robots.txt per origin, cached (24 h for a fetched file, shorter for errors). */
export const robotsCache = pgTable('robots_cache', {
  origin: text('origin').primaryKey(),
  statusCode: integer('status_code'),
  body: text('body').notNull().default(''),
  /** `allow-all` (4xx), `disallow-all` (5xx/network), or `parsed`. */
  policy: text('policy').notNull(),
  fetchedAt: timestamp('fetched_at', { withTimezone: true }).notNull().defaultNow(),
  expiresAt: timestamp('expires_at', { withTimezone: true })
    .notNull()
    .default(sql`now() + interval '1 day'`),
});

export type CrawlRun = typeof crawlRuns.$inferSelect;
export type CrawlErrorRow = typeof crawlErrors.$inferSelect;
