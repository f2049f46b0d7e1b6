/** The demo adapter's handlers on pages the demo site renders, and on pages it did not. */
import { describe, expect, it } from 'vitest';
import { DemoAuction } from '../../scripts/demo-site/demo-auction.js';
import type { CatalogMachine } from '../../scripts/demo-site/demo-catalog.js';
import { detailPage, listPage } from '../../scripts/demo-site/demo-pages.js';
import { ParseError, type FetchedPage } from '../../services/crawler/adapter.js';
import { parseDemoDetailPage, parseDemoListPage } from '../../services/crawler/adapters/demo-adapter.js';

const machine = (i: number): CatalogMachine => ({
  origin: 'fastiron',
  recordId: String(i),
  title: `2004 Caterpillar 950G Wheel Loader <b>#${i}</b>`,
  make: 'Caterpillar',
  model: '950G',
  year: 2004,
  hours: 5000 + i,
  categoryId: 3,
  state: 'TX',
  city: 'Houston',
  marketValue: 60_000,
  details: {},
  description: 'Enclosure: EROPS w AC\n<script>alert(1)</script>',
});

const base = 'http://127.0.0.1:9';
const auction = new DemoAuction(Array.from({ length: 60 }, (_, i) => machine(i)), { seed: 1, lots: 60, speed: 0, startedAt: Date.UTC(2026, 10, 21), publishedShare: 1 });
const page = (url: string, body: string, label: 'list' | 'detail', n?: number): FetchedPage => ({ step: { label, url, page: n }, url, status: 200, contentType: 'text/html', body, fetchedAt: new Date() });

describe('demo adapter', () => {
  it('reads a list page: one detail step per card and the next page', () => {
    const views = auction.visible();
    expect(views.length).toBeGreaterThan(24);
    const result = parseDemoListPage(page(`${base}/auctions?page=1`, listPage(views, 1, base), 'list', 1));
    const details = result.next.filter((s) => s.label === 'detail');
    expect(details).toHaveLength(24);
    expect(details[0]).toEqual({ label: 'detail', url: `${base}/lots/${views[0]!.lot.id}`, externalId: views[0]!.lot.id });
    expect(result.next.find((s) => s.label === 'list')).toEqual({ label: 'list', url: `${base}/auctions?page=2`, page: 2 });
    const last = Math.ceil(views.length / 24);
    expect(parseDemoListPage(page(`${base}/auctions?page=${last}`, listPage(views, last, base), 'list', last)).next.some((s) => s.label === 'list')).toBe(false);
  });

  it('reads a detail page field by field, texts as data', () => {
    const view = auction.visible().find((v) => v.state === 'open' && v.bidCount > 0)!;
    const [lot] = parseDemoDetailPage(page(`${base}/lots/${view.lot.id}`, detailPage(view, base), 'detail')).listings;
    expect(lot).toMatchObject({
      externalId: view.lot.id,
      title: view.lot.machine.title,
      make: 'Caterpillar',
      model: '950G',
      year: '2004',
      state: 'TX',
      status: 'open',
      currentBid: String(view.currentBid),
      bidCount: String(view.bidCount),
      endsAt: new Date(view.lot.endsAt).toISOString(),
    });
    expect(lot!.images).toHaveLength(view.lot.imageCount);
  });

  it('raises a parse error on a page that is not a demo page', () => {
    expect(() => parseDemoDetailPage(page(`${base}/lots/x`, '<html><body>%%% garbage', 'detail'))).toThrow(ParseError);
    expect(() => parseDemoListPage(page(`${base}/auctions`, '{"json": true}', 'list'))).toThrow(ParseError);
  });

  it('is deterministic for a seed', () => {
    const again = new DemoAuction(Array.from({ length: 60 }, (_, i) => machine(i)), { seed: 1, lots: 60, speed: 0, startedAt: Date.UTC(2026, 10, 21), publishedShare: 1 });
    expect(again.lots.map((l) => [l.id, l.finalPrice, l.endsAt])).toEqual(auction.lots.map((l) => [l.id, l.finalPrice, l.endsAt]));
  });
});
