/**
 * Two small concurrency tools of the batch sender, kept apart so they can be tested alone.
 */

/** Runs `work` on every item, at most `limit` at once; resolves when all have settled (work must not throw). */
export async function forEachLimit<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await work(item);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
}

/**
 * Group commit: `add` resolves once its item is written. Items added while a write is in flight
 * are written together by the next one, so a burst of N items costs a few writes instead of N,
 * while each item is still written as soon as the writer is free (a sent message is marked sent
 * right after its send, not at the end of its batch). A failed write rejects the items it held.
 */
export function createGroupWriter<T>(write: (items: T[]) => Promise<void>): { add(item: T): Promise<void> } {
  let waiting: Array<{ item: T; resolve: () => void; reject: (err: unknown) => void }> = [];
  let running = false;
  const drain = async () => {
    running = true;
    while (waiting.length > 0) {
      const group = waiting;
      waiting = [];
      try {
        await write(group.map((w) => w.item));
        for (const w of group) w.resolve();
      } catch (err) {
        for (const w of group) w.reject(err);
      }
    }
    running = false;
  };
  return {
    add(item: T): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        if (!running) void drain();
      });
    },
  };
}
