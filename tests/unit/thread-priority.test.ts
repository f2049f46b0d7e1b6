import { Worker } from 'node:worker_threads';
import { getPriority } from 'node:os';
import { describe, expect, it } from 'vitest';
import { threadPriority, threadTaskId } from '../../services/shared/thread-priority.js';

/** Runs thread-priority.ts in a worker thread: lowers it to `nice`, reports the worker's and this thread's. */
function inWorker(nice: number): Promise<{ lowered: boolean; tid: number | null; own: number; seen: number }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('../fixtures/thread-priority-worker.mjs', import.meta.url), { workerData: { nice } });
    worker.once('message', (m: { lowered: boolean; tid: number | null; own: number }) => {
      // read from outside the thread, through its task id, before it exits
      const seen = m.tid === null ? NaN : getPriority(m.tid);
      worker.postMessage('go');
      resolve({ ...m, seen });
    });
    worker.once('error', reject);
    worker.once('exit', (code) => code !== 0 && reject(new Error(`worker exited with ${code}`)));
  });
}

describe.runIf(process.platform === 'linux')('a thread lowering its priority', () => {
  it('renices that thread alone', async () => {
    const before = threadPriority();
    const r = await inWorker(Math.min(19, before + 7));
    expect(r.lowered).toBe(true);
    expect(r.tid).not.toBe(threadTaskId());
    expect(r.own).toBe(Math.min(19, before + 7));
    expect(r.seen).toBe(Math.min(19, before + 7));
    // the thread that started it runs as before
    expect(threadPriority()).toBe(before);
  });
});
