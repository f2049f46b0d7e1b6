import { describe, expect, it } from 'vitest';
import type { ScrapedListing } from '../../services/crawler/normalize/listing.js';
import { adapterEnv, adapterHosts, ParseError } from '../../services/crawler/adapter.js';
import { municibidAdapter, parseMunicibidListing, parseMunicibidSearch } from '../../services/crawler/adapters/municibid.js';
import { expectWholeListing, fetchedPage, readRecorded } from '../support/recorded-sites.js';
import { testConfig } from '../support/recorded-sites.js';

const SEARCH = 'search-results-active-chairs_TRIMMED_BlackWhole_discover_active_chairs.html';
const ACTIVE = 'detail-active-84516049_TRIMMED_BlackWhole.html';
const CLOSED = 'detail-closed-sold-82394410_TRIMMED_BlackWhole.html';

function search() {
  return parseMunicibidSearch(fetchedPage(readRecorded('municibid', SEARCH), 'https://municibid.com/Search/Results?page=1', 'list', { page: 1 }, '2026-07-31T09:10:00Z'));
}

describe('Municibid adapter on the recorded search results', () => {
  it('reads the 34 results as whole open listings', () => {
    const { listings, next } = search();
    expect(listings).toHaveLength(34);
    for (const l of listings) expectWholeListing(l);
    expect(new Set(listings.map((l) => l.status))).toEqual(new Set(['open']));
    expect(next).toEqual([]);
  });

  it('reads a lot with a bid field by field (JSON end time is UTC)', () => {
    const l = search().listings.find((x) => x.externalId === '84516049')!;
    expect(l.title).toBe('Banquet Chairs');
    expect(l.url).toBe('https://municibid.com/Listing/Details/84516049');
    expect(l.currentBid).toBe(25);
    expect(l.bidCount).toBe(1);
    expect(l.city).toBe('Boyertown');
    expect(l.state).toBe('PA');
    expect(l.endsAt).toEqual(new Date('2026-08-04T12:27:00Z'));
    expect(l.images).toEqual(['https://storagemunicibidpro.blob.core.windows.net/assets/media/beb07e00-f3cf-41b6-8642-e25f7df3660d_thumbcrop.jpg']);
  });

  it('reads lots with several bids and with none', () => {
    const listings = search().listings;
    const office = listings.find((x) => x.externalId === '84127570')!;
    expect(office.title).toBe('Multiple office chairs');
    expect(office.currentBid).toBe(16);
    expect(office.bidCount).toBe(7);
    expect(office.city).toBe('Zachary');
    expect(office.state).toBe('LA');
    expect(office.endsAt).toEqual(new Date('2026-08-04T14:00:00Z'));
    const black = listings.find((x) => x.externalId === '84710337')!;
    expect(black.title).toBe('Black Chairs (5 Pack)');
    expect(black.bidCount).toBe(0);
    expect(black.currentBid).toBeNull();
    expect(black.askingPrice).toBe(1);
    expect(black.city).toBe('New Kensington');
    const desks = listings.find((x) => x.externalId === '84385765')!;
    expect(desks.title).toBe('Lot of 28 Virco Analogy Combo Desks - Excellent');
    expect(desks.askingPrice).toBe(500);
  });
});

describe('Municibid adapter on the recorded listing pages', () => {
  it('reads the active listing as a partial update: current bid, bid count, Eastern end time in UTC, no location', () => {
    const [l] = parseMunicibidListing(fetchedPage(readRecorded('municibid', ACTIVE), 'https://municibid.com/Listing/Details/84516049', 'detail')).updates!;
    expectWholeListing(l as ScrapedListing);
    expect(l!.externalId).toBe('84516049');
    expect(l!.title).toBe('Banquet Chairs');
    expect(l!.currentBid).toBe(25);
    expect(l!.bidCount).toBe(1);
    expect(l!.status).toBe('open');
    // A listing page has no location or image: a partial update leaves the search page's alone.
    for (const key of ['city', 'state', 'images', 'country']) expect(l).not.toHaveProperty(key);
    // 08/04/2026 08:27:00 Eastern = the search JSON's 2026-08-04T12:27:00.
    expect(l!.endsAt).toEqual(new Date('2026-08-04T12:27:00Z'));
  });

  it('reads the closed listing as sold with its final bid', () => {
    const [l] = parseMunicibidListing(fetchedPage(readRecorded('municibid', CLOSED), 'https://municibid.com/Listing/Details/82394410', 'detail')).updates!;
    expectWholeListing(l as ScrapedListing);
    expect(l!.externalId).toBe('82394410');
    expect(l!.title).toBe('Miscellaneous Chairs');
    expect(l!.status).toBe('sold');
    expect(l!.soldPrice).toBe(21);
    expect(l!.currentBid).toBe(21);
    expect(l!.bidCount).toBe(8);
    expect(l!.endsAt).toEqual(new Date('2026-05-04T12:06:00Z'));
  });

  it('fails pages that are not a listing with a ParseError', () => {
    expect(() => parseMunicibidListing(fetchedPage(readRecorded('municibid', SEARCH), 'https://municibid.com/Listing/Details/1', 'detail'))).toThrow(ParseError);
    expect(() => parseMunicibidSearch(fetchedPage(readRecorded('municibid', ACTIVE), 'https://municibid.com/Search/Results'))).toThrow(ParseError);
  });

  it('re-checks a known lot on its listing page', () => {
    const env = adapterEnv(municibidAdapter, testConfig());
    expect(municibidAdapter.detailStep!({ externalId: '84516049', originalUrl: 'https://municibid.com/Listing/Details/84516049' }, env)).toEqual({
      label: 'detail',
      url: 'https://municibid.com/Listing/Details/84516049',
      externalId: '84516049',
    });
    expect(municibidAdapter.obeyRobots).toBe(true);
  });

  it('follows redirects between the apex and www hosts only, or only the override host', () => {
    expect(adapterHosts(municibidAdapter, testConfig())).toEqual(['municibid.com', 'www.municibid.com']);
    expect(adapterHosts(municibidAdapter, testConfig({ SOURCE_BASE_URLS: 'municibid=http://127.0.0.1:9' }))).toEqual(['127.0.0.1:9']);
  });
});
