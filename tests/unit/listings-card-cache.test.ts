import { describe, expect, it } from 'vitest';
import { CardCache } from '../../services/listings/card-cache.js';
import type { ListingRow } from '../../services/listings/listing-rules.js';

const card = (id: number, title = `Lot ${id}`) => ({ id, title }) as unknown as ListingRow;

describe('CardCache', () => {
  it('reads only the misses, in one call, and keeps what it read', async () => {
    const cache = new CardCache({ maxEntries: 10, ttlMs: 60_000 });
    const reads: number[][] = [];
    const read = async (ids: number[]) => {
      reads.push(ids);
      return ids.filter((id) => id !== 99).map((id) => card(id));
    };
    expect([...(await cache.get([1, 2, 99], read)).keys()]).toEqual([1, 2]);
    expect([...(await cache.get([2, 3, 1], read)).keys()].sort()).toEqual([1, 2, 3]);
    expect(reads).toEqual([[1, 2, 99], [3]]);
  });

  it('drops a changed listing, and does not keep a read that overlapped a change', async () => {
    const cache = new CardCache({ maxEntries: 10, ttlMs: 60_000 });
    let title = 'old';
    await cache.get([1], async (ids) => ids.map((id) => card(id, title)));
    title = 'new';
    cache.invalidate([1]);
    expect((await cache.get([1], async (ids) => ids.map((id) => card(id, title)))).get(1)!.title).toBe('new');

    // a read that started before an invalidation answers its request but is not kept
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = cache.get([2], async (ids) => {
      await gate;
      return ids.map((id) => card(id, 'read before the change'));
    });
    cache.invalidate([2]);
    release();
    expect((await slow).get(2)!.title).toBe('read before the change');
    expect((await cache.get([2], async (ids) => ids.map((id) => card(id, 'after')))).get(2)!.title).toBe('after');
  });

  it('expires names after the TTL, forgets everything on a reload, and stays within its size', async () => {
    let now = 0;
    const cache = new CardCache({ maxEntries: 2, ttlMs: 1000, now: () => now });
    const reads: number[] = [];
    const read = async (ids: number[]) => {
      reads.push(...ids);
      return ids.map((id) => card(id));
    };
    await cache.get([1, 2], read);
    now = 999;
    await cache.get([1, 2], read);
    expect(reads).toEqual([1, 2]);
    now = 1000;
    await cache.get([1], read);
    expect(reads).toEqual([1, 2, 1]);
    await cache.get([3], read); // full: the oldest entry (2) goes
    expect(cache.size).toBe(2);
    cache.invalidate('all');
    expect(cache.size).toBe(0);
  });

  it('keeps the most recently read cards when many more pass through it', async () => {
    const cache = new CardCache({ maxEntries: 100, ttlMs: 60_000 });
    const read = async (ids: number[]) => ids.map((id) => card(id));
    for (let i = 0; i < 1000; i += 10) await cache.get(Array.from({ length: 10 }, (_, k) => i + k), read);
    cache.invalidate([995]);
    expect(cache.size).toBe(99);
    const reads: number[] = [];
    await cache.get([899, 900, 950, 995, 999], async (ids) => (reads.push(...ids), read(ids)));
    expect(reads).toEqual([899, 995]);
  });
});
