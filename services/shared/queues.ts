/**
 * Every queue between the pipeline's stages in one place: its name, payload schema, job options
 * and job-id builder. Producers validate before adding; workers re-validate before processing.
 *
 *   crawl ──► score ──► match ──► notify
 *   model ──► score-batch ──► match
 *
 * Backends: BullMQ on PostgreSQL (same database, default) or on Redis when REDIS_URL is set.
 * Job ids are deterministic, so adding the same work twice runs it once.
 */
import { createHash } from 'node:crypto';
import {
  createPostgresBackend,
  Queue,
  UnrecoverableError,
  Worker,
  type Job,
  type JobsOptions,
  type WorkerOptions,
} from 'bullmq';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { NonRetryableError } from './errors.js';
import type { Logger } from './logger.js';

const defaultJobOptions: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  // Completed ids are kept a day so re-adding the same work within it is a no-op;
  // failed jobs are kept a month as the record of what failed and why.
  removeOnComplete: { age: 24 * 3600, count: 50_000 },
  removeOnFail: { age: 30 * 24 * 3600, count: 50_000 },
};

/** A short stable digest for job ids (BullMQ ids may not contain ':'). */
export function digest(value: string): string {
  return createHash('sha1').update(value).digest('hex').slice(0, 16);
}

const crawlPayload = z.object({
  source: z.string().min(1).max(64),
  /** The router label of this step: `start` lists a source, `list` is one list page, `detail` one lot, `update` completes lots just listed (bids, images). */
  label: z.enum(['start', 'list', 'detail', 'update']),
  url: z.string().url().max(4096).optional(),
  page: z.number().int().min(1).max(100_000).optional(),
  externalId: z.string().max(512).optional(),
  /** The lots one batched request asks about (e.g. a search page's bid info). */
  lotIds: z.array(z.string().min(1).max(200)).max(200).optional(),
  runId: z.number().int().positive().optional(),
  /** Why the crawl was asked for; the scheduler's tick slot makes scheduled ids unique per tick. */
  /** `watched` (issue 31): only watched lots near their close, re-checked every few minutes. */
  reason: z.enum(['scheduled', 'ending-soon', 'watched', 'manual']).default('scheduled'),
  slot: z.string().max(64).optional(),
  /** How many times the step was put back for a host's Retry-After (bounded, unlike politeness waits). */
  deferrals: z.number().int().min(0).max(1000).optional(),
});

const scorePayload = z.object({
  listingId: z.number().int().positive(),
  reason: z.enum(['new', 'changed', 'rescore']),
  /** What changed (an observation id, a model version…): part of the job id. */
  version: z.string().min(1).max(64),
});

/** The most listings one `score-batch` job values: one read, one block prediction, one write. */
export const SCORE_BATCH_MAX = 1000;

/**
 * A batch of listings to rescore together (after a new model): the model's block prediction and
 * one write per batch instead of a job per listing.
 */
const scoreBatchPayload = z.object({
  /** Ascending listing ids. */
  listingIds: z.array(z.number().int().positive()).min(1).max(SCORE_BATCH_MAX),
  /** Why (e.g. `model-12`): part of the job id, as for `score`. */
  version: z.string().min(1).max(64),
});

const matchPayload = z.object({
  listingId: z.number().int().positive(),
  event: z.enum(['new', 'scored', 'price_drop']),
  /** Distinguishes events of the same kind (e.g. the score's version). */
  eventKey: z.string().min(1).max(64),
});

const notifyPayload = z.discriminatedUnion('channel', [
  z.object({
    channel: z.literal('email'),
    /** Idempotency key: one message per key, however many times the job is added or run. */
    messageKey: z.string().min(1).max(200),
    to: z.string().email().max(320),
    subject: z.string().min(1).max(500),
    text: z.string().max(200_000),
    html: z.string().max(500_000).optional(),
    kind: z.string().max(64).default('generic'),
    notificationId: z.number().int().positive().optional(),
  }),
  z.object({
    channel: z.literal('sms'),
    messageKey: z.string().min(1).max(200),
    to: z.string().min(4).max(32),
    body: z.string().min(1).max(1600),
    kind: z.string().max(64).default('generic'),
    notificationId: z.number().int().positive().optional(),
  }),
]);

/**
 * A batch of instant alert messages already recorded in the message log (by the matcher), sent
 * by one job: one job per batch instead of one per message keeps the queue's own cost off each
 * e-mail. The message log still decides, per message, what is sent (once).
 */
const notifyBatchPayload = z.object({
  /** The listing the messages are about (part of the job id; for logs). */
  listingId: z.number().int().positive(),
  messageKeys: z.array(z.string().min(1).max(200)).min(1).max(500),
});

/** The valuation model's jobs: retrain on all sales history, or rescore every listing after a new model. */
const modelPayload = z.object({
  action: z.enum(['train', 'rescore-all']),
  reason: z.enum(['scheduled', 'manual', 'new-model', 'bootstrap']).default('manual'),
  /** The model version to rescore with (rescore-all after training): part of the job id. */
  version: z.number().int().positive().optional(),
  /** The scheduler's tick slot or a manual request's timestamp: part of the job id. */
  slot: z.string().max(64).optional(),
});

/** The daily alert digest: gather each daily alert's matches of the day into one message. */
const alertDigestPayload = z.object({
  /** The UTC day being digested, `YYYY-MM-DD`. */
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  /** The scheduler's tick slot (or a manual request's tag): part of the job id. */
  slot: z.string().min(1).max(64),
});

/** Watchlist reminders and notices due now (issue 31): the scheduler's tick every ~15 s. */
const watchDuePayload = z.object({
  /** The tick's time to the second (`20261121140515`) or a manual tag: the job id, so replicas add each tick once. */
  slot: z.string().min(1).max(64),
});

type QueueDefinition<S extends z.ZodType> = {
  name: string;
  payload: S;
  jobOptions: JobsOptions;
  jobId: (payload: z.output<S>) => string;
};

function defineQueue<S extends z.ZodType>(def: QueueDefinition<S>): QueueDefinition<S> {
  return def;
}

export const QUEUES = {
  crawl: defineQueue({
    name: 'crawl',
    payload: crawlPayload,
    jobOptions: { ...defaultJobOptions, attempts: 4, backoff: { type: 'exponential', delay: 5000 } },
    // A start job's id names its reason with the tick: the regular crawl and the ending-soon
    // re-check fire in the same minute (hourly at :00 and every 15 min), and with the slot alone
    // the second was taken for a repeat of the first and dropped — the regular crawl never ran.
    jobId: (p) =>
      ['crawl', p.source, p.label, digest(`${p.url ?? ''}|${p.page ?? ''}|${p.externalId ?? ''}`), p.runId ?? (p.slot ? `${p.reason ?? 'scheduled'}-${p.slot}` : 'adhoc')].join('-'),
  }),
  score: defineQueue({
    name: 'score',
    payload: scorePayload,
    jobOptions: defaultJobOptions,
    jobId: (p) => `score-${p.listingId}-${digest(p.version)}`,
  }),
  scoreBatch: defineQueue({
    name: 'score-batch',
    payload: scoreBatchPayload,
    jobOptions: defaultJobOptions,
    jobId: (p) => `score-batch-${p.listingIds[0]}-${p.listingIds.length}-${digest(`${p.version}|${p.listingIds.join(',')}`)}`,
  }),
  match: defineQueue({
    name: 'match',
    payload: matchPayload,
    jobOptions: defaultJobOptions,
    jobId: (p) => `match-${p.listingId}-${p.event}-${digest(p.eventKey)}`,
  }),
  notify: defineQueue({
    name: 'notify',
    payload: notifyPayload,
    jobOptions: { ...defaultJobOptions, attempts: 6, backoff: { type: 'exponential', delay: 2000 } },
    jobId: (p) => `notify-${digest(p.messageKey)}`,
  }),
  notifyBatch: defineQueue({
    name: 'notify-batch',
    payload: notifyBatchPayload,
    jobOptions: { ...defaultJobOptions, attempts: 6, backoff: { type: 'exponential', delay: 2000 } },
    jobId: (p) => `notify-batch-${p.listingId}-${digest(p.messageKeys.join(','))}`,
  }),
  alertDigest: defineQueue({
    name: 'alert-digest',
    payload: alertDigestPayload,
    jobOptions: defaultJobOptions,
    jobId: (p) => `alert-digest-${p.day}-${digest(p.slot)}`,
  }),
  watchDue: defineQueue({
    name: 'watch-due',
    payload: watchDuePayload,
    // A tick missed is covered by the next one (15 s later): no retries piling up behind it.
    jobOptions: { ...defaultJobOptions, attempts: 2, backoff: { type: 'fixed', delay: 5000 }, removeOnComplete: { age: 3600, count: 1000 } },
    jobId: (p) => `watch-due-${digest(p.slot)}`,
  }),
  model: defineQueue({
    name: 'model',
    payload: modelPayload,
    // training is long and rarely helped by a quick retry
    jobOptions: { ...defaultJobOptions, attempts: 2, backoff: { type: 'exponential', delay: 60_000 } },
    jobId: (p) => `model-${p.action}-${p.version ?? p.slot ?? 'adhoc'}`,
  }),
} as const;

export type QueueName = keyof typeof QUEUES;
export type Payload<N extends QueueName> = z.output<(typeof QUEUES)[N]['payload']>;
export type PayloadInput<N extends QueueName> = z.input<(typeof QUEUES)[N]['payload']>;
export const QUEUE_NAMES = Object.keys(QUEUES) as QueueName[];

export type QueueBackendConfig = { kind: 'postgres'; url: string } | { kind: 'redis'; url: string };

/** `token` is the worker's lock token, needed to move the job back to delayed (politeness waits). */
export type JobHandler<N extends QueueName> = (payload: Payload<N>, job: Job, token?: string) => Promise<unknown>;

export type WorkerSettings = Pick<WorkerOptions, 'concurrency' | 'limiter' | 'lockDuration' | 'settings' | 'stalledInterval' | 'maxStalledCount'>;

/**
 * Owns the queue connections of one process. Queues are created lazily and shared; each worker
 * gets its own connection (BullMQ needs a blocking connection per worker).
 */
export class QueueRuntime {
  private readonly queues = new Map<QueueName, Queue>();
  private readonly workers: Worker[] = [];
  private producerRedis: Redis | undefined;
  private readonly workerRedis: Redis[] = [];
  /** Extra options for every queue/worker (tests use a prefix to isolate runs). */
  constructor(
    readonly backend: QueueBackendConfig,
    private readonly logger: Logger,
    private readonly opts: { prefix?: string; poolMax?: number; /** Overrides every worker's (fault drills, tests). */ lockDuration?: number; stalledInterval?: number } = {},
  ) {}

  private connectionOptions(forWorker: boolean): Record<string, unknown> {
    if (this.backend.kind === 'postgres') {
      return {
        connection: {
          connectionString: this.backend.url,
          migrate: true, // without it a worker spins in a tight error loop (STACK-NOTES)
          max: this.opts.poolMax ?? 4,
          ...(this.opts.prefix ? { schema: this.opts.prefix } : {}),
        },
      };
    }
    if (forWorker) {
      const connection = new Redis(this.backend.url, { maxRetriesPerRequest: null });
      this.workerRedis.push(connection);
      return { connection, ...this.prefixOption() };
    }
    // Producers fail fast when Redis is down instead of queueing commands forever.
    this.producerRedis ??= new Redis(this.backend.url, { maxRetriesPerRequest: 1, enableOfflineQueue: true });
    return { connection: this.producerRedis, ...this.prefixOption() };
  }

  private stallOverrides(): WorkerSettings {
    return {
      ...(this.opts.lockDuration ? { lockDuration: this.opts.lockDuration } : {}),
      ...(this.opts.stalledInterval ? { stalledInterval: this.opts.stalledInterval } : {}),
    };
  }

  private prefixOption(): { prefix?: string } {
    return this.opts.prefix ? { prefix: this.opts.prefix } : {};
  }

  private construct<T>(make: (opts: Record<string, unknown>, factory?: unknown) => T, forWorker: boolean): T {
    const opts = this.connectionOptions(forWorker);
    return this.backend.kind === 'postgres' ? make(opts, createPostgresBackend) : make(opts);
  }

  queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      const def = QUEUES[name];
      queue = this.construct(
        (opts, factory) =>
          // eslint-disable-next-line @typescript-eslint/no-explicit-any
          new (Queue as any)(def.name, { ...opts, defaultJobOptions: def.jobOptions }, factory) as Queue,
        false,
      );
      queue.on('error', (err) => this.logger.error({ err, queue: name }, 'queue error'));
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** Validates the payload and adds the job under its deterministic id. */
  async enqueue<N extends QueueName>(name: N, input: PayloadInput<N>, opts: JobsOptions = {}): Promise<Job> {
    const def = QUEUES[name];
    const payload = def.payload.parse(input) as Payload<N>;
    const jobId = opts.jobId ?? (def.jobId as (p: Payload<N>) => string)(payload);
    return this.queue(name).add(name, payload, { ...opts, jobId });
  }

  /** Adds many jobs of one queue in one round trip. */
  async enqueueBulk<N extends QueueName>(name: N, inputs: PayloadInput<N>[]): Promise<void> {
    if (inputs.length === 0) return;
    const def = QUEUES[name];
    const jobs = inputs.map((input) => {
      const payload = def.payload.parse(input) as Payload<N>;
      return { name, data: payload, opts: { jobId: (def.jobId as (p: Payload<N>) => string)(payload) } };
    });
    await this.queue(name).addBulk(jobs);
  }

  /**
   * Starts a worker whose handler receives a re-validated payload. An invalid payload or a
   * NonRetryableError fails the job at once (no retries); anything else is retried with backoff.
   */
  worker<N extends QueueName>(name: N, handler: JobHandler<N>, settings: WorkerSettings = {}): Worker {
    const def = QUEUES[name];
    const log = this.logger.child({ queue: name });
    const processor = async (job: Job, token?: string) => {
      const parsed = def.payload.safeParse(job.data);
      if (!parsed.success) {
        throw new UnrecoverableError(`invalid ${name} payload: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
      }
      try {
        return await handler(parsed.data as Payload<N>, job, token);
      } catch (err) {
        if (err instanceof NonRetryableError) throw new UnrecoverableError(err.message);
        throw err;
      }
    };
    const worker = this.construct(
      (opts, factory) =>
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        new (Worker as any)(def.name, processor, { ...opts, concurrency: 1, ...settings, ...this.stallOverrides() }, factory) as Worker,
      true,
    );
    worker.on('failed', (job, err) =>
      log.warn({ jobId: job?.id, attempt: job?.attemptsMade, err: err.message }, 'job failed'),
    );
    worker.on('error', (err) => log.error({ err }, 'worker error'));
    this.workers.push(worker);
    return worker;
  }

  /** Round-trips to the queue store; used by /api/health/. */
  async ping(timeoutMs = 2000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('queue store did not answer in time')), timeoutMs);
    });
    try {
      await Promise.race([this.queue('score').getJobCounts('waiting'), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops workers first (they finish the job in hand, or release it), then closes queues. */
  async close(): Promise<void> {
    await Promise.allSettled(this.workers.map((w) => w.close()));
    await Promise.allSettled([...this.queues.values()].map((q) => q.close()));
    for (const connection of [...this.workerRedis, ...(this.producerRedis ? [this.producerRedis] : [])]) {
      connection.disconnect();
    }
    this.producerRedis = undefined;
    this.workerRedis.length = 0;
    this.workers.length = 0;
    this.queues.clear();
  }
}
