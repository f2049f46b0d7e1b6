/**
 * The one place that reads the environment. Parsed once at start; a bad value stops start-up
 * with every bad variable named. Everything else reads the typed `Config` object.
 * Every variable here is documented in `.env.example`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import dotenv from 'dotenv';
import { z } from 'zod';
import { armFaultPoint, FAULT_POINTS } from './fault-points.js';

export const SERVICE_NAMES = ['api', 'crawler', 'scorer', 'matcher', 'notifier', 'scheduler'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const blankToUndefined = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim());

const optionalUrl = z.string().optional().transform(blankToUndefined).pipe(z.string().url().optional());

const optionalString = z.string().optional().transform(blankToUndefined);

const csv = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

/** The shortest claim timeout that outlasts everything a claimer can still do with its messages. */
export function minClaimTimeoutMs(sendTimeoutMs: number): number {
  return 4 * sendTimeoutMs + 60_000;
}

const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** `auto`: readable lines on a terminal, JSON otherwise; `json` or `pretty` to choose. */
    LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
    HOST: z.string().default('0.0.0.0'),
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    DATA_DIR: z.string().default('.data'),
    APP_URL: optionalUrl,
    CORS_ORIGINS: csv.optional(),
    BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(50 * 1024 * 1024).default(1024 * 1024),
    TRUST_PROXY: bool.default(false),

    DATABASE_URL: optionalUrl,
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
    /** 0: the embedded PostgreSQL listens on its Unix socket only; N: also on 127.0.0.1:N. */
    EMBEDDED_PG_PORT: z.coerce.number().int().min(0).max(65535).default(0),
    REDIS_URL: optionalUrl,

    SERVICES: csv
      .pipe(z.array(z.enum(SERVICE_NAMES)))
      .default([...SERVICE_NAMES]),
    SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(1000).default(20_000),
    /** A process running no API (a worker's own entry point) serves /health and /metrics here; 0 = any free port (logged). */
    HEALTH_HOST: z.string().default('127.0.0.1'),
    HEALTH_PORT: z.coerce.number().int().min(0).max(65535).default(0),
    /** Bearer token for /metrics; unset: /metrics answers loopback clients only. */
    METRICS_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),

    JWT_SECRET: optionalString,
    ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(30).default(15 * 60),
    REFRESH_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).default(30 * 24 * 3600),
    PASSWORD_RESET_TTL_SECONDS: z.coerce.number().int().min(60).default(24 * 3600),
    GOOGLE_CLIENT_ID: optionalString,
    GOOGLE_JWKS_URL: z.string().url().default('https://www.googleapis.com/oauth2/v3/certs'),
    /** Requests per minute per client IP on each of login, register and password reset. */
    AUTH_IP_RATE_LIMIT: z.coerce.number().int().min(1).default(20),
    /** Per e-mail address, per window: failed logins, registrations, reset requests (counted in PostgreSQL). */
    AUTH_ACCOUNT_RATE_LIMIT: z.coerce.number().int().min(1).default(10),
    AUTH_ACCOUNT_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(15 * 60),
    /** Analytics events (`POST /api/events/`): requests per minute per client IP. */
    EVENTS_RATE_LIMIT: z.coerce.number().int().min(1).default(120),

    MAIL_FROM: z.string().default('Deal Radar <alerts@dealradar.local>'),
    SENDGRID_API_KEY: optionalString,
    SENDGRID_BASE_URL: optionalUrl,
    SMTP_URL: optionalUrl,
    TWILIO_ACCOUNT_SID: optionalString,
    TWILIO_AUTH_TOKEN: optionalString,
    TWILIO_FROM_NUMBER: optionalString,
    /** Where the twilio SDK sends API calls (tests: a local fake); unset = Twilio itself. */
    TWILIO_API_BASE_URL: optionalUrl,
    /**
     * SendGrid's event webhook verification key (Settings → Mail Settings → Signed Event Webhook):
     * the base64 ECDSA public key. Unset, the webhook answers 503 (events are not trusted unsigned).
     */
    SENDGRID_WEBHOOK_PUBLIC_KEY: optionalString,
    /** Instant e-mails / SMS per alert per UTC day; matches beyond roll into the next daily digest. */
    ALERT_DAILY_EMAIL_CAP: z.coerce.number().int().min(0).max(1000).default(5),
    ALERT_DAILY_SMS_CAP: z.coerce.number().int().min(0).max(1000).default(3),
    /** UTC hour (0–23) at which daily alert digests are gathered and sent. */
    ALERT_DIGEST_HOUR_UTC: z.coerce.number().int().min(0).max(23).default(7),
    /** Watchlist messages per user per UTC day (e-mail, SMS); SMS beyond its cap go by e-mail, e-mail beyond its cap is not sent. */
    WATCH_DAILY_EMAIL_CAP: z.coerce.number().int().min(0).max(10_000).default(60),
    WATCH_DAILY_SMS_CAP: z.coerce.number().int().min(0).max(1000).default(20),
    /** What is it worth (issue 38): estimates a Free account (or an address without one) may ask for per day; Pro: unlimited. */
    ESTIMATE_FREE_DAILY: z.coerce.number().int().min(0).max(10_000).default(10),
    /** Estimates per minute per account and per address, whatever the plan. */
    ESTIMATE_RATE_PER_MINUTE: z.coerce.number().int().min(1).max(10_000).default(30),
    /** How often the scheduler asks for due watchlist reminders (node-cron, seconds field allowed). */
    WATCH_REMIND_SCHEDULE: z.string().default('*/15 * * * * *'),
    /** How often the crawler re-checks watched lots near their close (node-cron). */
    WATCH_RECHECK_SCHEDULE: z.string().default('*/2 * * * *'),
    /** Match jobs (one changed listing each) each matcher process runs at once. */
    MATCH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
    /** Jobs each notifier process runs at once, per queue (`notify`: one message; `notify-batch`: a batch). */
    NOTIFY_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(8),
    /** Instant alert messages per `notify-batch` job (the matcher splits a listing's matches into batches). */
    NOTIFY_BATCH_SIZE: z.coerce.number().int().min(1).max(500).default(50),
    /** Messages of one batch handed to the transport at once (SendGrid/Twilio calls in flight per batch). */
    NOTIFY_SEND_PARALLELISM: z.coerce.number().int().min(1).max(64).default(8),
    /** How long one send (a SendGrid or Twilio request, an SMTP exchange) may take before it is given up and retried. */
    NOTIFY_SEND_TIMEOUT_MS: z.coerce.number().int().min(1000).max(120_000).default(15_000),
    /**
     * A message claimed for sending longer ago than this belongs to a sender that is gone (died,
     * or its job gave up): the notifier's sweep and the next job may send it. Must outlast any
     * send the claimer can still have in flight (checked below against NOTIFY_SEND_TIMEOUT_MS).
     */
    NOTIFY_CLAIM_TIMEOUT_SECONDS: z.coerce.number().int().min(60).max(7 * 24 * 3600).default(600),
    /**
     * The notifier's sweep for messages that would otherwise never be sent (queued with no job,
     * or held by a sender gone for NOTIFY_CLAIM_TIMEOUT_SECONDS): how often it runs (and once at
     * start), and how long a message must have sat queued before the sweep gives it a job.
     */
    NOTIFY_SWEEP_INTERVAL_MS: z.coerce.number().int().min(1000).max(24 * 3_600_000).default(5 * 60_000),
    NOTIFY_STRANDED_AFTER_SECONDS: z.coerce.number().int().min(5).max(24 * 3600).default(60),

    STRIPE_SECRET_KEY: optionalString,
    STRIPE_WEBHOOK_SECRET: optionalString,
    STRIPE_PRICE_PRO_MONTHLY: optionalString,
    STRIPE_PRICE_PRO_YEARLY: optionalString,
    STRIPE_API_BASE_URL: optionalUrl,

    CRAWL_SOURCES: csv.default(['gsaauctions']),
    CRAWL_SCHEDULE: z.string().default('0 * * * *'),
    CRAWL_ENDING_SOON_SCHEDULE: z.string().default('*/15 * * * *'),
    /** When the fair-value model is retrained on all sales history (then every listing is rescored). */
    MODEL_TRAIN_SCHEDULE: z.string().default('30 3 * * *'),
    /**
     * Threads a training grows its boosted models in (default: two where the machine has two
     * cores). The model is the same with any; 1 leaves a core to an API sharing a small machine.
     */
    MODEL_TRAIN_THREADS: z.coerce.number().int().min(1).max(8).optional(),
    /**
     * The nice value a training runs at (0–19), so the API and scoring on the same machine go
     * first; default 10, and 0 under tests (a suite's own processes must not starve its trainings).
     */
    MODEL_TRAIN_NICE: z.coerce.number().int().min(0).max(19).optional(),
    /** When open auctions priced under fair value are rescored as their time left shrinks. */
    SCORE_TIME_LEFT_SCHEDULE: z.string().default('*/15 * * * *'),
    VALUATION_BOOTSTRAP: bool.optional(),
    /**
     * Fault drills and tests only: every worker's job lock and stalled-job check, in ms. A worker
     * killed with jobs in hand leaves them "active" until their lock lapses; then any worker's
     * stalled check puts them back. Unset, each queue keeps its own (30 s, longer for long jobs).
     */
    QUEUE_LOCK_MS: z.coerce.number().int().min(500).max(3_600_000).optional(),
    QUEUE_STALLED_INTERVAL_MS: z.coerce.number().int().min(200).max(3_600_000).optional(),
    /**
     * Fault drills and tests only: `<point>[:<n>]` makes the process send itself FAULT_SIGNAL the
     * n-th time it reaches a named point (services/shared/fault-points.ts). Refused in production.
     */
    FAULT_POINT: z
      .string()
      .optional()
      .transform(blankToUndefined)
      .pipe(
        z
          .string()
          .refine((v) => /^[a-z-]+(:[1-9]\d{0,5})?$/.test(v) && (FAULT_POINTS as readonly string[]).includes(v.split(':')[0]!), {
            message: `must be <point>[:<n>], a point one of ${FAULT_POINTS.join(', ')}`,
          })
          .optional(),
      ),
    FAULT_SIGNAL: z
      .string()
      .optional()
      .transform(blankToUndefined)
      .pipe(z.enum(['SIGKILL', 'SIGTERM', 'SIGINT']).default('SIGKILL')),
    CRAWL_ALLOW_ONLY_LOOPBACK: bool.optional(),
    CRAWL_USER_AGENT_CONTACT: z.string().default('https://github.com/deal-radar/deal-radar'),
    GSA_API_KEY: z.string().default('DEMO_KEY'),
    /** Per-source base URL overrides, `name=url,name=url` (tests point the real adapters at recorded pages on 127.0.0.1). */
    SOURCE_BASE_URLS: z
      .string()
      .default('')
      .transform((v, ctx) => {
        const urls: Record<string, string> = {};
        for (const entry of v.split(',').map((s) => s.trim()).filter(Boolean)) {
          const at = entry.indexOf('=');
          const name = entry.slice(0, at).trim();
          const url = entry.slice(at + 1).trim();
          if (at <= 0 || !/^[a-z0-9-]+$/.test(name) || !URL.canParse(url) || !/^https?:/.test(url)) {
            ctx.addIssue({ code: 'custom', message: `"${entry}" is not source=http(s)://url` });
            return z.NEVER;
          }
          urls[name] = url.replace(/\/+$/, '');
        }
        return urls;
      }),
    DEMO_SITE_PORT: z.coerce.number().int().min(0).max(65535).default(0),
    /** Address the demo site listens on (`npm run demo:site`; 0.0.0.0 in its container). */
    DEMO_SITE_HOST: z.string().min(1).default('127.0.0.1'),
    /** A `Crawl-delay` (seconds) in the demo site's robots.txt; 0 = none (the compose smoke sets one). */
    DEMO_SITE_CRAWL_DELAY: z.coerce.number().min(0).max(60).default(0),
    /** Where the demo source's adapter finds the demo auction site (set by `npm run demo` and tests). */
    DEMO_SITE_URL: optionalUrl,
    DEMO_SITE_SEED: z.coerce.number().int().min(0).default(42),
    /** Demo clock speed: 60 = one demo minute per real second. */
    DEMO_SITE_SPEED: z.coerce.number().min(0.01).max(100_000).default(60),
    DEMO_SITE_LOTS: z.coerce.number().int().min(1).max(200_000).default(600),
    /** Enqueue one crawl of every enabled source when the scheduler starts (the demo sets it). */
    CRAWL_ON_START: bool.default(false),
    CRAWL_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
    CRAWL_TIMEOUT_MS: z.coerce.number().int().min(500).max(300_000).default(30_000),
    /** Responses larger than this are cut and recorded, never parsed. */
    CRAWL_MAX_BODY_BYTES: z.coerce.number().int().min(1024).max(200 * 1024 * 1024).default(8 * 1024 * 1024),
    CRAWL_BROWSER_PAGES: z.coerce.number().int().min(1).max(8).default(2),

    /**
     * Listings API: how long (at least) a filter's result count is reused; costly counts are kept
     * longer (up to 12×), a search's analysis 12× as long. 0 = count and analyse on every request
     * (the default under tests).
     */
    LISTINGS_COUNT_CACHE_SECONDS: z.coerce.number().min(0).max(3600).optional(),
    /**
     * Listings API: how many listing cards each API process keeps in memory (dropped as soon as
     * the listing changes; category and site names reused up to 60 s). 0 = read every card.
     */
    LISTINGS_CARD_CACHE_SIZE: z.coerce.number().int().min(0).max(1_000_000).default(20_000),
    /**
     * Listings API: the file each API process restores its listing index from at start (seconds
     * instead of a load from PostgreSQL at a million listings) and keeps a recent snapshot in.
     * Default `<DATA_DIR>/listing-index.snapshot` (off under tests); `off` = always load from PostgreSQL.
     */
    LISTINGS_INDEX_SNAPSHOT: z.string().min(1).optional(),
    /**
     * Listings API: a list request answers at once from the listing index when it synced with the
     * change log this recently (ms) or a sync is running, instead of waiting for a sync (a change
     * is listed within ~0.5 s + two syncs, under the 2 s contract). 0 = every request waits for a
     * sync started after it (read-your-writes: the default under tests).
     */
    LISTINGS_INDEX_MAX_STALENESS_MS: z.coerce.number().int().min(0).max(1000).optional(),

    SHARED_DIR: z.string().default('../shared'),
    CI: bool.default(false),
  })
  .transform((env, ctx) => {
    // A generated secret (kept under DATA_DIR) only works where every process shares that folder:
    // the embedded single-machine product. A production deployment on its own PostgreSQL
    // (replicas, containers) must say which secret it signs with, and a weak one is refused.
    const weakSecret = env.JWT_SECRET !== undefined && env.JWT_SECRET.length < 32;
    if (env.NODE_ENV === 'production' && (weakSecret || (!env.JWT_SECRET && env.DATABASE_URL))) {
      ctx.issues.push({
        code: 'custom',
        path: ['JWT_SECRET'],
        input: env.JWT_SECRET,
        message:
          'JWT_SECRET is required when NODE_ENV=production with DATABASE_URL, and must be at least 32 random characters (e.g. `openssl rand -base64 48`)',
      });
      return z.NEVER;
    }
    // A fault point kills the process on purpose: never where real work runs.
    if (env.NODE_ENV === 'production' && env.FAULT_POINT) {
      ctx.issues.push({ code: 'custom', path: ['FAULT_POINT'], input: env.FAULT_POINT, message: 'is for fault drills and tests: not allowed when NODE_ENV=production' });
      return z.NEVER;
    }
    // A claim must outlive every send its holder can still have in flight, or a merely slow
    // sender's message is claimed and sent again: a batch lane sends up to two of its wave's
    // claims in turn; the rest is headroom for the sent mark and a busy machine.
    if (env.NOTIFY_CLAIM_TIMEOUT_SECONDS * 1000 < minClaimTimeoutMs(env.NOTIFY_SEND_TIMEOUT_MS)) {
      ctx.issues.push({
        code: 'custom',
        path: ['NOTIFY_CLAIM_TIMEOUT_SECONDS'],
        input: env.NOTIFY_CLAIM_TIMEOUT_SECONDS,
        message: `must be at least ${Math.ceil(minClaimTimeoutMs(env.NOTIFY_SEND_TIMEOUT_MS) / 1000)} s (4 × NOTIFY_SEND_TIMEOUT_MS + 60 s), or a slow send could be claimed and sent twice`,
      });
      return z.NEVER;
    }
    const dataDir = path.resolve(env.DATA_DIR);
    const appUrl = env.APP_URL ?? `http://localhost:${env.PORT}`;
    const isTest = env.NODE_ENV === 'test';
    return {
      ...env,
      DATA_DIR: dataDir,
      SHARED_DIR: path.resolve(env.SHARED_DIR),
      APP_URL: appUrl.replace(/\/+$/, ''),
      CORS_ORIGINS: env.CORS_ORIGINS ?? [new URL(appUrl).origin],
      // Under tests and CI no real source may be reached: the fetcher only talks to loopback.
      CRAWL_ALLOW_ONLY_LOOPBACK: env.CRAWL_ALLOW_ONLY_LOOPBACK ?? (isTest || env.CI),
      // Tests insert listings between requests and must see exact counts at once.
      LISTINGS_COUNT_CACHE_SECONDS: env.LISTINGS_COUNT_CACHE_SECONDS ?? (isTest ? 0 : 5),
      // Tests write listings between requests and expect the next one to list them.
      LISTINGS_INDEX_MAX_STALENESS_MS: env.LISTINGS_INDEX_MAX_STALENESS_MS ?? (isTest ? 0 : 250),
      // Tests share DATA_DIR across databases: a test that wants a snapshot names its own file.
      LISTINGS_INDEX_SNAPSHOT:
        env.LISTINGS_INDEX_SNAPSHOT === 'off' || (isTest && !env.LISTINGS_INDEX_SNAPSHOT)
          ? null
          : path.resolve(env.LISTINGS_INDEX_SNAPSHOT ?? path.join(dataDir, 'listing-index.snapshot')),
      QUEUE_BACKEND: env.REDIS_URL ? ('redis' as const) : ('postgres' as const),
      // A fresh installation imports the Fast Iron sales and trains its first model (not under tests).
      VALUATION_BOOTSTRAP: env.VALUATION_BOOTSTRAP ?? !isTest,
      MODEL_TRAIN_NICE: env.MODEL_TRAIN_NICE ?? (isTest ? 0 : 10),
    };
  });

export type Config = z.infer<typeof envSchema>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses an environment (default: `process.env`). Throws `ConfigError` naming every bad variable. */
export function parseConfig(env: Record<string, string | undefined> = process.env): Config {
  const result = envSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const name = issue.path.join('.') || '(environment)';
      const value = env[String(issue.path[0])];
      return `${name}: ${issue.message}${value !== undefined ? ` (got ${JSON.stringify(value)})` : ''}`;
    });
    throw new ConfigError(problems);
  }
  return result.data;
}

/**
 * The environment a child process starts with: this process's, with `changes` on top (the one
 * place besides parseConfig that reads process.env: scripts that start the product's processes).
 */
export function childEnvironment(changes: Record<string, string> = {}): Record<string, string | undefined> {
  return { ...process.env, ...changes };
}

/**
 * The variables of a `.env` file (default: the working directory's), or none when there is no
 * such file. Only read here; a malformed line is skipped as dotenv does.
 */
export function readEnvFile(file = path.resolve('.env')): Record<string, string> {
  try {
    return dotenv.parse(readFileSync(file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
}

export type EnvironmentLayers = {
  /** Defaults of one entry point (the demo's quieter log level), under everything else. */
  defaults?: Record<string, string>;
  /** Values an entry point insists on (the demo's source), over everything else. */
  overrides?: Record<string, string>;
  /** The `.env` file's variables (default: read from the working directory). */
  file?: Record<string, string>;
  /** The process environment (default: `process.env`). */
  env?: Record<string, string | undefined>;
};

/** The environment a process runs with: defaults < `.env` < the real environment < overrides. */
export function layeredEnvironment(layers: EnvironmentLayers = {}): Record<string, string | undefined> {
  return { ...layers.defaults, ...(layers.file ?? readEnvFile()), ...(layers.env ?? process.env), ...layers.overrides };
}

let cached: Config | undefined;

/** The process's configuration, parsed once: its environment over the `.env` file. */
export function loadConfig(layers: Pick<EnvironmentLayers, 'defaults' | 'overrides'> = {}): Config {
  if (!cached) {
    cached = parseConfig(layeredEnvironment(layers));
    // The process's own configuration (not one a test parses) is the one that arms a fault point.
    armFaultPoint(cached);
  }
  return cached;
}
