/**
 * The wiring of every queue between the stages, on both backends, with test processors:
 * payloads validated, failures retried with backoff then recorded as failed, duplicates run once.
 */
import type { Job, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES, QUEUE_NAMES, type PayloadInput, type QueueName } from '../../services/shared/queues.js';
import { createTestContext, type QueueBackendKind, type TestContext } from '../support/context.js';

const samples: { [N in QueueName]: PayloadInput<N> } = {
  crawl: { source: 'demo', label: 'list', url: 'http://127.0.0.1:9999/lots?page=2', page: 2, reason: 'manual' },
  score: { listingId: 42, reason: 'new', version: 'obs-1' },
  scoreBatch: { listingIds: [42, 43], version: 'model-1' },
  match: { listingId: 42, event: 'scored', eventKey: 'v1' },
  notify: { channel: 'email', messageKey: 'reset-1', to: 'buyer@example.com', subject: 'Hello', text: 'Body' },
  notifyBatch: { listingId: 42, messageKeys: ['alert:1', 'alert:2'] },
  alertDigest: { day: '2026-11-21', slot: 'manual-1' },
  watchDue: { slot: '20261121140515' },
  model: { action: 'train', reason: 'manual', slot: 'manual-1' },
};

/** The sample with its id-determining field changed, so each test has its own job id. */
function variant<N extends QueueName>(name: N, tag: string): PayloadInput<N> {
  const sample = samples[name] as Record<string, unknown>;
  const key = { crawl: 'slot', score: 'version', scoreBatch: 'version', match: 'eventKey', notify: 'messageKey', notifyBatch: 'messageKeys', alertDigest: 'slot', watchDue: 'slot', model: 'slot' }[name];
  return { ...sample, [key]: Array.isArray(sample[key]) ? [`${tag}`] : `${tag}` } as PayloadInput<N>;
}

async function waitFor<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() - start > timeoutMs) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.each<QueueBackendKind>(['postgres', 'redis'])('queues on %s', (backend) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ queueBackend: backend });
  });
  afterAll(async () => {
    await ctx?.close();
  });

  describe.each(QUEUE_NAMES)('%s', (name) => {
    it('processes a job with its payload validated and defaults applied', async () => {
      const seen: unknown[] = [];
      const worker = ctx.queues.worker(name, async (payload) => {
        seen.push(payload);
        return 'done';
      });
      try {
        const input = variant(name, `ok-${backend}`);
        const job = await ctx.queues.enqueue(name, input as never);
        expect(job.id).toBe(QUEUES[name].jobId(QUEUES[name].payload.parse(input) as never));
        await waitFor(async () => ((await ctx.queues.queue(name).getJobState(job.id!)) === 'completed' ? true : undefined));
        expect(seen).toHaveLength(1);
        expect(seen[0]).toMatchObject(input as object);
      } finally {
        await worker.close();
      }
    });

    it('refuses an invalid payload at the producer', async () => {
      await expect(ctx.queues.enqueue(name, { nonsense: true } as never)).rejects.toThrow();
    });

    it('fails a job whose stored payload is invalid without retrying it', async () => {
      let calls = 0;
      const worker = ctx.queues.worker(name, async () => {
        calls++;
      });
      try {
        // Bypasses the producer's validation, as a stale or hand-made job would.
        const job = await ctx.queues.queue(name).add(name, { bogus: 1 }, { jobId: `${name}-bogus-${backend}`, attempts: 3 });
        const state = await waitFor(async () => {
          const s = await ctx.queues.queue(name).getJobState(job.id!);
          return s === 'failed' ? s : undefined;
        });
        expect(state).toBe('failed');
        const failed = (await ctx.queues.queue(name).getJob(job.id!)) as Job;
        expect(failed.attemptsMade).toBe(1);
        expect(failed.failedReason).toContain(`invalid ${name} payload`);
        expect(calls).toBe(0);
      } finally {
        await worker.close();
      }
    });

    it('retries a failing job with growing backoff, then records it as failed', async () => {
      const attempts: number[] = [];
      const worker: Worker = ctx.queues.worker(name, async () => {
        attempts.push(Date.now());
        throw new Error('source is down');
      });
      try {
        const job = await ctx.queues.enqueue(name, variant(name, `retry-${backend}`) as never, {
          attempts: 3,
          backoff: { type: 'exponential', delay: 200 },
        });
        await waitFor(async () => ((await ctx.queues.queue(name).getJobState(job.id!)) === 'failed' ? true : undefined));
        const failed = (await ctx.queues.queue(name).getJob(job.id!)) as Job;
        expect(failed.attemptsMade).toBe(3);
        expect(failed.failedReason).toBe('source is down');
        expect(attempts).toHaveLength(3);
        const [a, b, c] = attempts as [number, number, number];
        expect(b - a).toBeGreaterThanOrEqual(190); // 200 ms
        expect(c - b).toBeGreaterThanOrEqual(390); // 400 ms: exponential
      } finally {
        await worker.close();
      }
    });

    it('runs a job added twice with the same id once', async () => {
      let calls = 0;
      const payload = variant(name, `dup-${backend}`);
      const first = await ctx.queues.enqueue(name, payload as never);
      const second = await ctx.queues.enqueue(name, payload as never);
      expect(second.id).toBe(first.id);
      const worker = ctx.queues.worker(name, async () => {
        calls++;
      });
      try {
        await waitFor(async () => ((await ctx.queues.queue(name).getJobState(first.id!)) === 'completed' ? true : undefined));
        // Adding it again after completion is still a no-op while the completed record is kept.
        await ctx.queues.enqueue(name, payload as never);
        await new Promise((r) => setTimeout(r, 300));
        expect(calls).toBe(1);
      } finally {
        await worker.close();
      }
    });
  });
});
