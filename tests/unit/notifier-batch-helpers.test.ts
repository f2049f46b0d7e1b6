import { describe, expect, it } from 'vitest';
import { notifyBatches } from '../../services/matcher/dispatch-notifications.js';
import { createGroupWriter, forEachLimit } from '../../services/notifier/batch-helpers.js';

const tick = () => new Promise((r) => setTimeout(r, 1));

describe('forEachLimit', () => {
  it('runs every item once, never more than the limit at once', async () => {
    let running = 0;
    let peak = 0;
    const seen: number[] = [];
    await forEachLimit([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await tick();
      seen.push(n);
      running--;
    });
    expect(seen.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(peak).toBe(3);
  });

  it('does nothing for no items', async () => {
    let calls = 0;
    await forEachLimit([], 4, async () => void calls++);
    expect(calls).toBe(0);
  });
});

describe('createGroupWriter', () => {
  it('writes the first item alone and those added meanwhile together, resolving each once written', async () => {
    const writes: number[][] = [];
    const writer = createGroupWriter(async (items: number[]) => {
      writes.push(items);
      await tick();
    });
    const done = [1, 2, 3, 4].map((n) => writer.add(n));
    await Promise.all(done);
    expect(writes).toEqual([[1], [2, 3, 4]]);
    await writer.add(5);
    expect(writes).toEqual([[1], [2, 3, 4], [5]]);
  });

  it('rejects the items of a failed write only', async () => {
    let calls = 0;
    const writer = createGroupWriter(async () => {
      calls++;
      await tick();
      if (calls === 1) throw new Error('database down');
    });
    const first = writer.add('a');
    const second = writer.add('b');
    await expect(first).rejects.toThrow('database down');
    await expect(second).resolves.toBeUndefined();
  });
});

describe('notifyBatches', () => {
  it('splits each listing’s messages into batches of at most the size, never mixing listings', () => {
    const messages = [
      { listingId: 1, messageKey: 'alert:1' },
      { listingId: 2, messageKey: 'alert:2' },
      { listingId: 1, messageKey: 'alert:3' },
      { listingId: 1, messageKey: 'alert:4' },
    ];
    expect(notifyBatches(messages, 2)).toEqual([
      { listingId: 1, messageKeys: ['alert:1', 'alert:3'] },
      { listingId: 1, messageKeys: ['alert:4'] },
      { listingId: 2, messageKeys: ['alert:2'] },
    ]);
    expect(notifyBatches([], 50)).toEqual([]);
  });
});
