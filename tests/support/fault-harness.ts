/**
 * The fault suite's harness (tests/e2e/fault-suite.test.ts, and `npm run soak`): the product's
 * worker processes run for real (two launchers: crawler, scorer and matcher; the notifier) against
 * a database cloned from a prepared base (sources, a buyer with alerts, a sales history, model 1)
 * and the demo auction site on 127.0.0.1 with a frozen clock; mail goes to a local SMTP server.
 *
 * One run goes through every job kind in turn: the first crawl (storing lots, scoring, matching,
 * instant e-mails), the daily digest, then a retrain and the rescore of every listing. With a
 * fault point set (FAULT_POINT, services/shared/fault-points.ts), the process holding it kills itself there;
 * the harness starts it again without the fault and lets it finish. The end state is then read
 * and compared with an uninterrupted run's.
 */
import { writeFileSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type postgres from 'postgres';
import { openSql, withDatabase } from '../../services/shared/database/connection-url.js';
import type { AppContext } from '../../services/shared/context.js';
import { QUEUE_NAMES } from '../../services/shared/queues.js';
import { insertAlertWithinLimit } from '../../services/shared/repositories/alerts-repository.js';
import { insertUser } from '../../services/shared/repositories/users-repository.js';
import { importFastIronSales } from '../../services/scorer/import-sales.js';
import { trainAndStoreModel } from '../../services/scorer/train-model.js';
import { syncSourcesFromConfig } from '../../services/crawler/index.js';
import { createRegistry } from '../../services/crawler/adapters/index.js';
import { CATEGORIES } from '../../services/shared/categories.js';
import { contextOn, type TestContext } from './context.js';
import type { FakeSmtp } from './fake-smtp.js';
import { baseEnv, runCliCommand, startProcess, type ServiceProcess } from './service-process.js';

export type FaultCase = { point: string; at: number };

export type EndState = {
  listings: number;
  observations: number;
  /** Listings with more than one observation (the demo clock is frozen: each lot is seen once). */
  listingsObservedTwice: number;
  modelVersions: number;
  /** Listings worth scoring, by the model version that scored them. */
  scoresByModelVersion: Record<string, number>;
  notifications: Record<string, number>;
  /** Messages in the message log by status, and the largest count for one (alert, listing). */
  messages: Record<string, number>;
  maxMessagesPerAlertListing: number;
  digests: number;
  maxDigestsPerAlertDay: number;
  /** Mails the SMTP server received, and how many message keys it received more than once. */
  mailsReceived: number;
  mailKeysReceivedTwice: string[];
  failedJobs: number;
  activeJobs: number;
};

export type Harness = {
  adminUrl: string;
  baseDb: string;
  env: (databaseUrl: string) => Record<string, string>;
  smtp: FakeSmtp;
  drop(): Promise<void>;
};

const SALES_ROWS = 800;
const SHARED = path.resolve(import.meta.dirname, '../..', process.env.SHARED_DIR ?? '../shared');

/** The first rows of the Fast Iron training file, as a file in the temp folder (read at run time, never kept). */
async function salesSubset(): Promise<string> {
  const lines: string[] = [];
  const rl = createInterface({ input: createReadStream(path.join(SHARED, 'data/bulldozers/Train_first10931rows.csv.gz')).pipe(createGunzip()) });
  for await (const line of rl) {
    lines.push(line);
    if (lines.length > SALES_ROWS) break;
  }
  rl.close();
  const file = path.join(os.tmpdir(), `fault-sales-${randomBytes(4).toString('hex')}.csv`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function contextFor(url: string, env: Record<string, string>): TestContext {
  return contextOn(url, { env: { ...env, LOG_LEVEL: 'silent' }, poolMax: 2, databaseMax: 3, logName: 'fault-harness' });
}

async function createDatabase(adminUrl: string, name: string, template: string): Promise<void> {
  const admin = openSql(adminUrl, { max: 1, onnotice: () => {} });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        return;
      } catch (err) {
        if (attempt >= 50) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    await admin.end();
  }
}

export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = openSql(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => admin.end());
}

/**
 * The base every run clones: migrated (from `template`), the demo source, a buyer with one
 * instant e-mail alert per equipment type and one daily alert (every deal and unscored lot
 * matches), 800 Fast Iron sales and model 1 trained on them.
 */
export async function prepareHarness(opts: { adminUrl: string; template: string; siteUrl: string; smtp: FakeSmtp }): Promise<Harness> {
  const baseDb = `fault_base_${randomBytes(4).toString('hex')}`;
  await createDatabase(opts.adminUrl, baseDb, opts.template);
  const url = withDatabase(opts.adminUrl, baseDb);
  const env = (databaseUrl: string) =>
    baseEnv(databaseUrl, {
      CRAWL_SOURCES: 'demo',
      DEMO_SITE_URL: opts.siteUrl,
      CRAWL_CONCURRENCY: '4',
      CRAWL_TIMEOUT_MS: '15000',
      SMTP_URL: opts.smtp.url,
      MAIL_FROM: 'alerts@dealradar.test',
      ALERT_DAILY_EMAIL_CAP: '1000',
      // The recovery bounds, shortened (docs/operations.md, "Recovery bounds"): a killed worker's
      // jobs are handed on within seconds (a 10 s lock, checked every second), not the
      // production half minute; a claim it held is stale after 92 s (the least an 8 s send
      // timeout allows), not 10 minutes; the notifier's sweep looks every 2 s, not every 5
      // minutes, for messages queued 30 s with no job. Not shorter: on a loaded machine (CI, a
      // shared box) a live worker must still renew its lock in time and a send to the local
      // SMTP server must end within its timeout, or work is done twice for real.
      QUEUE_LOCK_MS: '10000',
      QUEUE_STALLED_INTERVAL_MS: '1000',
      NOTIFY_SEND_TIMEOUT_MS: '8000',
      NOTIFY_CLAIM_TIMEOUT_SECONDS: '92',
      NOTIFY_SWEEP_INTERVAL_MS: '2000',
      NOTIFY_STRANDED_AFTER_SECONDS: '30',
      APP_URL: 'http://localhost:8080',
    });
  const ctx = contextFor(url, env(url));
  const sales = await salesSubset();
  try {
    await syncSourcesFromConfig(ctx, createRegistry());
    const user = await insertUser(ctx.database.db, { email: 'buyer@dealradar.test', firstName: 'Fault', lastName: 'Suite', passwordHash: 'x' });
    const criteria = { priceMin: null, priceMax: null, state: null, condition: null, deliveryMethod: 'email' as const, dealLevel: 'good' as const, minDealScore: 0, includeUnscored: true, keywords: null, keywordTerms: null, isActive: true, nearZip: null, nearLat: null, nearLon: null, radiusMiles: null };
    for (const category of CATEGORIES) {
      await insertAlertWithinLimit(ctx.database.db, user!.id, { ...criteria, categoryId: category.id, frequency: 'instant' }, null);
      await insertAlertWithinLimit(ctx.database.db, user!.id, { ...criteria, categoryId: category.id, frequency: 'daily' }, null);
    }
    await importFastIronSales(ctx.database.db, sales);
    await trainAndStoreModel(ctx.database.db);
  } finally {
    await ctx.close();
    const { rmSync } = await import('node:fs');
    rmSync(sales, { force: true });
  }
  return { adminUrl: opts.adminUrl, baseDb, env, smtp: opts.smtp, drop: () => dropDatabase(opts.adminUrl, baseDb) };
}

/**
 * The workers as two launcher processes (what `npm start` runs, without the API): the pipeline
 * (crawler, scorer, matcher) and the notifier. The fault is set on the one whose code holds the
 * point, so a kill cuts one job kind: a mail the server accepted but the notifier had not yet
 * marked sent is the one window no sender can close (docs/operations.md), and a kill aimed at
 * the matcher must not land in it by chance.
 */
const NOTIFIER_POINTS = ['notify-claimed', 'notify-sent'];
type Workers = { pipeline: ServiceProcess; notifier: ServiceProcess };
type Role = keyof Workers;

function startRole(h: Harness, url: string, role: Role, fault?: FaultCase): ServiceProcess {
  const faulted = fault && (NOTIFIER_POINTS.includes(fault.point) ? 'notifier' : 'pipeline') === role;
  return startProcess('services/main.ts', [], {
    ...h.env(url),
    SERVICES: role === 'notifier' ? 'notifier' : 'crawler,scorer,matcher',
    ...(faulted ? { FAULT_POINT: `${fault.point}:${fault.at}` } : {}),
  });
}

async function queuesIdle(ctx: AppContext): Promise<boolean> {
  for (const name of QUEUE_NAMES) {
    const counts = await ctx.queues.queue(name).getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    if (Object.values(counts).some((n) => n > 0)) return false;
  }
  return true;
}

async function one(sql: postgres.Sql, query: string): Promise<number> {
  const rows = await sql.unsafe(query);
  return Number((rows[0] as { n: number } | undefined)?.n ?? 0);
}

export type RunResult = {
  killed: boolean;
  restarts: number;
  /** The end state after each phase run (the last one is the run's end state). */
  states: Partial<Record<Phase, EndState>>;
  state: EndState;
  output: string;
  /** Why jobs failed, and the workers' warnings and errors: for the message of a mismatch. */
  problems: string;
};

/** The phases of a run, in order: a case runs up to the phase its fault point belongs to. */
export const PHASES = ['pipeline', 'digest', 'retrain'] as const;
export type Phase = (typeof PHASES)[number];

/** The phase in which a fault point is first reached. */
export function phaseOf(point: string): Phase {
  if (point === 'digest-recorded') return 'digest';
  if (point === 'model-stored' || point === 'rescore-enqueued') return 'retrain';
  return 'pipeline';
}

async function pendingWork(ctx: AppContext, sql: postgres.Sql): Promise<string> {
  const parts: string[] = [];
  for (const name of QUEUE_NAMES) {
    const counts = await ctx.queues.queue(name).getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed');
    if (Object.values(counts).some((n) => n > 0)) parts.push(`${name} ${JSON.stringify(counts)}`);
  }
  const runs = await sql`SELECT id, outcome, finished_at FROM crawl_runs`;
  const outbox = await sql`SELECT status, count(*)::int AS n FROM outbox_messages GROUP BY 1`;
  return `queues: ${parts.join('; ') || 'idle'}\ncrawl runs: ${JSON.stringify(runs)}\noutbox: ${JSON.stringify(outbox)}`;
}

/**
 * One run through the job kinds up to `until` (default: all), killed at `fault` if given.
 * `deadlineMs` bounds each phase.
 */
export async function runThrough(h: Harness, fault?: FaultCase, opts: { deadlineMs?: number; until?: Phase } = {}): Promise<RunResult> {
  const until = PHASES.indexOf(opts.until ?? 'retrain');
  const db = `fault_run_${randomBytes(4).toString('hex')}`;
  await createDatabase(h.adminUrl, db, h.baseDb);
  const url = withDatabase(h.adminUrl, db);
  const ctx = contextFor(url, h.env(url));
  const sql = openSql(url, { max: 2, onnotice: () => {} });
  const smtpBefore = h.smtp.received.length;
  const deadline = opts.deadlineMs ?? 240_000;
  const procs: Workers = { pipeline: startRole(h, url, 'pipeline', fault), notifier: startRole(h, url, 'notifier', fault) };
  const roles = Object.keys(procs) as Role[];
  const tails = () => roles.map((r) => `--- ${r}:\n${procs[r].output().slice(-3000)}`).join('\n');
  let output = '';
  let killed = false;
  let restarts = 0;

  /** Polls `done` until true; a process that died meanwhile (the fault) is started again, without the fault. */
  const settle = async (what: string, done: () => Promise<boolean>) => {
    const start = Date.now();
    for (;;) {
      for (const role of roles) {
        const proc = procs[role];
        if (proc.child.exitCode === null && proc.child.signalCode === null) continue;
        output += proc.output();
        if (proc.child.signalCode === 'SIGKILL') killed = true;
        else throw new Error(`the ${role} exited (${proc.child.exitCode ?? proc.child.signalCode}) during ${what}:\n${proc.output().slice(-4000)}`);
        restarts++;
        procs[role] = startRole(h, url, role);
      }
      if (await done()) return;
      if (Date.now() - start > deadline) throw new Error(`timed out during ${what}:\n${await pendingWork(ctx, sql)}\n${tails()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  const pipelineDone = async () =>
    (await one(sql, `SELECT count(*)::int AS n FROM crawl_runs WHERE finished_at IS NOT NULL`)) > 0 &&
    (await one(sql, `SELECT count(*)::int AS n FROM outbox_messages WHERE status IN ('queued', 'sending')`)) === 0 &&
    (await queuesIdle(ctx));

  try {
    // 1. The first crawl: lots stored, scored, matched, instant e-mails sent.
    const states: Partial<Record<Phase, EndState>> = {};
    const snapshot = async (phase: Phase) => (states[phase] = await readEndState(ctx, sql, h.smtp.received.slice(smtpBefore), day));
    const day = new Date().toISOString().slice(0, 10);
    await settle('the first crawl and its alerts', pipelineDone);
    await snapshot('pipeline');
    // 2. The daily digest of today's daily matches.
    if (until >= 1) {
      await ctx.queues.enqueue('alertDigest', { day, slot: 'fault-suite' });
      await settle('the daily digest', async () => (await one(sql, `SELECT count(*)::int AS n FROM alert_digests`)) > 0 && (await pipelineDone()));
      await snapshot('digest');
    }
    // 3. A retrain, and the rescore of every listing with the new model.
    if (until >= 2) await ctx.queues.enqueue('model', { action: 'train', reason: 'manual', slot: 'fault-suite' });
    if (until >= 2) await settle('the retrain and rescore', async () => {
      const versions = await one(sql, `SELECT count(*)::int AS n FROM model_versions`);
      const stale = await one(
        sql,
        `SELECT count(*)::int AS n FROM listings WHERE status IN ('open','closed','sold') AND model_version IS DISTINCT FROM (SELECT max(version) FROM model_versions)`,
      );
      return versions > 1 && stale === 0 && (await pipelineDone());
    });
    if (until >= 2) await snapshot('retrain');
    for (const role of roles) {
      const code = await procs[role].stop('SIGTERM');
      output += procs[role].output();
      if (code !== 0) throw new Error(`the ${role} did not stop cleanly (${code}):\n${procs[role].output().slice(-4000)}`);
    }
    return { killed, restarts, states, state: states[PHASES[until]!]!, output, problems: await problemsOf(ctx, output) };
  } finally {
    for (const role of roles) await procs[role].stop('SIGKILL');
    await sql.end();
    await ctx.close();
    await dropDatabase(h.adminUrl, db);
  }
}

async function problemsOf(ctx: AppContext, output: string): Promise<string> {
  const lines: string[] = [];
  for (const name of QUEUE_NAMES) {
    for (const job of await ctx.queues.queue(name).getJobs(['failed'], 0, 20)) lines.push(`failed ${name} ${job.id}: ${job.failedReason}`);
  }
  const warnings = output.split('\n').filter((l) => /"level":(40|50|60)/.test(l));
  return [...lines, ...warnings.slice(-40)].join('\n');
}

async function readEndState(ctx: AppContext, sql: postgres.Sql, mails: FakeSmtp['received'], day: string): Promise<EndState> {
  const byStatus = async (query: string) =>
    Object.fromEntries(((await sql.unsafe(query)) as unknown as Array<{ k: string; n: number }>).map((r) => [r.k, Number(r.n)]));
  const keys = new Map<string, number>();
  for (const mail of mails) {
    const key = /X-Deal-Radar-Message-Key:\s*(\S+)/i.exec(mail.data)?.[1] ?? '?';
    keys.set(key, (keys.get(key) ?? 0) + 1);
  }
  let failedJobs = 0;
  let activeJobs = 0;
  for (const name of QUEUE_NAMES) {
    const counts = await ctx.queues.queue(name).getJobCounts('failed', 'active');
    failedJobs += counts.failed ?? 0;
    activeJobs += counts.active ?? 0;
  }
  return {
    listings: await one(sql, `SELECT count(*)::int AS n FROM listings`),
    observations: await one(sql, `SELECT count(*)::int AS n FROM price_observations`),
    listingsObservedTwice: await one(sql, `SELECT count(*)::int AS n FROM (SELECT listing_id FROM price_observations GROUP BY 1 HAVING count(*) > 1) t`),
    modelVersions: await one(sql, `SELECT count(*)::int AS n FROM model_versions`),
    scoresByModelVersion: await byStatus(`SELECT coalesce(model_version::text, 'none') AS k, count(*)::int AS n FROM listings WHERE status IN ('open','closed','sold') GROUP BY 1`),
    notifications: await byStatus(`SELECT status AS k, count(*)::int AS n FROM alert_notifications GROUP BY 1`),
    messages: await byStatus(`SELECT kind || ':' || status AS k, count(*)::int AS n FROM outbox_messages GROUP BY 1`),
    maxMessagesPerAlertListing: await one(
      sql,
      `SELECT coalesce(max(n), 0)::int AS n FROM (SELECT count(*) AS n FROM alert_notifications WHERE message_key IS NOT NULL GROUP BY alert_id, listing_id) t`,
    ),
    digests: await one(sql, `SELECT count(*)::int AS n FROM alert_digests WHERE day = '${day}'`),
    maxDigestsPerAlertDay: await one(sql, `SELECT coalesce(max(n), 0)::int AS n FROM (SELECT count(*) AS n FROM alert_digests GROUP BY alert_id, day) t`),
    mailsReceived: mails.length,
    mailKeysReceivedTwice: [...keys].filter(([, n]) => n > 1).map(([k]) => k),
    failedJobs,
    activeJobs,
  };
}

/** A CLI import killed at a batch, run again: the sales it ends with. */
export async function importKilledAndRerun(h: Harness, at: number, file: string): Promise<{ killed: boolean; salesAtKill: number; sales: number; status: string }> {
  const db = `fault_import_${randomBytes(4).toString('hex')}`;
  await createDatabase(h.adminUrl, db, h.baseDb);
  const url = withDatabase(h.adminUrl, db);
  const sql = openSql(url, { max: 1, onnotice: () => {} });
  try {
    await sql`TRUNCATE sold_results`;
    const env = h.env(url);
    const first = await runCliCommand(['import-sales', '--format', 'fastiron', file], { ...env, FAULT_POINT: `sales-import-batch:${at}` });
    const salesAtKill = await one(sql, `SELECT count(*)::int AS n FROM sold_results`);
    const second = await runCliCommand(['import-sales', '--format', 'fastiron', file], env);
    if (second.code !== 0) throw new Error(`the second import failed: ${second.stderr}`);
    const sales = await one(sql, `SELECT count(*)::int AS n FROM sold_results`);
    const [row] = await sql<{ status: string }[]>`SELECT status FROM sales_imports`;
    return { killed: first.code === 'SIGKILL', salesAtKill, sales, status: row?.status ?? 'none' };
  } finally {
    await sql.end();
    await dropDatabase(h.adminUrl, db);
  }
}
