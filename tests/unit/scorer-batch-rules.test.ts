/** The batch rescore's shortcuts: ranking only the candidates that can win, and telling the matcher only what can newly match. */
import { describe, expect, it } from 'vitest';
import { closestCandidates, rescoreCanNewlyMatch } from '../../services/scorer/score-batch.js';
import { seededRandom } from '../../services/shared/seeded-random.js';
import { selectComparables, type ComparableCandidate } from '../../services/valuation/comparables.js';

const now = new Date('2026-11-25T00:00:00Z');

function candidates(n: number, random: () => number): ComparableCandidate[] {
  return Array.from({ length: n }, (_, i) => ({
    title: `sale ${i}`,
    make: 'Caterpillar',
    model: random() < 0.5 ? '416D' : '416C',
    modelFamily: '416',
    // few distinct values, so many candidates tie on distance and on sale date
    year: random() < 0.2 ? null : 1998 + Math.floor(random() * 6),
    hours: random() < 0.3 ? null : [2000, 4000, 6000][Math.floor(random() * 3)]!,
    price: 10_000 + i,
    soldAt: new Date(Date.UTC(2008 + Math.floor(random() * 4), Math.floor(random() * 2), 1)),
    source: 'Fast Iron auction records',
    url: null,
  }));
}

describe('closestCandidates', () => {
  it('keeps every candidate that can be among the closest, so the comparables picked are the same', () => {
    const random = seededRandom(7);
    let shortened = 0;
    for (let trial = 0; trial < 300; trial++) {
      const pool = candidates(1 + Math.floor(random() * 400), random);
      const target = { make: 'Caterpillar', model: random() < 0.5 ? '416D' : null, modelFamily: '416', year: random() < 0.2 ? null : 2000, hours: random() < 0.3 ? null : 4000 };
      const kept = closestCandidates(target, pool, now);
      expect(selectComparables(target, kept, now, 5)).toEqual(selectComparables(target, pool, now, 5));
      // in their original order
      const positions = kept.map((c) => pool.indexOf(c));
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      if (kept.length < pool.length) shortened++;
    }
    expect(shortened).toBeGreaterThan(200);
  });

  it('returns short lists as they are', () => {
    const pool = candidates(4, seededRandom(1));
    expect(closestCandidates({ model: '416D', modelFamily: '416', year: 2000, hours: 100 }, pool, now)).toBe(pool);
  });
});

describe('rescoreCanNewlyMatch', () => {
  it('only a first score or a higher badge can match an alert anew', () => {
    expect(rescoreCanNewlyMatch(null, 612)).toBe(true);
    expect(rescoreCanNewlyMatch(612, 655)).toBe(true); // badge 62 → 66
    expect(rescoreCanNewlyMatch(651, 659)).toBe(false); // badge 66 both
    expect(rescoreCanNewlyMatch(700, 640)).toBe(false);
    expect(rescoreCanNewlyMatch(700, null)).toBe(false);
    expect(rescoreCanNewlyMatch(null, null)).toBe(false);
  });
});
