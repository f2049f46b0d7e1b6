import { mkdtemp, rm, writeFile, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../services/shared/seeded-random.js';
import { ListingIndex, type IndexedListing, type IndexFilter, type IndexSort } from '../../services/listings/listing-index/index.js';
import { readIndexSnapshot, writeIndexSnapshot } from '../../services/listings/listing-index-snapshot-file.js';
import { IdSlots } from '../../services/listings/listing-index/bits.js';

const WORDS = ['caterpillar', 'deere', '320', '320d', 'excav', 'loader', 'bucket', 'track', 'cab', 'zx210'];
const SORTS: IndexSort[] = ['deal_score_high', 'deal_score_low', 'price_low', 'price_high', 'relevance', 'distance'];

function randomListing(random: () => number, id: number, now: number): IndexedListing {
  const pick = <T,>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const lexemes = [...new Set(Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(WORDS)))];
  return {
    id,
    dealScore: random() < 0.15 ? null : Math.floor(random() * 10) * 100,
    priceUsd: random() < 0.1 ? null : Math.floor(random() * 20) * 5000,
    categoryId: 1 + Math.floor(random() * 4),
    state: random() < 0.1 ? null : pick(['TX', 'CA', 'IA']),
    city: random() < 0.2 ? null : pick(['houston', 'reno', 'tampa']),
    endAt: random() < 0.2 ? null : now + Math.floor((random() - 0.1) * 100_000),
    ...(random() < 0.2 ? { lat: null, lon: null } : pick([{ lat: 41.6727, lon: -93.5722 }, { lat: 29.7604, lon: -95.3698 }, { lat: 61.2181, lon: -149.9003 }])),
    lexemes,
    weights: lexemes.map(() => Math.floor(random() * 4)),
  };
}

function randomFilter(random: () => number): IndexFilter {
  const maybe = <T,>(p: number, value: () => T) => (random() < p ? value() : undefined);
  return {
    categoryId: maybe(0.3, () => 1 + Math.floor(random() * 4)),
    minPrice: maybe(0.2, () => Math.floor(random() * 10) * 5000),
    maxPrice: maybe(0.2, () => 50_000 + Math.floor(random() * 10) * 5000),
    state: maybe(0.2, () => ['TX', 'CA', 'IA', 'NV'][Math.floor(random() * 4)]!),
    city: maybe(0.1, () => 'reno'),
    near: maybe(0.3, () => ({ lat: 40.5, lon: -94.2, radiusMiles: maybe(0.5, () => 500) })),
    groups: Array.from({ length: Math.floor(random() * 3) }, () =>
      random() < 0.2 ? { exact: [], prefixes: ['320'] } : { exact: [WORDS[Math.floor(random() * WORDS.length)]!], prefixes: [] },
    ),
  };
}

/** An index after a load and churn: dead slots, a delta, a tail (what a live process holds). */
function churned(seed: number, minBitsetPostings: number) {
  const random = seededRandom(seed);
  const now = 1_800_000_000_000;
  const initial = Array.from({ length: 500 }, (_, i) => randomListing(random, i + 1, now));
  const index = ListingIndex.build(initial, { maxDelta: 64, minBitsetPostings, capacity: 64, distanceScanBelow: 0 });
  let nextId = 1000;
  for (let k = 0; k < 300; k++) {
    const r = random();
    if (r < 0.4) index.upsert(randomListing(random, nextId++, now));
    else if (r < 0.8) index.upsert(randomListing(random, 1 + Math.floor(random() * 500), now));
    else index.remove(1 + Math.floor(random() * 500));
  }
  return { index, random, now, nextId };
}

function expectSameAnswers(a: ListingIndex, b: ListingIndex, random: () => number, now: number, rounds = 150): void {
  for (let i = 0; i < rounds; i++) {
    const filter = randomFilter(random);
    const sort = SORTS[Math.floor(random() * SORTS.length)]!;
    const at = now + Math.floor(random() * 50_000);
    const total = a.count(filter, at);
    expect(b.count(filter, at), JSON.stringify(filter)).toBe(total);
    const offset = Math.floor(random() * Math.max(1, total));
    expect(b.page(filter, sort, offset, 20, at, total), `${sort} ${JSON.stringify(filter)}`).toEqual(a.page(filter, sort, offset, 20, at, total));
  }
}

describe('listing index snapshots', () => {
  it.each([40, 100_000])('an index restored from its columns answers as the original, and both take the same later changes alike (bitsets from %i)', (minBitsetPostings) => {
    const { index, random, now, nextId } = churned(42, minBitsetPostings);
    const restored = ListingIndex.fromColumns(index.toColumns(), { minBitsetPostings, distanceScanBelow: 0 });
    expect(restored.size).toBe(index.size);
    expect(restored.dead).toBe(0);
    expect(restored.unordered).toBe(0);
    expectSameAnswers(index, restored, random, now);
    // Later changes (appended past the restored slots, merged, grown past the capacity).
    let id = nextId;
    for (let k = 0; k < 700; k++) {
      const l = k % 3 === 0 ? randomListing(random, 1 + Math.floor(random() * 500), now) : randomListing(random, id++, now);
      index.upsert(l);
      restored.upsert(l);
      if (k % 50 === 0) expect(restored.remove(l.id)).toBe(index.remove(l.id));
    }
    expectSameAnswers(index, restored, random, now);
  });

  it('goes through the file unchanged, and a damaged file is refused rather than trusted', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'index-snapshot-'));
    try {
      const { index, random, now } = churned(7, 40);
      const file = path.join(dir, 'listing-index.snapshot');
      const meta = { pgSnapshot: '100:105:101,103', syncedAt: 1_800_000_000_000, database: '42:16384' };
      await writeIndexSnapshot(file, index.toColumns(), meta);
      const read = await readIndexSnapshot(file);
      if ('missing' in read) throw new Error(read.missing);
      expect(read.meta).toEqual(meta);
      const restored = ListingIndex.fromColumns(read.columns, { minBitsetPostings: 40 });
      expectSameAnswers(index, restored, random, now, 60);
      // The columns read are taken in place (room behind them): later changes grow them alike.
      let id = 5000;
      for (let k = 0; k < 700; k++) {
        const l = k % 3 === 0 ? randomListing(random, 1 + Math.floor(random() * 500), now) : randomListing(random, id++, now);
        index.upsert(l);
        restored.upsert(l);
      }
      expectSameAnswers(index, restored, random, now, 60);

      expect(await readIndexSnapshot(path.join(dir, 'none'))).toEqual({ missing: 'no snapshot file' });
      const bytes = await readFile(file);
      await writeFile(file, bytes.subarray(0, bytes.length - 100));
      expect(await readIndexSnapshot(file)).toEqual({ missing: 'truncated snapshot' });
      // A term id past the dictionary: the arrays parse, the index refuses them.
      const columns = index.toColumns();
      columns.terms[0] = (columns.termNames.length + 5) << 2;
      expect(() => ListingIndex.fromColumns(columns)).toThrow(/bad term id/);
      const shuffled = index.toColumns();
      shuffled.orders[1]![0] = shuffled.orders[1]![1]!;
      expect(() => ListingIndex.fromColumns(shuffled)).toThrow(/not a permutation/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('term ids past 16,383 (two bytes with the weight)', () => {
  it('widens the term list and still finds, ranks and snapshots every term', () => {
    const lot = (id: number, words: string[]): IndexedListing => ({
      id, dealScore: id, priceUsd: 1000, categoryId: 1, state: null, city: null, endAt: null, lat: null, lon: null, lexemes: words, weights: words.map(() => 3),
    });
    const listings = Array.from({ length: 700 }, (_, i) => lot(i + 1, Array.from({ length: 100 }, (_, j) => `w${i * 100 + j}`)));
    const index = ListingIndex.build(listings);
    index.upsert(lot(5000, ['w69999', 'fresh']));
    const find = (ix: ListingIndex, word: string) => ix.page({ groups: [{ exact: [word], prefixes: [] }] }, 'relevance', 0, 5, 0);
    expect(find(index, 'w69999')).toEqual([5000, 700]);
    expect(find(index, 'w65600')).toEqual([657]);
    const restored = ListingIndex.fromColumns(index.toColumns());
    expect(find(restored, 'w69999')).toEqual([5000, 700]);
    expect(find(restored, 'w1')).toEqual([1]);
  });
});

describe('IdSlots (listing id → slot)', () => {
  it('agrees with a Map through inserts, updates, deletes and rehashes', () => {
    const random = seededRandom(3);
    // The index's per-slot ids: a slot holds its id before it is set, and keeps it.
    let idAt = new Map<number, number>();
    const slots = new IdSlots((s) => idAt.get(s) ?? -1, 4);
    const truth = new Map<number, number>();
    for (let i = 0; i < 50_000; i++) {
      const id = Math.floor(random() * 20_000);
      if (random() < 0.3) expect(slots.delete(id)).toBe(truth.delete(id));
      else {
        idAt.set(i, id);
        slots.set(id, i);
        truth.set(id, i);
      }
      if (i % 1000 === 0) {
        // Renumbering: every slot moves past the ones still to come, its id with it.
        idAt = new Map([...idAt].map(([s, v]) => [s + 100_000, v]));
        slots.remap((s) => s + 100_000);
        truth.forEach((v, k) => truth.set(k, v + 100_000));
      }
    }
    expect(slots.size).toBe(truth.size);
    for (let id = 0; id < 20_000; id++) expect(slots.get(id)).toBe(truth.get(id) ?? -1);
    // A slot that does not hold the id is refused (the table would answer for the wrong listing).
    expect(() => slots.set(123_456, 0)).toThrow(/does not hold/);
  });
});

describe('work in steps while the index keeps changing', () => {
  it('a merge in steps answers exactly at every pause and after, through upserts and removals meanwhile', async () => {
    const { index, random, now, nextId } = churned(11, 40);
    // The twin takes the same changes with ordinary merges: the oracle (itself checked against the plain reference).
    const twin = ListingIndex.fromColumns(index.toColumns(), { minBitsetPostings: 40, maxDelta: 64 });
    const live = ListingIndex.fromColumns(index.toColumns(), { minBitsetPostings: 40, maxDelta: 64 });
    live.backgroundMerge = true;
    let id = nextId;
    const change = () => {
      for (let k = 0; k < 5; k++) {
        const l = random() < 0.5 ? randomListing(random, id++, now) : randomListing(random, 1 + Math.floor(random() * 500), now);
        live.upsert(l);
        twin.upsert(l);
        if (random() < 0.2) expect(live.remove(l.id)).toBe(twin.remove(l.id));
      }
    };
    for (let k = 0; k < 80; k++) change();
    expect(live.needsMerge).toBe(true);
    let pauses = 0;
    const merged = await live.mergeDeltaInSteps(async () => {
      pauses++;
      change();
      expectSameAnswers(twin, live, random, now, 5);
    }, 64);
    expect(merged).toBe(true);
    expect(pauses).toBeGreaterThan(3);
    expect(live.stats().delta).toBeLessThan(pauses * 5 + 1);
    expectSameAnswers(twin, live, random, now, 100);
    // An ordinary merge during the steps wins: the stepped one is dropped, answers stay exact.
    for (let k = 0; k < 80; k++) change();
    expect(await live.mergeDeltaInSteps(async () => live.mergeDelta(), 64)).toBe(false);
    expectSameAnswers(twin, live, random, now, 50);
  });

  it('a batch of upserts (a sync catching up) answers as the same upserts one by one, through merges and later changes', () => {
    const { index, random, now, nextId } = churned(31, 40);
    const twin = ListingIndex.fromColumns(index.toColumns(), { maxDelta: 64, minBitsetPostings: 40 });
    const batched = ListingIndex.fromColumns(index.toColumns(), { maxDelta: 64, minBitsetPostings: 40 });
    let id = nextId;
    for (const size of [40, 500, 3, 200, 33]) {
      const batch = Array.from({ length: size }, () => randomListing(random, random() < 0.5 ? id++ : 1 + Math.floor(random() * 500), now));
      batch.push({ ...batch[0]!, priceUsd: 123_456 }); // the same listing twice in one batch: the last wins
      for (const l of batch) twin.upsert(l);
      batched.upsertMany(batch);
      for (let k = 0; k < 5; k++) {
        const gone = 1 + Math.floor(random() * 500);
        expect(batched.remove(gone)).toBe(twin.remove(gone));
      }
      expect(batched.size).toBe(twin.size);
      expectSameAnswers(twin, batched, random, now, 60);
    }
  });

  it('a merge in steps still installs exactly when the index grows while it runs', async () => {
    const { index, random, now, nextId } = churned(13, 40);
    const twin = ListingIndex.fromColumns(index.toColumns(), { minBitsetPostings: 40, maxDelta: 256 });
    const live = ListingIndex.fromColumns(index.toColumns(), { minBitsetPostings: 40, maxDelta: 256 });
    live.backgroundMerge = true;
    let id = nextId;
    const upsert = (count: number) => {
      for (let k = 0; k < count; k++) {
        const l = random() < 0.7 ? randomListing(random, id++, now) : randomListing(random, 1 + Math.floor(random() * 500), now);
        live.upsert(l);
        twin.upsert(l);
      }
    };
    upsert(300);
    const capacityOf = (i: ListingIndex) => (i as unknown as { capacity: number }).capacity;
    const capacity = capacityOf(live);
    let burst = true;
    const merged = await live.mergeDeltaInSteps(async () => {
      if (burst) upsert(1600); // past the capacity: every column grows under the merge
      burst = false;
    }, 64);
    expect(merged).toBe(true);
    expect(capacityOf(live)).toBeGreaterThan(capacity);
    expectSameAnswers(twin, live, random, now, 80);
    upsert(200);
    expectSameAnswers(twin, live, random, now, 40);
  });

  it('columns taken in steps are the content as of the start, whatever changes meanwhile', async () => {
    const { index, random, now, nextId } = churned(12, 40);
    const before = ListingIndex.fromColumns(index.toColumns());
    let id = nextId;
    const columns = await index.toColumnsInSteps(async () => {
      for (let k = 0; k < 20; k++) index.upsert(randomListing(random, random() < 0.5 ? id++ : 1 + Math.floor(random() * 500), now));
      index.remove(1 + Math.floor(random() * 500));
    });
    expectSameAnswers(before, ListingIndex.fromColumns(columns), random, now, 100);
  });
});
