import { describe, expect, it } from 'vitest';
import { CountCache } from '../../services/listings/count-cache.js';

describe('CountCache', () => {
  it('computes once while fresh, shares concurrent misses, and serves stale while refreshing', async () => {
    let now = 0;
    let calls = 0;
    let value = 10;
    const cache = new CountCache({ baseTtlMs: 1000, maxTtlMs: 60_000, now: () => now });
    const compute = async () => {
      calls++;
      return value;
    };
    expect(await Promise.all([cache.get('k', compute), cache.get('k', compute)])).toEqual([10, 10]);
    expect(calls).toBe(1);
    value = 11;
    now = 500;
    expect(await cache.get('k', compute)).toBe(10);
    now = 1500; // expired, within the stale window: old value now, refresh in the background
    expect(await cache.get('k', compute)).toBe(10);
    await new Promise((r) => setImmediate(r));
    expect(calls).toBe(2);
    expect(await cache.get('k', compute)).toBe(11);
    now = 10_000; // past the stale window: computed again before answering
    value = 12;
    expect(await cache.get('k', compute)).toBe(12);
  });

  it('keeps costly counts longer, up to the cap', async () => {
    let now = 0;
    const cache = new CountCache({ baseTtlMs: 1000, maxTtlMs: 30_000, now: () => now });
    await cache.get('slow', async () => {
      now += 500; // a 500 ms count → 10 s fresh
      return 1;
    });
    let calls = 0;
    now = 9000;
    await cache.get('slow', async () => (calls++, 2));
    expect(calls).toBe(0);
  });

  it('is off with a zero TTL and bounded in size', async () => {
    let calls = 0;
    const off = new CountCache({ baseTtlMs: 0, maxTtlMs: 0 });
    await off.get('k', async () => (calls++, 1));
    await off.get('k', async () => (calls++, 1));
    expect(calls).toBe(2);
    const small = new CountCache({ baseTtlMs: 1000, maxTtlMs: 1000, maxEntries: 2 });
    for (const k of ['a', 'b', 'c']) await small.get(k, async () => 1);
    let recomputed = false;
    await small.get('a', async () => ((recomputed = true), 1));
    expect(recomputed).toBe(true);
  });
});
