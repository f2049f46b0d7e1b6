import { describe, expect, it } from 'vitest';
import { DemoAuction } from '../../scripts/demo-site/demo-auction.js';
import { loadCatalog, makeForModel } from '../../scripts/demo-site/demo-catalog.js';
import { makeModel } from '../../services/listings/listing-rules.js';

describe('demo catalog: the make of a Fast Iron model designation', () => {
  it('names the maker a designation belongs to, per equipment type', () => {
    expect(makeForModel('302.5', 1)).toBe('Caterpillar');
    expect(makeForModel('235C', 1)).toBe('Caterpillar');
    expect(makeForModel('200CLC', 1)).toBe('John Deere');
    expect(makeForModel('TB135', 1)).toBe('Takeuchi');
    expect(makeForModel('992C', 3)).toBe('Caterpillar');
    expect(makeForModel('L70D', 3)).toBe('Volvo');
    expect(makeForModel('921E', 3)).toBe('Case');
    expect(makeForModel('1845C', 5)).toBe('Case');
    expect(makeForModel('MC80', 5)).toBe('Volvo');
    expect(makeForModel('555E', 4)).toBe('New Holland');
    expect(makeForModel('570A', 10)).toBe('John Deere');
    expect(makeForModel('892ELC', 1)).toBe('John Deere');
    expect(makeForModel('892D LC', 1)).toBe('John Deere');
    expect(makeForModel('12G', 10)).toBe('Caterpillar');
  });

  it('leaves a designation two makers share, or one it does not know, without a make', () => {
    // Case and John Deere both sold 850C and 650G dozers.
    expect(makeForModel('850C', 2)).toBeNull();
    expect(makeForModel('650G', 2)).toBeNull();
    expect(makeForModel('240', 5)).toBeNull();
    // A designation is one maker's only within its type: 416 is a Caterpillar backhoe, not an excavator.
    expect(makeForModel('416', 4)).toBe('Caterpillar');
    expect(makeForModel('416', 1)).toBeNull();
  });
});

describe('demo catalog: the machines on sale', () => {
  it('sells Ritchie Bros. machines of the 2010s and 2020s beside the older records, every lot with its make, no card a bare model number', async () => {
    const catalog = await loadCatalog(process.env.SHARED_DIR ?? '../shared');
    for (const m of catalog) {
      expect(m.make, m.title).toBeTruthy();
      // the card reads make and model (listing-rules makeModel), the title names the type too
      expect(makeModel({ make: m.make, model: m.model, title: m.title }).startsWith(m.make!), m.title).toBe(true);
      expect(m.title.startsWith(m.make!) || m.title.startsWith(`${m.year} ${m.make}`) || m.origin === 'westauction', m.title).toBe(true);
    }
    const rb = catalog.filter((m) => m.origin === 'rbauction');
    expect(rb.length).toBeGreaterThan(3000);
    expect(rb.every((m) => m.year !== null && m.year >= 2010 && m.model !== '')).toBe(true);
    expect(new Set(rb.map((m) => m.make)).size).toBeGreaterThan(50);
    expect(new Set(rb.map((m) => m.categoryId)).size).toBe(11);
    const excavator = rb.find((m) => m.categoryId === 1 && m.year! >= 2015 && !/Unused/.test(m.title))!;
    expect(excavator.title).toMatch(new RegExp(`^${excavator.year} ${excavator.make} \\S+.* Excavator$`));

    // in the demo's lots (seed 42, 600 lots): a share of today's machines among the dealer-auction ones
    const lots = new DemoAuction(catalog, { seed: 42, lots: 600, speed: 0, startedAt: Date.UTC(2026, 10, 26) }).lots;
    const dealer = lots.filter((l) => l.machine.origin !== 'westauction');
    const today = dealer.filter((l) => l.machine.origin === 'rbauction').length / dealer.length;
    expect(today).toBeGreaterThan(0.2);
    expect(today).toBeLessThan(0.5);
  }, 60_000);
});
