/** The alert walkthrough's lot (README, demo banner): an upcoming excavator alone in its state, offered well under its value. */
import { describe, expect, it } from 'vitest';
import { DemoAuction } from '../../scripts/demo-site/demo-auction.js';
import { loadCatalog, type CatalogMachine } from '../../scripts/demo-site/demo-catalog.js';

const machine = (i: number, categoryId: number, state: string, marketValue: number): CatalogMachine => ({
  origin: 'fastiron',
  recordId: String(i),
  title: `Machine ${i}`,
  make: null,
  model: `M${i}`,
  year: 2005,
  hours: null,
  categoryId,
  state,
  city: null,
  marketValue,
  details: {},
  description: '',
});

describe('demo alert walkthrough', () => {
  it('picks the dearest upcoming excavator whose state sells no other excavator, at 8% of its value', () => {
    const catalog = [
      machine(0, 1, 'Texas', 90_000),
      machine(1, 1, 'Texas', 80_000),
      machine(2, 1, 'Ohio', 50_000),
      machine(3, 1, 'Iowa', 40_000),
      machine(4, 3, 'Ohio', 70_000),
    ];
    // every lot upcoming: nothing published at the start
    const auction = new DemoAuction(catalog, { seed: 3, lots: 5, speed: 0, startedAt: Date.UTC(2026, 10, 21), publishedShare: 0 });
    const pick = auction.walkthrough()!;
    expect(pick.lot.machine.recordId).toBe('2');
    expect(pick.state).toBe('Ohio');
    expect(pick.price).toBe(4_000);
    // published as the banner says: closing in its hours, no longer upcoming; the next pick is the next one alone in its state
    expect(pick.hoursLeft).toBe(12);
    auction.publishNow(pick.lot.id, pick.price, pick.hoursLeft);
    expect(auction.view(pick.lot).state).toBe('open');
    expect(pick.lot.endsAt - auction.now()).toBeLessThanOrEqual(12 * 3600_000);
    expect(auction.walkthrough()!.lot.machine.recordId).toBe('3');
  });

  it('states a published lot\'s end on the real clock, the others\' on the demo clock: at ×60, 12 demo hours close 12 real minutes from now', () => {
    const catalog = [machine(0, 1, 'Texas', 90_000), machine(1, 1, 'Ohio', 50_000), machine(2, 3, 'Ohio', 70_000)];
    // a running demo a real minute old: its clock is an hour ahead of the real one
    const auction = new DemoAuction(catalog, { seed: 3, lots: 3, speed: 60, startedAt: Date.now() - 60_000, publishedShare: 0 });
    const pick = auction.walkthrough()!;
    const other = auction.lots.find((l) => l !== pick.lot)!;
    auction.publishNow(pick.lot.id, pick.price, pick.hoursLeft);
    const view = auction.view(pick.lot);
    expect(view.state).toBe('open');
    // the demo clock closes it in 12 demo hours; the site states the real time that happens
    expect(pick.lot.endsAt - auction.now()).toBeGreaterThan(11.99 * 3600_000);
    expect(view.statedEndsAt - Date.now()).toBeGreaterThan(11.9 * 60_000);
    expect(view.statedEndsAt - Date.now()).toBeLessThanOrEqual(12 * 60_000 + 1000);
    expect(auction.view(other).statedEndsAt).toBe(other.endsAt);
    // when the demo clock reaches its end (here moved on by hand), the stated end is now
    auction.advance(12 * 3600_000);
    const closed = auction.view(pick.lot);
    expect(closed.state).toBe('sold');
    expect(Math.abs(closed.statedEndsAt - Date.now())).toBeLessThan(2000);
  });

  it('on the real demo catalog (seed 42, 600 lots) names a lot no other excavator shares a state with', async () => {
    const catalog = await loadCatalog(process.env.SHARED_DIR ?? '../shared');
    const auction = new DemoAuction(catalog, { seed: 42, lots: 600, speed: 0, startedAt: Date.UTC(2026, 10, 26) });
    const pick = auction.walkthrough()!;
    expect(pick.lot.machine.categoryId).toBe(1);
    expect(pick.state).not.toBeNull();
    expect(auction.lots.filter((l) => l.machine.categoryId === 1 && l.machine.state === pick.state)).toEqual([pick.lot]);
    expect(pick.price).toBeLessThan(pick.lot.machine.marketValue * 0.1);
  }, 60_000);
});

describe('demo lots', () => {
  it('make one lot in five an online-auction machine when the catalog has them, and leave a catalog without them as it was', () => {
    const dealer = Array.from({ length: 40 }, (_, i) => machine(i, 1 + (i % 5), 'Ohio', 30_000));
    const online = Array.from({ length: 10 }, (_, i) => ({ ...machine(100 + i, 11, 'California', 2_000), origin: 'westauction' as const }));
    const auction = new DemoAuction([...dealer, ...online], { seed: 5, lots: 50, speed: 0, startedAt: Date.UTC(2026, 10, 21) });
    const origins = auction.lots.map((l) => l.machine.origin);
    expect(origins.filter((o) => o === 'westauction')).toHaveLength(10);
    origins.forEach((o, n) => expect(o, `lot ${n}`).toBe(n % 5 === 4 ? 'westauction' : 'fastiron'));
    // every machine of the catalog is sold once before any is sold twice
    expect(new Set(auction.lots.map((l) => l.machine.recordId)).size).toBe(50);
    const plain = new DemoAuction(dealer, { seed: 5, lots: 40, speed: 0, startedAt: Date.UTC(2026, 10, 21) });
    expect(new Set(plain.lots.map((l) => l.machine.recordId)).size).toBe(40);
  });
});
