import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../services/shared/seeded-random.js';
import { cosineIndex, nearestByCosine } from '../../services/valuation/cosine-nearest.js';

/** Every lot of the market scored: the plain search the index must agree with exactly. */
function bruteForce(lots: { type: string; words: number[] }[], idf: number[], type: string, words: number[], norm: number, k: number, min: number, skip?: (lot: number) => boolean, zeroNorm = 0) {
  const out: [number, number][] = [];
  lots.forEach((lot, i) => {
    if (lot.type !== type || skip?.(i)) return;
    let dot = 0;
    let shared = false;
    for (const w of words) {
      if (lot.words.includes(w)) {
        dot += idf[w]! * idf[w]!;
        shared = true;
      }
    }
    if (!shared) return;
    let sq = 0;
    for (const w of lot.words) sq += idf[w]! ** 2;
    const sim = dot / (norm * (Math.sqrt(sq) || zeroNorm));
    if (sim >= min) out.push([i, sim]);
  });
  return out.sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, k);
}

describe('nearest lots by cosine (cosine-nearest.ts)', () => {
  it('finds exactly the lots, similarities and order of scoring every lot, with common words, duplicate titles, ties and skipped lots', () => {
    const random = seededRandom(5);
    // word 0–2: in almost every title (the type's noun); 3–30: makes; 31–400: models (rare)
    const vocabulary = 401;
    const df = new Array(vocabulary).fill(1);
    const lots: { type: string; words: number[] }[] = [];
    for (let i = 0; i < 3000; i++) {
      const type = random() < 0.7 ? 'a' : 'b';
      // a third of the lots repeat an earlier title exactly (one document, several lots)
      if (i > 10 && random() < 0.33) {
        const twin = lots[Math.floor(random() * lots.length)]!;
        lots.push({ type: twin.type, words: twin.words });
        continue;
      }
      const words = new Set<number>([0, 1]);
      if (random() < 0.5) words.add(2);
      words.add(3 + Math.floor(random() * random() * 28));
      words.add(31 + Math.floor(random() * 370));
      lots.push({ type, words: [...words] });
    }
    for (const lot of lots) for (const w of lot.words) df[w]++;
    const idf = df.map((n) => Math.log(lots.length / n) + 1);
    const index = cosineIndex(lots, idf);
    let compared = 0;
    for (let q = 0; q < 300; q++) {
      const type = q % 4 === 0 ? 'b' : 'a';
      const query = q % 3 === 0 ? lots[Math.floor(random() * lots.length)]!.words : [0, 1, 3 + Math.floor(random() * 28), 31 + Math.floor(random() * 370)];
      const weights = query.map((w) => idf[w]! * idf[w]!);
      const norm = Math.sqrt(weights.reduce((a, b) => a + b, 0)) * (q % 5 === 0 ? 1.5 : 1); // some queries with unindexed words
      const fold = q % 5;
      const skip = q % 2 === 0 ? (lot: number) => lot % 5 === fold : undefined;
      for (const [k, min] of [[5, 0.25], [3, -Infinity], [1, 0.6]] as const) {
        const fast = nearestByCosine(index, type, query, weights, norm, k, min, skip);
        expect(fast).toEqual(bruteForce(lots, idf, type, query, norm, k, min, skip));
        compared += fast.length;
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it('ties go to the lower lot, within one title and across titles', () => {
    const lots = [
      { type: 'a', words: [0, 1] },
      { type: 'a', words: [1, 0] },
      { type: 'a', words: [0, 1] },
      { type: 'b', words: [0, 1] },
      { type: 'a', words: [0, 1] },
    ];
    const idf = [1, 1];
    const index = cosineIndex(lots, idf);
    const found = nearestByCosine(index, 'a', [0, 1], [1, 1], Math.SQRT2, 3, 0);
    expect(found.map(([lot]) => lot)).toEqual([0, 1, 2]);
    expect(nearestByCosine(index, 'a', [0, 1], [1, 1], Math.SQRT2, 3, 0, (lot) => lot < 2).map(([lot]) => lot)).toEqual([2, 4]);
  });
});
