import { describe, expect, it } from 'vitest';
import { distanceMiles } from '../../services/shared/geo/distance.js';
import { deliveredPrice, worthTheTrip } from '../../services/valuation/delivered-price.js';
import { weightClass } from '../../services/shared/rules/freight-rates.js';
import { seededRandom } from '../../services/shared/seeded-random.js';
import {
  ListingIndex,
  parseTsvector,
  RELEVANCE_CANDIDATES,
  type IndexedListing,
  type IndexFilter,
  type IndexSort,
  type WordGroup,
} from '../../services/listings/listing-index/index.js';

/** Each listing's title (the index keeps only its weight class): the reference prices delivery from it, as the detail does. */
const titles = new Map<number, string>();

/** The detail's price delivered (deliveredPrice, from the title) at the filter's point; null when unplaced or without a near. */
function delivered(l: IndexedListing, filter: IndexFilter) {
  if (!filter.near || l.lat === null || l.lon === null) return null;
  return deliveredPrice({
    price: l.priceUsd,
    buyersPremiumPct: l.buyersPremiumPct ?? null,
    categoryId: l.categoryId,
    title: titles.get(l.id) ?? '',
    distanceMiles: distanceMiles(filter.near, { lat: l.lat, lon: l.lon }),
  });
}

/** Listings are never changed in place here (a change is a new object): their delivered prices per point are kept. */
const deliveredMemo = new WeakMap<IndexedListing, Map<string, ReturnType<typeof delivered>>>();
const cents = (usd: number | null) => (usd === null ? null : Math.round(usd * 100));

/** The list route's semantics written the plain way: filter everything, sort everything, slice. */
function reference(listings: Map<number, IndexedListing>, filter: IndexFilter, sort: IndexSort, now: number) {
  const deliveredOf = (l: IndexedListing) => {
    const key = `${filter.near?.lat},${filter.near?.lon}`;
    let memo = deliveredMemo.get(l);
    if (!memo) deliveredMemo.set(l, (memo = new Map()));
    if (!memo.has(key)) memo.set(key, delivered(l, filter));
    return memo.get(key)!;
  };
  const holds = (l: IndexedListing, g: WordGroup) => l.lexemes.some((x) => g.exact.includes(x) || g.prefixes.some((p) => x.startsWith(p)));
  const matches = [...listings.values()].filter(
    (l) =>
      (l.endAt === null || l.endAt > now) &&
      (filter.categoryId === undefined || l.categoryId === filter.categoryId) &&
      (filter.minPrice === undefined || (l.priceUsd !== null && l.priceUsd >= filter.minPrice)) &&
      (filter.maxPrice === undefined || (l.priceUsd !== null && l.priceUsd <= filter.maxPrice)) &&
      (filter.state === undefined || l.state === filter.state) &&
      (filter.city === undefined || l.city === filter.city) &&
      (filter.near?.radiusMiles === undefined || (l.lat !== null && l.lon !== null && distanceMiles(filter.near, { lat: l.lat, lon: l.lon }) <= filter.near.radiusMiles)) &&
      filter.groups.every((g) => holds(l, g)) &&
      (!filter.near || filter.maxDelivered === undefined || ((d) => d !== null && d.total_high !== null && d.total_high <= filter.maxDelivered!)(deliveredOf(l))) &&
      // worthTheTrip() in whole cents: in dollars, fair − price can come out a hair above the haul when it equals it.
      (!filter.near || !filter.worthTheTrip || ((d) => d !== null && worthTheTrip({ price: cents(l.priceUsd), fairValue: cents(l.fairValue ?? null) }, d.haul_high * 100))(deliveredOf(l))),
  );
  if (sort === 'delivered' && filter.near) {
    const total = (l: IndexedListing) => deliveredOf(l)?.total_high ?? Infinity;
    // Infinity − Infinity is NaN: compared, not subtracted.
    return [...matches].sort((a, b) => (total(a) === total(b) ? a.id - b.id : total(a) < total(b) ? -1 : 1));
  }
  if (sort === 'delivered') sort = 'deal_score_high';
  if (sort === 'distance' && filter.near) {
    const d = (l: IndexedListing) => (l.lat === null || l.lon === null ? Infinity : distanceMiles(filter.near!, { lat: l.lat, lon: l.lon }));
    return [...matches].sort((a, b) => d(a) - d(b) || a.id - b.id);
  }
  if (sort === 'distance') sort = 'deal_score_high';
  const key = (l: IndexedListing, by: Exclude<IndexSort, 'relevance' | 'distance' | 'delivered'>) => {
    const v = by.startsWith('deal') ? l.dealScore : l.priceUsd;
    if (v === null) return Infinity;
    return by === 'deal_score_high' || by === 'price_high' ? -v : v;
  };
  const ordered = (by: Exclude<IndexSort, 'relevance' | 'distance' | 'delivered'>) =>
    [...matches].sort((a, b) => {
      const ka = key(a, by);
      const kb = key(b, by);
      return ka !== kb ? (ka < kb ? -1 : 1) : a.id - b.id;
    });
  if (sort !== 'relevance' || filter.groups.length === 0) return ordered(sort === 'relevance' ? 'deal_score_high' : sort);
  // ts_rank's D, C, B, A weights (0.1, 0.2, 0.4, 1) ×10: integer sums, so equal ranks are equal
  const weightOf = [1, 2, 4, 10];
  const rank = (l: IndexedListing) =>
    filter.groups.reduce((sum, g) => {
      const weights = l.lexemes.flatMap((x, i) => (g.exact.includes(x) || g.prefixes.some((p) => x.startsWith(p)) ? [weightOf[l.weights[i]!]!] : []));
      return sum + Math.max(0, ...weights);
    }, 0);
  const byScore = ordered('deal_score_high');
  const head = byScore.slice(0, RELEVANCE_CANDIDATES).map((l) => ({ l, r: rank(l) }));
  head.sort((a, b) => b.r - a.r || byScore.indexOf(a.l) - byScore.indexOf(b.l));
  return [...head.map((h) => h.l), ...byScore.slice(RELEVANCE_CANDIDATES)];
}

const WORDS = ['caterpillar', 'deere', '320', '320d', 'excav', 'loader', 'bucket', 'track'];
/** Words few listings hold: a word mixing frequent and rare lexemes takes both search paths. */
const RARE = ['cat', '320fl', 'cab', 'zx210', 'jd', 'o\'brien'];
const STATES = ['TX', 'CA', 'IA'];
const CITIES = ['houston', 'reno', 'tampa'];
const SORTS: IndexSort[] = ['deal_score_high', 'deal_score_low', 'price_low', 'price_high', 'relevance', 'distance', 'delivered'];
/** Titles of every weight class (mini and 20-ton excavators, a D8, a backhoe…) and of none in particular. */
const TITLES = ['Kubota KX040 mini excavator', 'Caterpillar 320 excavator', 'CAT D8T dozer', 'Deere 310SJ backhoe', 'CAT 349 excavator', 'Bobcat S650', 'Grove RT530E crane', 'Lot 17'];
/** A few places (lots share their city's or state's centroid, so equal distances are common), one far away. */
const PLACES = [
  { lat: 41.6727, lon: -93.5722 },
  { lat: 42.036, lon: -93.6408 },
  { lat: 41.2565, lon: -95.9345 },
  { lat: 39.0997, lon: -94.5786 },
  { lat: 29.7604, lon: -95.3698 },
  { lat: 61.2181, lon: -149.9003 },
];
/** Buyers' points: on a place (distance 0), between places. */
const NEAR = [PLACES[0]!, { lat: 40.5, lon: -94.2 }, { lat: 33.4, lon: -97.1 }];

function randomListing(random: () => number, id: number, now: number): IndexedListing {
  const pick = <T,>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const lexemes = [...new Set(Array.from({ length: 1 + Math.floor(random() * 4) }, () => (random() < 0.04 ? pick(RARE) : pick(WORDS))))];
  const categoryId = 1 + Math.floor(random() * 4);
  const title = pick(TITLES);
  titles.set(id, title);
  const priceUsd = random() < 0.1 ? null : Math.floor(random() * 20) * 5000;
  return {
    id,
    // Few distinct scores and prices, so ties (broken by id) are common.
    dealScore: random() < 0.15 ? null : Math.floor(random() * 10) * 100,
    priceUsd,
    categoryId,
    state: random() < 0.1 ? null : pick(STATES),
    city: random() < 0.2 ? null : pick(CITIES),
    endAt: random() < 0.2 ? null : now + Math.floor((random() - 0.1) * 100_000),
    ...(random() < 0.15 ? { lat: null, lon: null } : pick(PLACES)),
    weightClass: weightClass(categoryId, title),
    buyersPremiumPct: random() < 0.5 ? null : pick([10, 12.5, 15, 7.125]),
    // Fair values around the price, some with cents; a discount near a haul is common.
    fairValue: random() < 0.2 || priceUsd === null ? null : priceUsd + Math.floor((random() - 0.3) * 12_000) + (random() < 0.3 ? 0.37 : 0),
    lexemes,
    weights: lexemes.map(() => Math.floor(random() * 4)),
  };
}

function randomFilter(random: () => number): IndexFilter {
  const maybe = <T,>(p: number, value: () => T) => (random() < p ? value() : undefined);
  const words = Array.from({ length: Math.floor(random() * 3) }, () =>
    random() < 0.25
      ? { exact: [], prefixes: ['320'] }
      : random() < 0.2
        ? { exact: [RARE[Math.floor(random() * RARE.length)]!], prefixes: [] }
        : { exact: [WORDS[Math.floor(random() * WORDS.length)]!, ...(random() < 0.4 ? [RARE[Math.floor(random() * RARE.length)]!] : [])], prefixes: [] },
  );
  const min = maybe(0.25, () => Math.floor(random() * 10) * 5000);
  return {
    categoryId: maybe(0.3, () => 1 + Math.floor(random() * 5)),
    minPrice: min,
    maxPrice: maybe(0.25, () => (min ?? 0) + Math.floor(random() * 10) * 5000),
    state: maybe(0.25, () => (random() < 0.1 ? 'NV' : STATES[Math.floor(random() * 3)]!)),
    city: maybe(0.15, () => CITIES[Math.floor(random() * 3)]!),
    groups: words,
    near: maybe(0.4, () => ({ ...NEAR[Math.floor(random() * NEAR.length)]!, radiusMiles: maybe(0.6, () => [0, 50, 150, 300, 1000][Math.floor(random() * 5)]!) })),
    maxDelivered: maybe(0.2, () => [3000, 20_000, 50_000, 90_000][Math.floor(random() * 4)]!),
    worthTheTrip: maybe(0.15, () => true),
  };
}

describe('ListingIndex', () => {
  // Bitsets from 40 listings (most values have one, rare words do not), or none but categories'.
  it.each([40, 100_000])('answers every filter, order, page and count as the plain reference does, through inserts, updates, deletes and time passing (bitsets from %i listings)', (minBitsetPostings) => {
    const random = seededRandom(20261121);
    let now = 1_800_000_000_000;
    const truth = new Map<number, IndexedListing>();
    const initial = Array.from({ length: 400 }, (_, i) => randomListing(random, i + 1, now));
    for (const l of initial) truth.set(l.id, l);
    // Small delta and bitset thresholds, so merges and both search paths run many times.
    // The distance order by walking places (the first run) or by scanning candidates (the second).
    const index = ListingIndex.build(initial, { maxDelta: 16, minBitsetPostings, capacity: 64, distanceScanBelow: minBitsetPostings === 40 ? 0 : 100_000 });
    let nextId = 1000;
    let checks = 0;
    for (let round = 0; round < 300; round++) {
      for (let k = 0; k < 4; k++) {
        const r = random();
        if (r < 0.4) {
          const l = randomListing(random, nextId++, now);
          truth.set(l.id, l);
          index.upsert(l);
        } else if (r < 0.8 && truth.size > 0) {
          const ids = [...truth.keys()];
          const l = randomListing(random, ids[Math.floor(random() * ids.length)]!, now);
          truth.set(l.id, l);
          index.upsert(l);
        } else if (truth.size > 0) {
          const ids = [...truth.keys()];
          const id = ids[Math.floor(random() * ids.length)]!;
          truth.delete(id);
          expect(index.remove(id)).toBe(true);
        }
      }
      now += Math.floor(random() * 2000);
      const filter = randomFilter(random);
      const sort = SORTS[Math.floor(random() * SORTS.length)]!;
      const expected = reference(truth, filter, sort, now).map((l) => l.id);
      const total = index.count(filter, now);
      expect(total, JSON.stringify(filter)).toBe(expected.length);
      const pageSize = 1 + Math.floor(random() * 20);
      const offset = Math.floor(random() * Math.max(1, expected.length + 5));
      // With and without the count: the count only steers the strategy, never the answer.
      expect(index.page(filter, sort, offset, pageSize, now, total), `${sort} ${JSON.stringify(filter)}`).toEqual(expected.slice(offset, offset + pageSize));
      expect(index.page(filter, sort, 0, pageSize, now)).toEqual(expected.slice(0, pageSize));
      checks++;
    }
    expect(checks).toBe(300);
    if (minBitsetPostings === 40) expect(index.stats().bitsetTerms).toBeGreaterThan(0);
    else expect(index.stats().bitsetTerms).toBe(0);
  });

  it('pages deep into the score order exactly while many changed scores wait in the tail (skipped a word at a time)', () => {
    const random = seededRandom(20261125);
    const now = 1_800_000_000_000;
    const truth = new Map<number, IndexedListing>();
    const initial = Array.from({ length: 3000 }, (_, i) => randomListing(random, i + 1, now));
    for (const l of initial) truth.set(l.id, l);
    const index = ListingIndex.build(initial, { maxDelta: 64, capacity: 64 });
    // A fifth of the listings get a new score: they leave the renumbered order for the tail.
    for (let k = 0; k < 600; k++) {
      const id = 1 + Math.floor(random() * 3000);
      const l = { ...truth.get(id)!, dealScore: random() < 0.1 ? null : Math.floor(random() * 1000) };
      truth.set(id, l);
      index.upsert(l);
    }
    expect(index.stats().unordered).toBeGreaterThan(100);
    for (const filter of [{ groups: [] }, { groups: [], categoryId: 2 }] as IndexFilter[]) {
      const expected = reference(truth, filter, 'deal_score_high', now).map((l) => l.id);
      const total = index.count(filter, now);
      expect(total).toBe(expected.length);
      for (let round = 0; round < 60; round++) {
        const offset = Math.floor(random() * expected.length);
        expect(index.page(filter, 'deal_score_high', offset, 20, now, total), `offset ${offset}`).toEqual(expected.slice(offset, offset + 20));
      }
    }
  });

  it('pages deep into the unfiltered score order exactly by whole blocks, as scores change, lots end and listings go (built and restored)', () => {
    const random = seededRandom(20261126);
    const now = 1_800_000_000_000;
    const truth = new Map<number, IndexedListing>();
    // Six blocks of 2,048 score positions and a part.
    const initial = Array.from({ length: 13_000 }, (_, i) => randomListing(random, i + 1, now));
    for (const l of initial) truth.set(l.id, l);
    const built = ListingIndex.build(initial, { maxDelta: 256, capacity: 64 });
    for (const index of [built, ListingIndex.fromColumns(built.toColumns(), { maxDelta: 256 })]) {
      const mine = new Map(truth);
      let t = now;
      for (let round = 0; round < 6; round++) {
        // Changed scores (to the tail, ranked among the numbered slots), removals, new listings.
        for (let k = 0; k < 700; k++) {
          const id = 1 + Math.floor(random() * 14_000);
          const old = mine.get(id);
          if (old && random() < 0.1) {
            mine.delete(id);
            index.remove(id);
            continue;
          }
          const l = old ? { ...old, dealScore: random() < 0.1 ? null : Math.floor(random() * 1000) } : randomListing(random, id, t);
          mine.set(id, l);
          index.upsert(l);
        }
        // Time passes: lots end, without any write.
        t += 9_000;
        const expected = reference(mine, { groups: [] }, 'deal_score_high', t).map((l) => l.id);
        const total = index.count({ groups: [] }, t);
        expect(total).toBe(expected.length);
        const offsets = [0, 2047, 2048, 4095, 4096, expected.length - 20, expected.length - 1, expected.length];
        for (let k = 0; k < 40; k++) offsets.push(Math.floor(random() * expected.length));
        for (const offset of offsets) {
          expect(index.page({ groups: [] }, 'deal_score_high', offset, 15, t, total), `round ${round}, offset ${offset}`).toEqual(expected.slice(offset, offset + 15));
        }
      }
      expect(index.stats().unordered).toBeGreaterThan(1000);
    }
  });

  it('delivered: max_delivered at exact totals, worth the trip a cent either side of the haul, cheapest delivered first — walked and scanned, built and restored', () => {
    const random = seededRandom(20261127);
    const now = 1_800_000_000_000;
    const buyer = NEAR[1]!;
    const listings: IndexedListing[] = Array.from({ length: 3000 }, (_, i) => {
      const l = randomListing(random, i + 1, now);
      // Many places (a jitter around each), prices with cents, premiums on about half.
      const placed = l.lat === null ? l : { ...l, lat: l.lat! + Math.floor(random() * 40) / 100, lon: l.lon! - Math.floor(random() * 40) / 100 };
      const priceUsd = l.priceUsd === null ? null : l.priceUsd + Math.floor(random() * 5000) + (random() < 0.5 ? 0.55 : 0);
      return { ...placed, priceUsd, endAt: null };
    });
    // A third: a fair value a cent above or exactly at price + the haul's high estimate from the buyer.
    for (const l of listings) {
      const d = delivered(l, { groups: [], near: buyer });
      if (d === null || l.priceUsd === null || random() < 0.66) continue;
      l.fairValue = Math.round((l.priceUsd + d.haul_high + (random() < 0.5 ? 0.01 : 0)) * 100) / 100;
    }
    const truth = new Map(listings.map((l) => [l.id, l]));
    const totals = listings.flatMap((l) => delivered(l, { groups: [], near: buyer })?.total_high ?? []);
    expect(totals.length).toBeGreaterThan(1500);
    const built = ListingIndex.build(listings.slice(0, 2500), { maxDelta: 4096, capacity: 64, distanceScanBelow: 0 });
    for (const l of listings.slice(2500)) built.upsert(l); // 500 in the delta
    for (const index of [built, ListingIndex.fromColumns(built.toColumns(), { distanceScanBelow: 100_000 })]) {
      const filters: IndexFilter[] = [
        { groups: [], near: buyer, worthTheTrip: true },
        { groups: [], near: buyer, worthTheTrip: true, categoryId: 1 },
        { groups: [], near: { ...buyer, radiusMiles: 300 }, maxDelivered: 40_000 },
        // price bounds beside it (a price-only count must not answer for it), and a low cap (counted along the price order)
        { groups: [], near: buyer, minPrice: 20_000, maxDelivered: 60_000 },
        { groups: [], near: buyer, maxPrice: 50_000, maxDelivered: 30_000 },
        { groups: [], near: buyer, maxDelivered: 8_000 },
        // totals themselves (cents), and the whole dollars either side, as the route passes them
        ...Array.from({ length: 12 }, () => totals[Math.floor(random() * totals.length)]!).flatMap((t) => [t, Math.floor(t), Math.ceil(t)].map((maxDelivered) => ({ groups: [], near: buyer, maxDelivered }))),
      ];
      let worth = 0;
      for (const filter of filters) {
        const expected = reference(truth, filter, 'deal_score_high', now).map((l) => l.id);
        if (filter.worthTheTrip) worth = expected.length;
        expect(index.count(filter, now), JSON.stringify(filter)).toBe(expected.length);
        expect(index.page(filter, 'deal_score_high', 0, 3000, now)).toEqual(expected);
      }
      // Neither none nor all: the cent decides.
      expect(worth).toBeGreaterThan(100);
      expect(worth).toBeLessThan(1500);
      for (const filter of [{ groups: [], near: buyer }, { groups: [], near: buyer, categoryId: 2 }, { groups: [], near: { ...buyer, radiusMiles: 150 } }, filters[2]!] as IndexFilter[]) {
        const expected = reference(truth, filter, 'delivered', now).map((l) => l.id);
        const total = index.count(filter, now);
        for (const offset of [0, 15, 300, expected.length - 10]) {
          expect(index.page(filter, 'delivered', offset, 15, now, total), `${JSON.stringify(filter)} @${offset}`).toEqual(expected.slice(Math.max(0, offset), Math.max(0, offset) + 15));
        }
      }
    }
  });

  it.each([4096, 16, 1])('nearest and cheapest delivered pages asked again and again while listings change, end and go: exact each time (kept first slots, merged with the appended; rolled forward after %i appended)', (pastKept) => {
    const random = seededRandom(20261128 + pastKept);
    let now = 1_800_000_000_000;
    const truth = new Map<number, IndexedListing>();
    const initial = Array.from({ length: 2500 }, (_, i) => randomListing(random, i + 1, now));
    for (const l of initial) truth.set(l.id, l);
    const index = ListingIndex.build(initial, { maxDelta: 64, capacity: 64, distanceScanBelow: 0, pastKept });
    const filters: IndexFilter[] = [
      { groups: [], near: NEAR[0] },
      { groups: [], near: NEAR[1], categoryId: 2 },
      { groups: [], near: { ...NEAR[2]!, radiusMiles: 1000 }, maxDelivered: 60_000 },
    ];
    let nextId = 5000;
    for (let round = 0; round < 120; round++) {
      // A few changes a round, some to the very best lots (so kept slots go unlisted), and time passing.
      for (let k = 0; k < 1 + Math.floor(random() * 40); k++) {
        const r = random();
        const ids = [...truth.keys()];
        if (r < 0.3) {
          const l = randomListing(random, nextId++, now);
          truth.set(l.id, l);
          index.upsert(l);
        } else if (r < 0.8) {
          const id = index.page(filters[0]!, random() < 0.5 ? 'distance' : 'delivered', 0, 5, now)[Math.floor(random() * 5)] ?? ids[0]!;
          const l = randomListing(random, id, now);
          truth.set(id, l);
          index.upsert(l);
        } else {
          const id = ids[Math.floor(random() * ids.length)]!;
          truth.delete(id);
          index.remove(id);
        }
      }
      now += Math.floor(random() * 3000);
      const filter = filters[round % filters.length]!;
      for (const sort of ['distance', 'delivered'] as const) {
        const expected = reference(truth, filter, sort, now).map((l) => l.id);
        for (const offset of [0, 15, 45, 585, 600]) {
          expect(index.page(filter, sort, offset, 15, now), `round ${round} ${sort} @${offset}`).toEqual(expected.slice(offset, offset + 15));
        }
      }
    }
  });

  it.each([4096, 1])('nearest first, a kept page full: slots appended at new places, nearer, tied at its worst distance or farther, each where it belongs (rolled forward after %i appended)', (pastKept) => {
    const random = seededRandom(20261127);
    const now = 1_800_000_000_000;
    const truth = new Map<number, IndexedListing>();
    const initial = Array.from({ length: 3000 }, (_, i) => randomListing(random, 1000 + i, now));
    for (const l of initial) truth.set(l.id, l);
    const index = ListingIndex.build(initial, { maxDelta: 64, capacity: 64, distanceScanBelow: 0, pastKept });
    const filter: IndexFilter = { groups: [], near: NEAR[1] };
    const check = (label: string) => {
      const expected = reference(truth, filter, 'distance', now).map((l) => l.id);
      for (const offset of [0, 15, 60]) expect(index.page(filter, 'distance', offset, 15, now), `${label} @${offset}`).toEqual(expected.slice(offset, offset + 15));
    };
    check('kept');
    const put = (l: IndexedListing) => {
      truth.set(l.id, l);
      index.upsert(l);
    };
    const lot = (id: number, at: { lat: number; lon: number } | null): IndexedListing => ({ ...randomListing(random, id, now), endAt: null, ...(at ?? { lat: null, lon: null }) });
    // A new place right at the buyer's point, and one just off it: first on the page.
    put(lot(9001, NEAR[1]!));
    put(lot(9002, { lat: NEAR[1]!.lat + 0.01, lon: NEAR[1]!.lon }));
    check('new places nearer');
    // At the page's worst distance (an existing place) with a lower id than the page's own lots there: ties go by id.
    const worstId = index.page(filter, 'distance', 60, 15, now).at(-1)!;
    const worst = truth.get(worstId)!;
    put(lot(1, { lat: worst.lat!, lon: worst.lon! }));
    put(lot(99_999, { lat: worst.lat!, lon: worst.lon! }));
    check('tied at the worst distance');
    // Farther than every kept lot, at a new place, and unplaced: not on these pages.
    put(lot(9003, { lat: 25.77, lon: -80.19 }));
    put(lot(9004, null));
    check('farther and unplaced');
    // A kept lot moves next to the buyer (a new slot at a new place).
    const moved = index.page(filter, 'distance', 45, 15, now)[3]!;
    put({ ...truth.get(moved)!, lat: NEAR[1]!.lat - 0.02, lon: NEAR[1]!.lon });
    check('moved nearer');
  });

  it('walks every listed listing exactly once across pages, in each order', () => {
    const random = seededRandom(7);
    const now = 1_800_000_000_000;
    const listings = Array.from({ length: 1000 }, (_, i) => randomListing(random, i + 1, now));
    const index = ListingIndex.build(listings.slice(0, 600), { maxDelta: 1000, capacity: 64 });
    for (const l of listings.slice(600)) index.upsert(l); // 400 in the delta, none merged
    const filter: IndexFilter = { groups: [] };
    const total = index.count(filter, now);
    expect(total).toBe(listings.filter((l) => l.endAt === null || l.endAt > now).length);
    for (const sort of SORTS) {
      const seen: number[] = [];
      for (let offset = 0; offset < total; offset += 15) seen.push(...index.page(filter, sort, offset, 15, now, total));
      expect(new Set(seen).size).toBe(total);
      expect(seen).toEqual(reference(new Map(listings.map((l) => [l.id, l])), filter, sort, now).map((l) => l.id));
    }
  });

  it('a listing replaced during the load leaves no trace: later listings take its old slot numbers cleanly', () => {
    const lot = (id: number, word: string): IndexedListing => ({
      id, dealScore: 500, priceUsd: 1000, categoryId: 1, state: null, city: null, endAt: null, lat: null, lon: null, lexemes: [word], weights: [3],
    });
    // id 1 arrives twice while loading (the second replaces the first): the load drops the dead slot
    const index = ListingIndex.build([lot(1, 'alpha'), lot(1, 'bravo')]);
    index.upsert(lot(2, 'bravo'));
    const bravo: IndexFilter = { groups: [{ exact: ['bravo'], prefixes: [] }] };
    expect(index.page(bravo, 'deal_score_high', 0, 10, 0)).toEqual([1, 2]);
    expect(index.count({ groups: [{ exact: ['alpha'], prefixes: [] }] }, 0)).toBe(0);
  });

  it('stops listing a lot when its end time passes, without any write', () => {
    const now = 1_800_000_000_000;
    const lot = (id: number, endAt: number | null): IndexedListing => ({
      id, dealScore: 500, priceUsd: 1000, categoryId: 1, state: 'TX', city: 'houston', endAt, lat: null, lon: null, lexemes: ['deere'], weights: [3],
    });
    const index = ListingIndex.build([lot(1, now + 1000), lot(2, null), lot(3, now + 5000)]);
    const all: IndexFilter = { groups: [] };
    expect(index.page(all, 'deal_score_high', 0, 10, now)).toEqual([1, 2, 3]);
    expect(index.count(all, now + 1000)).toBe(2);
    expect(index.count({ categoryId: 1, groups: [] }, now + 1000)).toBe(2);
    expect(index.count({ state: 'TX', groups: [] }, now + 5000)).toBe(1);
    expect(index.page(all, 'deal_score_high', 0, 10, now + 5000)).toEqual([2]);
  });

  it('a changed listing takes its new place; a removed one is gone', () => {
    const now = 1_800_000_000_000;
    const lot = (id: number, dealScore: number | null): IndexedListing => ({
      id, dealScore, priceUsd: 1000, categoryId: 1, state: null, city: null, endAt: null, lat: null, lon: null, lexemes: [], weights: [],
    });
    const index = ListingIndex.build([lot(1, 100), lot(2, 200), lot(3, 300)]);
    index.upsert(lot(1, 900));
    index.upsert(lot(4, null));
    expect(index.page({ groups: [] }, 'deal_score_high', 0, 10, now)).toEqual([1, 3, 2, 4]);
    expect(index.page({ groups: [] }, 'deal_score_low', 0, 10, now)).toEqual([2, 3, 1, 4]);
    expect(index.remove(3)).toBe(true);
    expect(index.remove(3)).toBe(false);
    index.mergeDelta();
    expect(index.page({ groups: [] }, 'deal_score_high', 0, 10, now)).toEqual([1, 2, 4]);
    expect(index.count({ groups: [] }, now)).toBe(3);
    expect(index.stats()).toMatchObject({ live: 3, listed: 3, delta: 0 });
  });

  it('parses tsvector text: quoted lexemes, escaped quotes, best weight per lexeme', () => {
    expect(parseTsvector(`'320fl':2A,7B 'excav':4B 'o''brien':9 'tracks':3C,5 'x'`)).toEqual({
      lexemes: ['320fl', 'excav', "o'brien", 'tracks', 'x'],
      weights: [3, 2, 0, 1, 0],
    });
    expect(parseTsvector('')).toEqual({ lexemes: [], weights: [] });
    // "PC120-6": the parser's signed integer '-6' is indexed as the word '6', merged with a '6' already there
    expect(parseTsvector(`'-6':3A,7B '1998':4B 'pc120':2A,6B`)).toEqual({ lexemes: ['6', '1998', 'pc120'], weights: [3, 2, 3] });
    expect(parseTsvector(`'-6':3C '6':9A 'x'`)).toEqual({ lexemes: ['6', 'x'], weights: [3, 0] });
  });
});
