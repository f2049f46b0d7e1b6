import { describe, expect, it } from 'vitest';
import type { ScrapedListing } from '../../services/shared/lots/normalize-listing.js';
import { adapterEnv, ParseError } from '../../services/crawler/adapter.js';
import { govDealsAdapter, parseGovDealsAsset, parseGovDealsSearch } from '../../services/crawler/adapters/govdeals.js';
import { expectWholeListing, fetchedPage, readRecorded, testConfig } from '../support/recorded-sites.js';

const LIST = 'api-search-list-page_assetSearchResults_BlackWhole_maestro_page.json';
const DETAIL = 'api-asset-detail-5282-3780_BlackWhole.json';
// The search page was captured on 2026-07-03 with "0:3:48:32" left on the first lot (ending 13:00 UTC).
const CAPTURED = '2026-07-03T09:11:00Z';

function search() {
  return parseGovDealsSearch(fetchedPage(readRecorded('govdeals', LIST), 'https://maestro.lqdt1.com/search/list', 'list', { page: 1 }, CAPTURED));
}

describe('GovDeals adapter on the recorded search page', () => {
  it('reads all 10 results as whole listings on the public asset URL', () => {
    const { listings, next } = search();
    expect(listings).toHaveLength(10);
    for (const l of listings) expectWholeListing(l);
    // 10 results is less than a full page of 24: no next page.
    expect(next).toEqual([]);
  });

  it('reads a lot with bids field by field', () => {
    const l = search().listings.find((x) => x.externalId === '3187-2706')!;
    expect(l.title).toBe('Lot of 9 Chairs');
    expect(l.url).toBe('https://www.govdeals.com/asset/3187/2706');
    expect(l.currentBid).toBe(3);
    expect(l.bidCount).toBe(2);
    expect(l.askingPrice).toBeNull();
    expect(l.city).toBe('Warrensburg');
    expect(l.state).toBe('MO');
    expect(l.category).toBe('Furniture and Furnishings');
    expect(l.endsAt).toEqual(new Date('2026-07-03T13:00:00Z'));
    expect(l.status).toBe('open');
    expect(l.images).toEqual(['https://files.lqdt1.com/photos/2706/2706_3187_7c4b4b51-54b5-44ff-9e63-17eaa36ba2a4.jpg?cb=260626161732']);
    // Make, model and year are present as keys but empty for this lot: absent, not invented.
    expect(l.make).toBeNull();
    expect(l.model).toBeNull();
    expect(l.year).toBeNull();
  });

  it('reads a lot without bids: its amount is the opening bid, not a bid', () => {
    const listings = search().listings;
    const table = listings.find((x) => x.externalId === '3559-7224')!;
    expect(table.title).toBe('5 seat Stainless steel table');
    expect(table.bidCount).toBe(0);
    expect(table.currentBid).toBeNull();
    expect(table.askingPrice).toBe(10);
    expect(table.state).toBe('ME');
    expect(table.endsAt).toEqual(new Date('2026-07-03T13:08:09Z'));

    const couch = listings.find((x) => x.externalId === '286-9188')!;
    expect(couch.title).toBe('Waiting room 2-person couch on wheels');
    expect(couch.currentBid).toBe(5);
    expect(couch.bidCount).toBe(3);
    expect(couch.state).toBe('AL');
    expect(couch.endsAt).toEqual(new Date('2026-07-03T14:57:00Z'));
  });

  it('marks lots closed once their end has passed at fetch time', () => {
    const later = parseGovDealsSearch(fetchedPage(readRecorded('govdeals', LIST), 'https://maestro.lqdt1.com/search/list', 'list', {}, '2026-07-04T00:00:00Z'));
    expect(new Set(later.listings.map((l) => l.status))).toEqual(new Set(['closed']));
  });

  it('asks for the next page when a page is full', () => {
    const items = JSON.parse(readRecorded('govdeals', LIST)) as unknown[];
    const full = JSON.stringify([...items, ...items, ...items].slice(0, 24));
    expect(parseGovDealsSearch(fetchedPage(full, 'https://maestro.lqdt1.com/search/list', 'list', { page: 3 })).next).toEqual([
      { label: 'list', url: 'https://maestro.lqdt1.com/search/list', page: 4 },
    ]);
  });
});

describe('GovDeals adapter on the recorded asset detail', () => {
  // The file wraps the raw response with the upstream author's note; the response is `detail`.
  const body = JSON.stringify((JSON.parse(readRecorded('govdeals', DETAIL)) as { detail: unknown }).detail);

  it('reads the closed lot field by field, its Eastern end time in UTC, and no price (the endpoint has none)', () => {
    const [l] = parseGovDealsAsset(fetchedPage(body, 'https://maestro.lqdt1.com/assets/5282/3780/false', 'detail', {}, '2026-09-29T12:00:00Z')).updates!;
    expectWholeListing(l as ScrapedListing);
    expect(l!.externalId).toBe('5282-3780');
    expect(l!.title).toBe('Lot of Approx. 150 Stacking Chairs');
    expect(l!.url).toBe('https://www.govdeals.com/asset/5282/3780');
    expect(l!.city).toBe('Pittsburgh');
    expect(l!.state).toBe('PA');
    expect(l!.condition).toBe('Used/See Description');
    // "2026-09-02T21:21:51" Eastern daylight time.
    expect(l!.endsAt).toEqual(new Date('2026-09-03T01:21:51Z'));
    expect(l!.status).toBe('closed');
    expect(l!.images).toEqual([
      'https://files.lqdt1.com/photos/3780/3780_5282_f9dfcf1f-fba6-49c3-8858-622f957029ab.jpg?cb=260721140118',
      'https://files.lqdt1.com/photos/3780/3780_5282_ffb88ad9-30b1-4f9d-83a3-ebe9ab47b0f5.jpg?cb=260721140119',
      'https://files.lqdt1.com/photos/3780/3780_5282_0e42c666-5ee0-44d7-b411-a2ef9fc7fb28.jpg?cb=260721140120',
    ]);
    expect(l!.description).toContain('Lot of Approx. 150 Stacking Chairs');
    expect(l!.currentBid).toBeUndefined();
    expect(l!.soldPrice).toBeUndefined();
    expect(l).not.toHaveProperty('bidCount');
    expect(l!.hours).toBeNull();
  });

  it('refuses the wrapper itself and other shapes with a ParseError', () => {
    expect(() => parseGovDealsAsset(fetchedPage(readRecorded('govdeals', DETAIL), 'https://x/assets/1/2/false', 'detail'))).toThrow(ParseError);
    expect(() => parseGovDealsSearch(fetchedPage('{"assetSearchResults":"none"}', 'https://x/search/list'))).toThrow(ParseError);
  });

  it('is disabled by default with its reason, and POSTs JSON searches', () => {
    expect(govDealsAdapter.disabledReason).toMatch(/private back end/);
    const env = adapterEnv(govDealsAdapter, testConfig());
    const [start] = govDealsAdapter.start(env);
    const request = govDealsAdapter.request!(start!, env);
    expect(request).toMatchObject({ url: 'https://maestro.lqdt1.com/search/list', method: 'POST' });
    expect(JSON.parse(request.body!)).toMatchObject({ page: 1, displayRows: 24 });
    expect(govDealsAdapter.request!({ label: 'detail', url: 'https://www.govdeals.com/asset/5282/3780' }, env).url).toBe('https://maestro.lqdt1.com/assets/5282/3780/false');
  });
});
