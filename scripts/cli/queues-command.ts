/**
 * `npm run cli -- queues`: job counts per queue, to see where work is waiting or failing.
 * `--failed` lists failed jobs with their last error (newest first); `--retry` then puts those
 * jobs back to run again — the one part of this command that changes anything.
 */
import type { Job } from 'bullmq';
import { QUEUE_NAMES, type QueueName } from '../../services/shared/queues.js';
import { CliUsageError, parseArgs, type CliCommand, type FlagSpec } from './command.js';
import { textTable } from './table.js';

const STATES = ['waiting', 'prioritized', 'active', 'delayed', 'completed', 'failed'] as const;
const ERROR_CHARS = 300;

const FLAGS: Record<string, FlagSpec> = {
  failed: { kind: 'boolean', help: 'list failed jobs with their last error, newest first' },
  retry: { kind: 'boolean', help: 'with --failed: put the listed failed jobs back to run again' },
  queue: { kind: 'value', help: `only this queue (${QUEUE_NAMES.join(', ')})` },
  limit: { kind: 'value', help: 'with --failed: at most this many jobs per queue (default 20, up to 1000)' },
  json: { kind: 'boolean', help: 'print JSON instead of a table' },
};

export type FailedJob = { queue: QueueName; id: string; name: string; attempts: number; failedAt: string | null; error: string; data: unknown };

/** A failed job as the operator reads it: its last error on one line, bounded. */
export function describeFailed(queue: QueueName, job: Job): FailedJob {
  const error = (job.failedReason || job.stacktrace?.at(-1)?.split('\n')[0] || 'no reason recorded').replace(/\s+/g, ' ').trim();
  return {
    queue,
    id: String(job.id),
    name: job.name,
    attempts: job.attemptsMade,
    failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
    error: error.length > ERROR_CHARS ? `${error.slice(0, ERROR_CHARS - 1)}…` : error,
    data: job.data,
  };
}

export const queuesCommand: CliCommand = {
  name: 'queues',
  summary: 'Job counts per queue; --failed lists failed jobs with their last error, --retry runs them again',
  usage: '[--failed [--retry] [--limit <n>]] [--queue <name>] [--json]',
  flags: FLAGS,
  async run(ctx, args) {
    const { flags } = parseArgs(args, FLAGS);
    const json = flags.json === true;
    if (flags.retry && !flags.failed) throw new CliUsageError('--retry goes with --failed (it retries the failed jobs listed).');
    if (flags.limit !== undefined && !flags.failed) throw new CliUsageError('--limit goes with --failed.');
    const names = typeof flags.queue === 'string' ? [flags.queue] : [...QUEUE_NAMES];
    for (const name of names) if (!QUEUE_NAMES.includes(name as QueueName)) throw new CliUsageError(`Unknown queue "${name}". Queues: ${QUEUE_NAMES.join(', ')}.`);
    const queues = names as QueueName[];

    if (!flags.failed) {
      const rows: Array<{ queue: QueueName } & Record<(typeof STATES)[number], number>> = [];
      for (const name of queues) {
        const counts = await ctx.queues.queue(name).getJobCounts(...STATES);
        rows.push({ queue: name, ...(Object.fromEntries(STATES.map((s) => [s, counts[s] ?? 0])) as Record<(typeof STATES)[number], number>) });
      }
      if (json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      else process.stdout.write(`${textTable(['queue', ...STATES], rows.map((r) => [r.queue, ...STATES.map((s) => r[s])])).join('\n')}\n`);
      return 0;
    }

    const limit = flags.limit === undefined ? 20 : Number(flags.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new CliUsageError('--limit must be a whole number from 1 to 1000.');
    const failed: Array<{ job: Job; row: FailedJob }> = [];
    for (const name of queues) {
      for (const job of await ctx.queues.queue(name).getFailed(0, limit - 1)) if (job) failed.push({ job, row: describeFailed(name, job) });
    }
    let retried = 0;
    if (flags.retry) {
      for (const { job } of failed) {
        // A job retried or removed since it was listed is skipped, not an error.
        if ((await job.getState()) !== 'failed') continue;
        await job.retry('failed');
        retried++;
      }
    }
    if (json) {
      process.stdout.write(`${JSON.stringify(flags.retry ? { failed: failed.map((f) => f.row), retried } : failed.map((f) => f.row), null, 2)}\n`);
      return 0;
    }
    if (failed.length === 0) {
      process.stdout.write(`No failed jobs${typeof flags.queue === 'string' ? ` in ${flags.queue}` : ''}.\n`);
      return 0;
    }
    const table = textTable(
      ['queue', 'job', 'attempts', 'failed at', 'last error'],
      failed.map(({ row }) => [row.queue, row.id, row.attempts, row.failedAt ? row.failedAt.replace('T', ' ').slice(0, 19) : '—', row.error]),
    );
    process.stdout.write(`${table.join('\n')}\n`);
    if (flags.retry) process.stdout.write(`\nRetried ${retried} failed job${retried === 1 ? '' : 's'}; \`npm run cli -- queues\` shows them run.\n`);
    return 0;
  },
};
