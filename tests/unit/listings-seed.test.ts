import { describe, expect, it } from 'vitest';
import { lotLine, makeForModel, prng, type LotTemplate } from '../../scripts/seed-listings.js';

const templates: LotTemplate[] = [
  { categoryId: 4, make: 'John Deere', model: '310SJ', modelFamily: '310', year: 2015, hours: 3000, state: 'IA', city: null, price: 50000, description: 'Cab', noun: 'Backhoe Loader' },
];

describe('benchmark seeder', () => {
  it('infers makes from well-known model codes', () => {
    const pick = prng(1);
    expect(makeForModel(1, '320CL', pick)).toBe('Caterpillar');
    expect(makeForModel(1, 'PC200LC', pick)).toBe('Komatsu');
    expect(makeForModel(4, '310SJ', pick)).toBe('John Deere');
    expect(makeForModel(4, '580SM', pick)).toBe('Case');
    expect(makeForModel(5, 'S650', pick)).toBe('Bobcat');
    expect(['Caterpillar', 'Komatsu', 'John Deere', 'Volvo', 'Case', 'Kawasaki']).toContain(makeForModel(3, 'ZZZ', pick));
  });

  it('writes deterministic, well-formed COPY lines', () => {
    const sources = [{ id: 3, name: 'bench-x' }];
    const now = Date.UTC(2026, 10, 21);
    const a = lotLine(42, templates, sources, 1, now);
    expect(lotLine(42, templates, sources, 1, now)).toBe(a);
    expect(lotLine(43, templates, sources, 1, now)).not.toBe(a);
    const fields = a.replace(/\n$/, '').split('\t');
    expect(fields).toHaveLength(33);
    expect(fields[0]).toBe('3');
    expect(fields[1]).toBe('lot-42');
    expect(fields[2]).toMatch(/-l[0-9a-z]{9}$/);
    expect(fields[4]).toBe('John Deere');
    const score = fields[25]!;
    expect(score === '\\N' || (Number(score) >= 0 && Number(score) <= 1000)).toBe(true);
    // placed as the crawl store would place it: zip, lat, lon, precision
    expect(['zip', 'city', 'state', 'none']).toContain(fields[29]);
    if (fields[29] !== 'none') expect(Math.abs(Number(fields[27]))).toBeLessThanOrEqual(90);
    // a synthetic fair value for a scored, priced lot (null otherwise) and a stated premium or none
    expect(fields[30] === '\\N' ? score === '\\N' || fields[18] === '\\N' : Number(fields[30]) > 0).toBe(true);
    expect(['\\N', '10', '12.5', '15']).toContain(fields[31]);
    // an open lot with a fair value has a Good bid limit under it (cards carry it)
    const lines = Array.from({ length: 200 }, (_, i) => lotLine(i, templates, sources, 1, now).replace(/\n$/, '').split('\t'));
    const limited = lines.filter((f) => f[32] !== '\\N');
    expect(limited.length).toBeGreaterThan(50);
    for (const f of limited) expect(Number(f[32])).toBeLessThan(Number(f[30]));
    for (const f of lines) if (f[20] !== 'open' || f[30] === '\\N') expect(f[32]).toBe('\\N');
  });
});
